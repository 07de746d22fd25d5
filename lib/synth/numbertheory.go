package synth

import "strings"

var numberTheoryTemplates = []template{
	{"divisor-count", []string{"Number Theory/Divisors/Divisor Function", "Number Theory/Prime Factorization/Fundamental Theorem of Arithmetic"}, genDivisorCount},
	{"gcd-lcm-word", []string{"Number Theory/Divisibility/GCD and LCM"}, genGcdLcm},
	{"last-digit-power", []string{"Number Theory/Modular Arithmetic/Powers Mod n", "Number Theory/Digits/Last Digit"}, genLastDigit},
	{"linear-congruence", []string{"Number Theory/Modular Arithmetic/Linear Congruences", "Number Theory/Modular Arithmetic/Modular Inverses"}, genLinearCongruence},
	{"digit-divisibility", []string{"Number Theory/Divisibility/Divisibility Rules", "Number Theory/Digits/Digit Sums"}, genDigitDivisibility},
	{"chinese-remainder", []string{"Number Theory/Modular Arithmetic/Chinese Remainder Theorem"}, genCRT},
	{"factorial-prime-power", []string{"Number Theory/Prime Factorization/Legendre's Formula", "Number Theory/Digits/Trailing Zeros"}, genFactorialPower},
	{"euler-totient", []string{"Number Theory/Arithmetic Functions/Euler's Totient Function"}, genTotient},
	{"power-remainder", []string{"Number Theory/Modular Arithmetic/Fermat's Little Theorem", "Number Theory/Modular Arithmetic/Powers Mod n"}, genPowerRemainder},
	{"rectangular-arrays", []string{"Number Theory/Divisors/Divisor Function", "Combinatorics/Counting/Factor Pairs"}, genRectArrays},
}

var smallPrimes = []int64{2, 3, 5, 7, 11, 13, 17}

// divisorWork explains τ(n) from the factorization and returns τ(n).
func divisorWork(n int64, ps []int64, es []int) (string, int64) {
	vars := []string{"a", "b", "c", "d", "e"}
	form := make([]string, len(ps))
	ranges := make([]string, len(ps))
	prod := make([]string, len(ps))
	tau := int64(1)
	for k, p := range ps {
		form[k] = itoa(p) + "^{" + vars[k] + "}"
		ranges[k] = sprintf("$0 \\le %s \\le %d$", vars[k], es[k])
		prod[k] = sprintf("(%d+1)", es[k])
		tau *= int64(es[k] + 1)
	}
	w := sprintf("The prime factorization is $%d = %s$. A positive divisor must have the form $%s$ with %s, and each choice of exponents gives a different divisor. Hence the number of divisors is $%s = %d$.",
		n, factorTeX(ps, es), strings.Join(form, ""), joinAnd(ranges), strings.Join(prod, ""), tau)
	return w, tau
}

func genDivisorCount(g *gen) (string, string, string) {
	ps, es, n := g.factored(smallPrimes, 2, 4, 100, 5000000)
	var st string
	switch g.intn(5) {
	case 0:
		st = g.spinf("How many positive divisors does the number $%d$ [[chosen by %s|on %s's card]] have, counting both $1$ and the number itself?", n, g.name())
	case 1:
		st = sprintf("Let $n = %d$. Determine the number of positive integers $d$ such that $d$ divides $n$.", n)
	case 2:
		st = sprintf("%s has $%d$ %s and wants to pack all of them into boxes so that every box holds the same number. A single box holding everything counts, and so does one item per box. How many different box sizes are possible?",
			g.name(), n, g.pick("marbles", "stickers", "trading cards", "beads", "stamps", "coins"))
	case 3:
		st = sprintf("The integer $%d$ is written on the board. %s writes down every positive divisor of it in a list. How many numbers does the list contain?", n, g.name())
	default:
		st = sprintf("Find the number of positive factors of $%d$.%s", n, g.pick("", " Include the trivial factors.", " Justify your count using the prime factorization."))
	}
	w, tau := divisorWork(n, ps, es)
	return st, w, itoa(tau)
}

// euclidWork shows the Euclidean algorithm on (a, b) and returns gcd.
func euclidWork(a, b int64) (string, int64) {
	if a < b {
		a, b = b, a
	}
	var steps []string
	for b != 0 {
		steps = append(steps, sprintf("$%d = %d \\cdot %d + %d$", a, a/b, b, a%b))
		a, b = b, a%b
	}
	return "By the Euclidean algorithm, " + joinAnd(steps) + sprintf(", so the greatest common divisor is $%d$.", a), a
}

func genGcdLcm(g *gen) (string, string, string) {
	var x, y int64
	for {
		x, y = g.n64(2, 13), g.n64(2, 13)
		if x != y && gcd64(x, y) == 1 {
			break
		}
	}
	d := g.n64(2, 24)
	a, b := d*x, d*y
	switch g.intn(5) {
	case 0, 1: // lcm of two
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("Two [[lighthouses|beacons|signal lights]] on the coast [[near %s's village|that %s can see|visible from %s's window]] flash at regular intervals: the first every $%d$ seconds and the second every $%d$ seconds. They flash together at [[midnight|dusk|nine o'clock]]. After how many seconds will they next flash at the same moment?", g.name(), a, b)
		case 1:
			st = g.spinf("At [[a bus terminal%.0s|the station near %s's school|%s's local depot]], the %s line departs every $%d$ minutes and the %s line departs every $%d$ minutes. Both lines have just left together. After how many minutes will they next depart at the same time?", g.name(),
				g.pick("red", "blue", "green"), a, g.pick("yellow", "orange", "purple"), b)
		default:
			n1, n2 := g.names2()
			st = g.spinf("%s visits the [[library|gym|swimming pool|museum]] every $%d$ days and %s visits it every $%d$ days. They met there [[today|on Monday|this morning]]. In how many days will they next both be at the library on the same day?", n1, a, n2, b)
		}
		pa, ea := factor(a)
		pb, eb := factor(b)
		l := lcm64(a, b)
		pl, el := factor(l)
		w := sprintf("The two events coincide again after the least common multiple of $%d$ and $%d$. Factor: $%d = %s$ and $%d = %s$. Taking the highest power of each prime gives $\\operatorname{lcm}(%d, %d) = %s = %d$.",
			a, b, a, factorTeX(pa, ea), b, factorTeX(pb, eb), a, b, factorTeX(pl, el), l)
		return st, w, itoa(l)
	case 2: // lcm of three
		var c int64
		for {
			a, b, c = g.n64(6, 60), g.n64(6, 60), g.n64(6, 60)
			if a != b && b != c && a != c && lcm64(lcm64(a, b), c) <= 5000 {
				break
			}
		}
		n1, n2 := g.names2()
		st := g.spinf("Three [[runners|cyclists|skaters]] start together from the same point of a circular track. %s completes a lap every $%d$ seconds, %s every $%d$ seconds, and a third runner every $%d$ seconds. Each keeps a constant pace. After how many seconds will all three next be at the starting point together?", n1, a, n2, b, c)
		l := lcm64(lcm64(a, b), c)
		pl, el := factor(l)
		fs := []string{}
		for _, v := range []int64{a, b, c} {
			if v == 1 {
				continue
			}
			p, e := factor(v)
			fs = append(fs, sprintf("$%d = %s$", v, factorTeX(p, e)))
		}
		w := sprintf("All three are at the start exactly at common multiples of the lap times, so we need $\\operatorname{lcm}(%d, %d, %d)$. We have %s. Taking the highest power of every prime, the least common multiple is $%s = %d$.",
			a, b, c, joinAnd(fs), factorTeX(pl, el), l)
		return st, w, itoa(l)
	case 3: // largest square tile / fewest tiles
		few := g.chance(0.5)
		q := "What is the side length, in centimeters, of the largest square tile that can be used?"
		if few {
			q = "What is the smallest number of square tiles needed?"
		}
		st := g.spinf("A rectangular %s [[in %s's house|that %s is renovating|at %s's school]] measures $%d$ cm by $%d$ cm. It is to be covered exactly by identical square tiles whose side length is a whole number of centimeters, with no tiles [[cut or overlapping|broken or overlapping]]. %s",
			g.pick("floor", "patio", "wall panel", "courtyard", "bathroom floor"), g.name(), a, b, q)
		w, gg := euclidWork(a, b)
		w = "The tile side must divide both $" + itoa(a) + "$ and $" + itoa(b) + "$, so the largest possible side is their greatest common divisor. " + w
		if !few {
			return st, w, itoa(gg)
		}
		cnt := (a / gg) * (b / gg)
		w += sprintf(" Using the largest tiles minimizes their number: $\\frac{%d}{%d} \\cdot \\frac{%d}{%d} = %d \\cdot %d = %d$ tiles.", a, gg, b, gg, a/gg, b/gg, cnt)
		return st, w, itoa(cnt)
	default: // identical bags
		st := sprintf("%s has $%d$ %s and $%d$ %s and wants to make identical gift bags using all of them, so that every bag contains the same number of %s and the same number of %s. What is the greatest number of gift bags that can be made?",
			g.name(), a, "pencils", b, "erasers", "pencils", "erasers")
		if g.chance(0.5) {
			st = g.spinf("A [[club|team|class]] [[led by %s|that %s coaches]] is preparing identical snack packs from $%d$ %s and $%d$ %s. Every item must be used and all packs must be the same. At most how many packs can they make?", g.name(),
				a, g.pick("apples", "granola bars", "juice boxes"), b, g.pick("oranges", "cookies", "bags of nuts"))
		}
		w, gg := euclidWork(a, b)
		w = "The number of bags must divide both quantities, so the largest possible number is their greatest common divisor. " + w
		return st, w, itoa(gg)
	}
}

func genLastDigit(g *gen) (string, string, string) {
	var a int64
	for {
		a = g.n64(2, 99)
		if d := a % 10; d != 0 && d != 1 && d != 5 && d != 6 {
			break
		}
	}
	b := g.n64(15, 2099)
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("What is the units digit of $%d^{%d}$ when it is written in decimal notation?", a, b)
	case 1:
		st = sprintf("Find the last digit of the number $%d^{%d}$.%s", a, b, g.pick("", " Explain the pattern you use.", " A calculator is not allowed."))
	case 2:
		st = sprintf("%s computes $%d^{%d}$ on a very powerful computer and looks only at the ones digit of the result. Which digit appears there?", g.name(), a, b)
	default:
		st = sprintf("Determine the remainder when $%d^{%d}$ is divided by $10$.", a, b)
	}
	d := a % 10
	cyc := []int64{}
	v := d
	for {
		cyc = append(cyc, v)
		v = v * d % 10
		if v == d {
			break
		}
	}
	p := int64(len(cyc))
	r := b % p
	if r == 0 {
		r = p
	}
	ans := cyc[r-1]
	parts := make([]string, len(cyc))
	for k, c := range cyc {
		parts[k] = sprintf("%d^{%d}", d, k+1) + `\to ` + itoa(c)
	}
	w := sprintf("Only the last digit of the base matters, and $%d$ ends in $%d$. The last digits of the powers of $%d$ are $%s$, after which they repeat with period $%d$. Since $%d = %d \\cdot %d + %d$, the exponent corresponds to position $%d$ in the cycle, so the last digit is $%d$.",
		a, d, d, strings.Join(parts, ",\\ "), p, b, p, (b-r)/p, r, r, ans)
	return st, w, itoa(ans)
}

// inverse returns a^{-1} mod m for coprime a, m.
func inverse(a, m int64) int64 {
	for x := int64(1); x < m; x++ {
		if a*x%m == 1 {
			return x
		}
	}
	return 0
}

func genLinearCongruence(g *gen) (string, string, string) {
	var a, b, m int64
	for {
		m = g.n64(7, 97)
		a = g.n64(2, m-1)
		b = g.n64(1, m-1)
		if gcd64(a, m) == 1 {
			break
		}
	}
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Find the smallest positive integer $x$ such that $%dx \\equiv %d \\pmod{%d}$.", a, b, m)
	case 1:
		st = sprintf("Solve the congruence $%dx \\equiv %d \\pmod{%d}$ and give the least positive solution.", a, b, m)
	case 2:
		st = sprintf("A positive integer $x$ satisfies $%dx \\equiv %d \\pmod{%d}$. What is the least possible value of $x$?", a, b, m)
	default:
		nm := g.name()
		st = sprintf("%s is looking for the smallest positive integer $x$ for which $%dx \\equiv %d \\pmod{%d}$ holds. What number is %s looking for?", nm, a, b, m, nm)
	}
	inv := inverse(a, m)
	k := (a*inv - 1) / m
	x := inv * b % m
	w := sprintf("Since $\\gcd(%d, %d) = 1$, the coefficient $%d$ is invertible modulo $%d$. We have $%d \\cdot %d = %d = %d \\cdot %d + 1$, so $%d^{-1} \\equiv %d \\pmod{%d}$. Multiplying both sides by $%d$ gives $x \\equiv %d \\cdot %d = %d \\equiv %d \\pmod{%d}$. The least positive solution is $%d$.",
		a, m, a, m, a, inv, a*inv, k, m, a, inv, m, inv, inv, b, inv*b, x, m, x)
	return st, w, itoa(x)
}

func genDigitDivisibility(g *gen) (string, string, string) {
	L := g.n(4, 7)
	pos := g.n(1, L-1)
	kind := []int64{9, 11, 3}[g.intn(3)]
	digits := make([]int64, L)
	for !digitsOK(digits, pos, kind) {
		for k := range digits {
			digits[k] = g.n64(0, 9)
		}
		digits[pos] = 0
	}
	var num strings.Builder
	for k, d := range digits {
		if k == pos {
			num.WriteString("A")
		} else {
			num.WriteString(itoa(d))
		}
	}
	over := `\overline{` + num.String() + "}"
	word := numberWords[L]
	s := int64(0)
	for _, d := range digits {
		s += d
	}
	if kind == 3 {
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("The %s-digit number $%s$ is divisible by $3$, where $A$ is a single digit. What is the sum of all possible values of $A$?", word, over)
		case 1:
			st = sprintf("Let $A$ be a digit such that $%s$ is a multiple of $3$. Find the sum of all digits $A$ for which this is true.", over)
		default:
			st = sprintf("%s remembers that the %s-digit locker code $%s$ is a multiple of $3$ but has forgotten the digit $A$. What is the total of all the digits that $A$ could be?", g.name(), word, over)
		}
		r := mod(-s, 3)
		vals := []string{}
		sum := int64(0)
		for v := r; v <= 9; v += 3 {
			vals = append(vals, itoa(v))
			sum += v
		}
		w := sprintf("A number is divisible by $3$ exactly when its digit sum is. The known digits sum to $%d$, so we need $%d + A \\equiv 0 \\pmod{3}$, that is $A \\equiv %d \\pmod{3}$. The digits with this property are $%s$, whose sum is $%d$.",
			s, s, r, strings.Join(vals, ", "), sum)
		return st, w, itoa(sum)
	}
	var st string
	switch g.intn(3) {
	case 0:
		st = sprintf("The %s-digit number $%s$ is divisible by $%d$, where $A$ represents a single digit. Find $A$.", word, over, kind)
	case 1:
		st = sprintf("For which digit $A$ is the number $%s$ a multiple of $%d$?", over, kind)
	default:
		st = sprintf("%s remembers that the %s-digit code $%s$ of a padlock is a multiple of $%d$, but has forgotten the digit $A$. Which digit is it?", g.name(), word, over, kind)
	}
	if kind == 9 {
		a := mod(-s, 9)
		w := sprintf("A number is divisible by $9$ exactly when its digit sum is. The known digits sum to $%d$, so we need $%d + A$ to be a multiple of $9$. As $0 \\le A \\le 9$ and $%d + A \\equiv 0 \\pmod 9$ forces $A \\equiv %d \\pmod 9$, the only digit that works is $A = %d$.",
			s, s, s, a, a)
		return st, w, itoa(a)
	}
	t, wt := altSum(digits, pos)
	a := mod(-t*wt, 11)
	expr := "A " + signed(t)
	if wt < 0 {
		expr = sprintf("%d - A", t)
	}
	w := sprintf("A number is divisible by $11$ exactly when the alternating sum of its digits, taken from the right, is divisible by $11$. Here that alternating sum equals $%s$. We need $%s \\equiv 0 \\pmod{11}$ with $0 \\le A \\le 9$, which gives $A = %d$.", expr, expr, a)
	return st, w, itoa(a)
}

// digitsOK reports whether the drawn digits make a well-posed question: a
// leading non-zero digit and exactly one admissible value of A for 9 and 11.
func digitsOK(digits []int64, pos int, kind int64) bool {
	if digits[0] == 0 {
		return false
	}
	switch kind {
	case 9:
		s := int64(0)
		for _, d := range digits {
			s += d
		}
		return mod(-s, 9) != 0
	case 11:
		t, w := altSum(digits, pos)
		return mod(-t*w, 11) != 10
	}
	return true
}

// altSum returns the alternating digit sum (units digit positive) of the
// digits other than pos, and the sign carried by position pos.
func altSum(digits []int64, pos int) (int64, int64) {
	L := len(digits)
	t, w := int64(0), int64(1)
	for k, d := range digits {
		sgn := int64(1)
		if (L-1-k)%2 == 1 {
			sgn = -1
		}
		if k == pos {
			w = sgn
			continue
		}
		t += sgn * d
	}
	return t, w
}

func genCRT(g *gen) (string, string, string) {
	pool := []int64{3, 4, 5, 7, 8, 9, 11, 13}
	var ms, rs []int64
	for {
		k := 2 + g.intn(2)
		ms = g.distinct(pool, k)
		ok := true
		prod := int64(1)
		for x := range ms {
			prod *= ms[x]
			for y := x + 1; y < len(ms); y++ {
				if gcd64(ms[x], ms[y]) != 1 {
					ok = false
				}
			}
		}
		if ok && prod >= 15 && prod <= 1200 {
			break
		}
	}
	rs = make([]int64, len(ms))
	for k, m := range ms {
		rs[k] = g.n64(1, m-1)
	}
	var st string
	switch g.intn(4) {
	case 0, 1:
		cs := make([]string, len(ms))
		for k := range ms {
			cs[k] = sprintf("$x \\equiv %d \\pmod{%d}$", rs[k], ms[k])
		}
		if g.chance(0.5) {
			st = "Find the smallest positive integer $x$ that satisfies " + joinAnd(cs) + "."
		} else {
			st = "Determine the least positive integer $x$ such that simultaneously " + joinAnd(cs) + "."
		}
	case 2:
		obj := g.pick("eggs", "apples", "candies", "marbles")
		box := g.pick("boxes", "bags", "rows", "groups")
		cs := make([]string, len(ms))
		for k := range ms {
			cs[k] = g.spinf("when they are put in %s of $%d$, [[the remainder is|the number left over is]] $%d$", box, ms[k], rs[k])
		}
		nm := g.name()
		st = sprintf("%s has a collection of %s. %s. What is the smallest number of %s that %s could have?", nm, obj, upperFirst(joinAnd(cs)), obj, nm)
	default:
		cs := make([]string, len(ms))
		for k := range ms {
			cs[k] = sprintf("leaves remainder $%d$ when divided by $%d$", rs[k], ms[k])
		}
		st = "What is the smallest positive integer that " + joinAnd(cs) + "?"
	}
	c, M := rs[0], ms[0]
	steps := []string{sprintf("From the first condition, $x = %d + %dt$ for an integer $t$.", c, M)}
	for k := 1; k < len(ms); k++ {
		m, r := ms[k], rs[k]
		var t int64
		for t = 0; t < m; t++ {
			if mod(c+M*t-r, m) == 0 {
				break
			}
		}
		nc := c + M*t
		steps = append(steps, sprintf("Substituting into $x \\equiv %d \\pmod{%d}$ gives $%d + %dt \\equiv %d \\pmod{%d}$, whose solution is $t \\equiv %d \\pmod{%d}$. Hence $x \\equiv %d \\pmod{%d}$.",
			r, m, c, M, r, m, t, m, nc, M*m))
		c, M = nc, M*m
		if k+1 < len(ms) {
			steps = append(steps, sprintf("So $x = %d + %dt$.", c, M))
		}
	}
	if c == 0 {
		c = M
	}
	w := "The moduli are pairwise coprime, so by the Chinese remainder theorem there is exactly one solution modulo their product. " +
		strings.Join(steps, " ") + sprintf(" The smallest positive solution is $%d$.", c)
	return st, w, itoa(c)
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// legendre returns the exponent of p in n! and the displayed terms.
func legendre(n, p int64) (int64, []string, []int64) {
	var terms []string
	var vals []int64
	e := int64(0)
	for pk := p; pk <= n; pk *= p {
		v := n / pk
		terms = append(terms, sprintf("\\left\\lfloor \\frac{%d}{%d} \\right\\rfloor", n, pk))
		vals = append(vals, v)
		e += v
	}
	return e, terms, vals
}

func genFactorialPower(g *gen) (string, string, string) {
	n := g.n64(25, 3000)
	if g.chance(0.6) {
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("How many zeros are at the end of the decimal representation of $%d!$?", n)
		case 1:
			st = sprintf("When $%d!$ is written out in full, how many trailing zeros does it have?", n)
		default:
			st = sprintf("%s multiplies together all the integers from $1$ to $%d$, obtaining $%d!$. How many consecutive zeros appear at the end of the product?", g.name(), n, n)
		}
		e, terms, vals := legendre(n, 5)
		vs := make([]string, len(vals))
		for k, v := range vals {
			vs[k] = itoa(v)
		}
		w := sprintf("Each trailing zero comes from a factor $10 = 2 \\cdot 5$, and factors of $2$ are more plentiful than factors of $5$ in $%d!$, so we count the factors of $5$. By Legendre's formula this is $%s = %s = %d$.",
			n, strings.Join(terms, " + "), strings.Join(vs, " + "), e)
		return st, w, itoa(e)
	}
	p := []int64{2, 3, 7}[g.intn(3)]
	var st string
	switch g.intn(3) {
	case 0:
		st = sprintf("Find the largest integer $k$ such that $%d^k$ divides $%d!$.", p, n)
	case 1:
		st = sprintf("What is the exponent of the prime $%d$ in the prime factorization of $%d!$?", p, n)
	default:
		st = sprintf("Let $k$ be the greatest integer for which $%d!$ is divisible by $%d^k$. Compute $k$.", n, p)
	}
	e, terms, vals := legendre(n, p)
	vs := make([]string, len(vals))
	for k, v := range vals {
		vs[k] = itoa(v)
	}
	w := sprintf("By Legendre's formula, the exponent of $%d$ in $%d!$ is $\\sum_{i \\ge 1} \\left\\lfloor \\frac{%d}{%d^i} \\right\\rfloor = %s = %s = %d$.",
		p, n, n, p, strings.Join(terms, " + "), strings.Join(vs, " + "), e)
	return st, w, itoa(e)
}

func genTotient(g *gen) (string, string, string) {
	ps, es, n := g.factored([]int64{2, 3, 5, 7, 11, 13, 17, 19, 23}, 1, 3, 30, 20000)
	var st string
	switch g.intn(4) {
	case 0:
		st = g.spinf("How many positive integers less than or equal to $%d$ are [[relatively prime|coprime]] to $%d$[[?%.0s|, as %s asks?]]", n, n, g.name())
	case 1:
		st = g.spinf("[[Compute|Find|Evaluate]] $\\varphi(%d)$, where $\\varphi$ [[denotes|is]] Euler's totient function [[from %s's lecture notes|as defined in class%.0s|in the usual notation%.0s]].", n, g.name())
	case 2:
		st = g.spinf("%s writes down the fractions $\\frac{k}{%d}$ for every integer $k$ from $1$ to $%d$ [[on a long sheet|in a notebook|on the board]]. How many of these fractions are already in [[lowest terms|simplest form]]?", g.name(), n, n)
	default:
		st = sprintf("Among the integers $1, 2, \\ldots, %d$, how many share no common factor greater than $1$ with $%d$?", n, n)
	}
	phi := int64(1)
	fs := make([]string, len(ps))
	pp := make([]string, len(ps))
	for k, p := range ps {
		phi *= ipow(p, es[k]-1) * (p - 1)
		fs[k] = sprintf("\\left(1 - \\frac{1}{%d}\\right)", p)
		if es[k] > 1 {
			pp[k] = sprintf("%s(%d-1)", pow(itoa(p), es[k]-1), p)
		} else {
			pp[k] = sprintf("(%d-1)", p)
		}
	}
	w := sprintf("The count asked for is Euler's totient $\\varphi(%d)$. Since $%d = %s$, we get $\\varphi(%d) = %d%s = %s = %d$.",
		n, n, factorTeX(ps, es), n, n, strings.Join(fs, ""), strings.Join(pp, " \\cdot "), phi)
	return st, w, itoa(phi)
}

func genPowerRemainder(g *gen) (string, string, string) {
	m := []int64{7, 11, 13, 17, 19, 23, 29, 31}[g.intn(8)]
	var a int64
	for {
		a = g.n64(2, 200)
		if a%m != 0 {
			break
		}
	}
	b := g.n64(20, 5000)
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("What is the remainder when $%d^{%d}$ is divided by $%d$?", a, b, m)
	case 1:
		st = sprintf("Find the remainder of $%d^{%d}$ upon division by $%d$.", a, b, m)
	case 2:
		st = sprintf("Compute $%d^{%d} \\bmod %d$, that is, the least non-negative residue of the power.", a, b, m)
	default:
		st = sprintf("%s claims that the remainder of $%d^{%d}$ modulo $%d$ can be found without a computer. Find that remainder.", g.name(), a, b, m)
	}
	a0 := a % m
	e := b % (m - 1)
	ans := powmod(a0, e, m)
	w := sprintf("First reduce the base: $%d \\equiv %d \\pmod{%d}$. Since $%d$ is prime and does not divide $%d$, Fermat's little theorem gives $%d^{%d} \\equiv 1 \\pmod{%d}$. As $%d = %d \\cdot %d + %d$, we have $%d^{%d} \\equiv %d^{%d} \\pmod{%d}$.",
		a, a0, m, m, a0, a0, m-1, m, b, m-1, b/(m-1), e, a, b, a0, e, m)
	if e == 0 {
		w += sprintf(" Here the reduced exponent is $0$, so the power is congruent to $1$.")
	} else {
		pw := []string{}
		v := int64(1)
		for k := int64(1); k <= e && k <= 6; k++ {
			v = v * a0 % m
			pw = append(pw, sprintf("%s \\equiv %d", pow(itoa(a0), int(k)), v))
		}
		if e <= 6 {
			w += " Computing successive powers: $" + strings.Join(pw, ",\\ ") + sprintf("$ (mod $%d$).", m)
		} else {
			// square-and-multiply display
			sq := []string{}
			v := a0
			bits := []string{}
			for k, t := 0, e; t > 0; k, t = k+1, t>>1 {
				sq = append(sq, sprintf("%d^{%d} \\equiv %d", a0, 1<<k, v))
				if t&1 == 1 {
					bits = append(bits, sprintf("%d^{%d}", a0, 1<<k))
				}
				v = v * v % m
			}
			w += sprintf(" Repeated squaring modulo $%d$ gives $%s$. Since $%s = %s$, multiplying the corresponding residues gives $%d^{%d} \\equiv %d \\pmod{%d}$.",
				m, strings.Join(sq, ",\\ "), pow(itoa(a0), int(e)), strings.Join(bits, " \\cdot "), a0, e, ans, m)
		}
	}
	return st, w, itoa(ans)
}

func genRectArrays(g *gen) (string, string, string) {
	ps, es, n := g.factored([]int64{2, 3, 5, 7, 11}, 2, 3, 24, 5000)
	w, tau := divisorWork(n, ps, es)
	switch g.intn(3) {
	case 0:
		st := g.spinf("A %s [[directed by %s|led by %s|that %s conducts]] with $%d$ members must line up in a rectangular formation with at least two rows and at least two members in each row. Formations with a different number of rows count as [[different|distinct]]. How many formations are [[possible|there]]?", g.pick("marching band", "choir", "drill team", "dance troupe", "brass band"), g.name(), n)
		if g.chance(0.5) {
			st = g.spinf("%s wants to arrange $%d$ [[chairs|desks|potted plants|tables]] in a rectangular array with at least two rows and at least two [[of them|items]] in every row. An array of $r$ rows and $c$ columns is different from one with $c$ rows and $r$ columns. How many arrays can be made?", g.name(), n)
		}
		w += sprintf(" A formation is determined by the number of rows $r$, which must be a divisor of $%d$ other than $1$ and $%d$ itself. So the count is $%d - 2 = %d$.", n, n, tau, tau-2)
		return st, w, itoa(tau - 2)
	case 1:
		st := g.spinf("How many ordered pairs $(x, y)$ of positive integers [[satisfy|solve]] $xy = %d$[[?%.0s|, as %s asks?]]", n, g.name())
		if g.chance(0.5) {
			st = sprintf("%s picks positive integers $x$ and $y$ with product $%d$. How many ordered pairs $(x, y)$ are possible?", g.name(), n)
		}
		w += sprintf(" Each divisor $x$ of $%d$ determines exactly one $y = %d/x$, so there are $%d$ ordered pairs.", n, n, tau)
		return st, w, itoa(tau)
	default:
		st := g.spinf("How many non-congruent rectangles with integer side lengths [[have|cover an]] area [[exactly|of exactly]] $%d$ [[square units|]][[?%.0s|, %s wonders?]]", n, g.name())
		if g.chance(0.5) {
			st = sprintf("%s cuts rectangles with whole-number side lengths out of grid paper, each of area $%d$ square units. Rectangles that are congruent are counted only once. How many different rectangles can be cut?", g.name(), n)
		}
		r := isqrtFast(n)
		var cnt int64
		if r*r == n {
			cnt = (tau + 1) / 2
			w += sprintf(" A rectangle corresponds to an unordered factor pair $a \\cdot b = %d$ with $a \\le b$. Since $%d = %d^2$ is a perfect square, the pairs number $\\frac{%d + 1}{2} = %d$.", n, n, r, tau, cnt)
		} else {
			cnt = tau / 2
			w += sprintf(" A rectangle corresponds to an unordered factor pair $a \\cdot b = %d$ with $a < b$; since $%d$ is not a perfect square the divisors pair up, giving $\\frac{%d}{2} = %d$ rectangles.", n, n, tau, cnt)
		}
		return st, w, itoa(cnt)
	}
}
