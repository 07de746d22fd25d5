package synth

import "strings"

var algebraTemplates = []template{
	{"linear-system", []string{"Algebra/Linear Equations/Systems of Linear Equations"}, genLinearSystem},
	{"quadratic-vieta", []string{"Algebra/Polynomials/Vieta's Formulas", "Algebra/Quadratic Equations/Roots"}, genVieta},
	{"quadratic-roots", []string{"Algebra/Quadratic Equations/Factoring", "Algebra/Quadratic Equations/Roots"}, genQuadRoots},
	{"arithmetic-series", []string{"Algebra/Sequences and Series/Arithmetic Sequences"}, genArithSeries},
	{"geometric-sequence", []string{"Algebra/Sequences and Series/Geometric Sequences"}, genGeomSeq},
	{"function-composition", []string{"Algebra/Functions/Composition of Functions"}, genComposition},
	{"integer-inequality", []string{"Algebra/Inequalities/Linear Inequalities", "Algebra/Inequalities/Absolute Value Inequalities"}, genInequality},
	{"exponential-equation", []string{"Algebra/Exponents/Exponential Equations"}, genExpEquation},
	{"work-rate", []string{"Algebra/Word Problems/Work and Rates"}, genWorkRate},
	{"polynomial-remainder", []string{"Algebra/Polynomials/Remainder Theorem"}, genPolyRemainder},
}

// lin2 renders a·x + b·y.
func lin2(a, b int64, x, y string) string {
	s := polyTeX([]int64{0, a}, x)
	if b < 0 {
		s += " - "
	} else {
		s += " + "
	}
	if abs64(b) != 1 {
		s += itoa(abs64(b))
	}
	return s + y
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

func genLinearSystem(g *gen) (string, string, string) {
	if g.chance(0.5) {
		return linearSystemStory(g)
	}
	var a1, b1, a2, b2, x, y int64
	for {
		a1, b1, a2, b2 = int64(g.nz(-9, 9)), int64(g.nz(-9, 9)), int64(g.nz(-9, 9)), int64(g.nz(-9, 9))
		if a1*b2-a2*b1 != 0 {
			break
		}
	}
	x, y = g.n64(-12, 12), g.n64(-12, 12)
	c1, c2 := a1*x+b1*y, a2*x+b2*y
	e1 := lin2(a1, b1, "x", "y") + " = " + itoa(c1)
	e2 := lin2(a2, b2, "x", "y") + " = " + itoa(c2)
	targets := []struct {
		tex string
		v   int64
	}{{"x + y", x + y}, {"xy", x * y}, {"x - y", x - y}, {"2x + 3y", 2*x + 3*y}}
	t := targets[g.intn(len(targets))]
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Solve the system $\\begin{cases} %s \\\\ %s \\end{cases}$ and report the value of $%s$.", e1, e2, t.tex)
	case 1:
		st = sprintf("If $%s$ and $%s$, what is the value of $%s$?", e1, e2, t.tex)
	case 2:
		st = sprintf("The real numbers $x$ and $y$ satisfy $%s$ and $%s$. Compute $%s$.", e1, e2, t.tex)
	default:
		st = sprintf("%s found a pair $(x, y)$ satisfying both $%s$ and $%s$. What is $%s$ for this pair?", g.name(), e1, e2, t.tex)
	}
	K := a2*b1 - a1*b2
	R := a2*c1 - a1*c2
	w := sprintf("Multiply the first equation by $%d$ and the second by $%d$, then subtract to eliminate $x$: $(%d \\cdot %s - %s \\cdot %s)y = %d \\cdot %s - %s \\cdot %s$, that is $%s = %d$, so $y = %d$. Substituting into the first equation gives $%s %s = %d$, so $%s = %d$ and $x = %d$. Therefore $%s = %d$.",
		a2, a1, a2, paren(b1), paren(a1), paren(b2), a2, paren(c1), paren(a1), paren(c2), lin(K, 0, "y"), R, y, lin(a1, 0, "x"), signed(b1*y), c1, lin(a1, 0, "x"), c1-b1*y, x, t.tex, t.v)
	return st, w, itoa(t.v)
}

func linearSystemStory(g *gen) (string, string, string) {
	var n1, n2, unit1, unit2 string
	var v1, v2, A, B int64
	var st string
	ask1 := g.chance(0.5)
	switch g.intn(3) {
	case 0:
		v1 = g.n64(9, 25)
		v2 = g.n64(3, v1-2)
		A, B = g.n64(20, 300), g.n64(20, 300)
		n1, n2 = "adult tickets", "child tickets"
		q := n1
		if !ask1 {
			q = n2
		}
		st = sprintf("A %s sold adult tickets for $%d$ dollars each and child tickets for $%d$ dollars each. On %s it sold $%d$ tickets in total and collected $%d$ dollars. How many %s were sold?",
			g.pick("theater", "museum", "zoo", "water park"), v1, v2, g.pick("Saturday", "Sunday", "a holiday", "opening day"), A+B, v1*A+v2*B, q)
		unit1, unit2 = "dollars", "tickets"
	case 1:
		v1, v2 = 2, 4
		A, B = g.n64(5, 80), g.n64(5, 80)
		animal := g.pick("cows", "goats", "sheep", "pigs")
		n1, n2 = "chickens", animal
		q := n1
		if !ask1 {
			q = n2
		}
		st = sprintf("On %s's farm there are only chickens and %s. Altogether the animals have $%d$ heads and $%d$ legs. How many %s are there on the farm?", g.name(), animal, A+B, v1*A+v2*B, q)
		unit1, unit2 = "legs", "heads"
	default:
		v1, v2 = 10, 25
		A, B = g.n64(3, 60), g.n64(3, 60)
		n1, n2 = "dimes", "quarters"
		q := n1
		if !ask1 {
			q = n2
		}
		st = sprintf("%s's %s contains only dimes and quarters: $%d$ coins worth $%d$ cents in total. How many %s are there?", g.name(), g.pick("piggy bank", "coin purse", "jar"), A+B, v1*A+v2*B, q)
		unit1, unit2 = "cents", "coins"
	}
	T, R := A+B, v1*A+v2*B
	w := sprintf("Let $a$ be the number of %s and $b$ the number of %s. Counting %s gives $a + b = %d$, and counting %s gives $%da + %db = %d$. Subtracting $%d$ times the first equation from the second gives $%db = %d - %d = %d$, so $b = %d$ and $a = %d - %d = %d$.",
		n1, n2, unit2, T, unit1, v1, v2, R, v1, v2-v1, R, v1*T, R-v1*T, B, T, B, A)
	if ask1 {
		return st, w, itoa(A)
	}
	return st, w, itoa(B)
}

var rootPairs = [][2]string{{"r", "s"}, {`\alpha`, `\beta`}, {"p", "q"}, {"x_1", "x_2"}, {"m", "n"}, {"u", "v"}}

func genVieta(g *gen) (string, string, string) {
	a := g.n64(1, 4)
	b := int64(g.nz(-15, 15))
	c := int64(g.nz(-15, 15))
	v := rootPairs[g.intn(len(rootPairs))]
	r, s := v[0], v[1]
	S, P := q(-b, a), q(c, a)
	var expr, formula string
	var val rat
	switch g.intn(6) {
	case 0:
		expr = sprintf("%s^2 + %s^2", r, s)
		formula = sprintf("(%s + %s)^2 - 2%s%s", r, s, r, s)
		val = S.mul(S).sub(qi(2).mul(P))
	case 1:
		expr = sprintf("\\frac{1}{%s} + \\frac{1}{%s}", r, s)
		formula = sprintf("\\frac{%s + %s}{%s%s}", r, s, r, s)
		val = S.div(P)
	case 2:
		expr = sprintf("%s^2 %s + %s %s^2", r, s, r, s)
		formula = sprintf("%s%s(%s + %s)", r, s, r, s)
		val = P.mul(S)
	case 3:
		expr = sprintf("(%s - %s)^2", r, s)
		formula = sprintf("(%s + %s)^2 - 4%s%s", r, s, r, s)
		val = S.mul(S).sub(qi(4).mul(P))
	case 4:
		expr = sprintf("(%s + 1)(%s + 1)", r, s)
		formula = sprintf("%s%s + (%s + %s) + 1", r, s, r, s)
		val = P.add(S).add(qi(1))
	default:
		expr = sprintf("\\frac{%s}{%s} + \\frac{%s}{%s}", r, s, s, r)
		formula = sprintf("\\frac{(%s + %s)^2 - 2%s%s}{%s%s}", r, s, r, s, r, s)
		val = S.mul(S).sub(qi(2).mul(P)).div(P)
	}
	eq := polyTeX([]int64{c, b, a}, "x") + " = 0"
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Let $%s$ and $%s$ be the roots of $%s$. Find $%s$.", r, s, eq, expr)
	case 1:
		st = sprintf("If $%s$ and $%s$ are the two solutions of the equation $%s$, compute $%s$ without solving the equation.", r, s, eq, expr)
	case 2:
		st = sprintf("The quadratic equation $%s$ has roots $%s$ and $%s$, possibly complex. What is the value of $%s$?", eq, r, s, expr)
	default:
		st = sprintf("%s says that the value of $%s$, where $%s$ and $%s$ are the roots of $%s$, can be found without computing the roots. Find this value.", g.name(), expr, r, s, eq)
	}
	if !val.isInt() && g.chance(0.5) {
		st += " Express your answer as a common fraction."
	}
	w := sprintf("By Vieta's formulas, the sum of the roots is minus the coefficient of $x$ divided by the leading coefficient and the product is the constant term divided by the leading coefficient: $%s + %s = %s$ and $%s%s = %s$. Now $%s = %s = %s$.",
		r, s, S.tex(), r, s, P.tex(), expr, formula, val.tex())
	return st, w, val.tex()
}

// factorLin renders (px - q), or x when q = 0 and p = 1.
func factorLin(p, qq int64) string {
	if qq == 0 {
		return polyTeX([]int64{0, p}, "x")
	}
	return "(" + lin(p, -qq, "x") + ")"
}

func genQuadRoots(g *gen) (string, string, string) {
	var p, qq, r, s int64
	for {
		p, r = g.n64(1, 4), g.n64(1, 4)
		qq, s = g.n64(-12, 12), g.n64(-12, 12)
		if gcd64(p, qq) == 1 && gcd64(r, s) == 1 && qq*r != s*p && (qq != 0 || s != 0) {
			break
		}
	}
	A, B, C := p*r, -(p*s + qq*r), qq*s
	eq := polyTeX([]int64{C, B, A}, "x") + " = 0"
	r1, r2 := q(qq, p), q(s, r)
	lo, hi := r1, r2
	if lo.sub(hi).n > 0 {
		lo, hi = hi, lo
	}
	var ask string
	var ans rat
	switch g.intn(3) {
	case 0:
		ask, ans = "larger", hi
	case 1:
		ask, ans = "smaller", lo
	default:
		ask, ans = "difference", hi.sub(lo)
	}
	var st string
	if ask == "difference" {
		switch g.intn(3) {
		case 0:
			st = sprintf("Find the positive difference between the two roots of $%s$.", eq)
		case 1:
			st = sprintf("The equation $%s$ has two real solutions. By how much does the larger exceed the smaller?", eq)
		default:
			st = sprintf("%s solved $%s$ and subtracted the smaller solution from the larger one. What result was obtained?", g.name(), eq)
		}
	} else {
		switch g.intn(3) {
		case 0:
			st = sprintf("Solve $%s$ and give the %s of its two roots.", eq, ask)
		case 1:
			st = sprintf("What is the %s of the two solutions of the equation $%s$?", ask, eq)
		default:
			st = sprintf("%s solved the quadratic equation $%s$ and wrote down only its %s solution. Which number was written down?", g.name(), eq, ask)
		}
	}
	f1, f2 := factorLin(p, qq), factorLin(r, s)
	if s == 0 {
		f1, f2 = f2, f1
	}
	w := sprintf("The quadratic factors as $%s = %s%s$, which can be checked by expanding. Setting each factor to zero gives the roots $x = %s$ and $x = %s$.",
		polyTeX([]int64{C, B, A}, "x"), f1, f2, r1.tex(), r2.tex())
	switch ask {
	case "larger":
		w += sprintf(" The larger root is $%s$.", hi.tex())
	case "smaller":
		w += sprintf(" The smaller root is $%s$.", lo.tex())
	default:
		w += sprintf(" Their positive difference is $%s - %s = %s$.", hi.tex(), parenQ(lo), ans.tex())
	}
	return st, w, ans.tex()
}

func genArithSeries(g *gen) (string, string, string) {
	switch g.intn(4) {
	case 0:
		a, d, n := g.n64(-20, 30), int64(g.nz(-6, 9)), g.n64(8, 60)
		S := n * (2*a + (n-1)*d) / 2
		var st string
		terms := sprintf("%d, %d, %d, \\ldots", a, a+d, a+2*d)
		switch g.intn(3) {
		case 0:
			st = sprintf("Find the sum of the first $%d$ terms of the arithmetic sequence $%s$.", n, terms)
		case 1:
			st = sprintf("The arithmetic progression $%s$ continues with a constant difference. What is the sum of its first $%d$ terms?", terms, n)
		default:
			nm := g.name()
			st = sprintf("%s adds up the first $%d$ terms of the sequence $%s$, in which consecutive terms differ by the same amount. What total does %s get?", nm, n, terms, nm)
		}
		last := a + (n-1)*d
		w := sprintf("The first term is $a = %d$ and the common difference is $d = %d$, so the $%d$th term is $%d + %d \\cdot %s = %d$. The sum is $\\frac{n(a_1 + a_n)}{2} = \\frac{%d(%d + %s)}{2} = %d$.",
			a, d, n, a, n-1, paren(d), last, n, a, paren(last), S)
		return st, w, itoa(S)
	case 1:
		a, d, n := g.n64(8, 30), g.n64(2, 6), g.n64(10, 40)
		S := n * (2*a + (n-1)*d) / 2
		var st string
		place := g.pick("theater", "stadium section", "concert hall", "lecture hall")
		switch g.intn(3) {
		case 0:
			st = sprintf("The first row of a %s has $%d$ seats, and each row after the first has $%d$ more seats than the row in front of it. If there are $%d$ rows, how many seats are there in total?", place, a, d, n)
		case 1:
			obj := g.pick("cans", "boxes", "logs", "oranges")
			st = sprintf("%s is stacking %s: the top layer has $%d$, and every layer below has $%d$ more than the layer above it. With $%d$ layers, how many %s are in the stack?", g.name(), obj, a, d, n, obj)
		default:
			st = sprintf("%s runs $%d$ minutes on the first day of training and increases the time by $%d$ minutes every day. How many minutes in total are run over the first $%d$ days?", g.name(), a, d, n)
		}
		last := a + (n-1)*d
		w := sprintf("The amounts form an arithmetic sequence with first term $%d$, common difference $%d$ and $%d$ terms. The last term is $%d + %d \\cdot %d = %d$, so the total is $\\frac{%d(%d + %d)}{2} = %d$.",
			a, d, n, a, n-1, d, last, n, a, last, S)
		return st, w, itoa(S)
	case 2:
		a, d := g.n64(-15, 25), int64(g.nz(-5, 7))
		m := g.n64(2, 6)
		k := m + g.n64(2, 9)
		n := g.n64(k+2, 40)
		am, ak := a+(m-1)*d, a+(k-1)*d
		S := n * (2*a + (n-1)*d) / 2
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("In an arithmetic sequence, the %s term is $%d$ and the %s term is $%d$. Find the sum of the first $%d$ terms.", ordinal(m), am, ordinal(k), ak, n)
		case 1:
			st = sprintf("An arithmetic sequence $(a_n)$ satisfies $a_{%d} = %d$ and $a_{%d} = %d$. Compute $a_1 + a_2 + \\cdots + a_{%d}$.", m, am, k, ak, n)
		default:
			st = sprintf("%s knows that the terms $a_{%d} = %d$ and $a_{%d} = %d$ belong to an arithmetic progression. What is the sum of its first $%d$ terms?", g.name(), m, am, k, ak, n)
		}
		w := sprintf("The common difference is $d = \\frac{%d - %s}{%d - %d} = %d$, and the first term is $a_1 = %d - %d \\cdot %s = %d$. Then $a_{%d} = %d + %d \\cdot %s = %d$, so the sum is $\\frac{%d(%d + %s)}{2} = %d$.",
			ak, paren(am), k, m, d, am, m-1, paren(d), a, n, a, n-1, paren(d), a+(n-1)*d, n, a, paren(a+(n-1)*d), S)
		return st, w, itoa(S)
	default:
		k := g.n64(3, 17)
		L := g.n64(1, 200)
		U := L + g.n64(60, 900)
		first, last := ceilDiv(L, k)*k, floorDiv(U, k)*k
		cnt := (last-first)/k + 1
		S := cnt * (first + last) / 2
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("What is the sum of all multiples of $%d$ between $%d$ and $%d$, inclusive?", k, L, U)
		case 1:
			st = sprintf("Find the sum of every integer $n$ with $%d \\le n \\le %d$ that is divisible by $%d$.", L, U, k)
		default:
			st = sprintf("%s lists all the numbers from $%d$ to $%d$ that are multiples of $%d$ and adds them up. What is the sum?", g.name(), L, U, k)
		}
		w := sprintf("The multiples of $%d$ in the range form an arithmetic sequence from $%d$ to $%d$ with difference $%d$. It has $\\frac{%d - %d}{%d} + 1 = %d$ terms, so the sum is $\\frac{%d(%d + %d)}{2} = %d$.",
			k, first, last, k, last, first, k, cnt, cnt, first, last, S)
		return st, w, itoa(S)
	}
}

func ordinal(n int64) string {
	words := []string{"zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
		"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth"}
	if n >= 0 && int(n) < len(words) {
		return words[n]
	}
	suf := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suf = "st"
	case n%10 == 2:
		suf = "nd"
	case n%10 == 3:
		suf = "rd"
	}
	return itoa(n) + suf
}

func genGeomSeq(g *gen) (string, string, string) {
	switch g.intn(4) {
	case 0, 1:
		a, r := g.n64(1, 9), g.n64(2, 5)
		n := g.n64(4, 10)
		for a*ipow(r, int(n)) > 2000000 {
			n--
		}
		S := a * (ipow(r, int(n)) - 1) / (r - 1)
		last := a * ipow(r, int(n-1))
		var st string
		switch g.intn(4) {
		case 0:
			st = g.spinf("[[Compute|Find]] the sum $%d + %d + %d + \\cdots + %d$, where each term is %s times the previous one [[as %s noticed|%.0s]].", a, a*r, a*r*r, last, numberWords[r], g.name())
		case 1:
			st = sprintf("Evaluate $\\sum_{k=0}^{%d} %s$.", n-1, geomTerm(a, r))
		case 2:
			obj := g.pick("coins", "buttons", "pebbles", "beads")
			st = sprintf("%s puts $%d$ %s into a jar in the first week and, every week after that, puts in %s times as many as the week before. How many %s are in the jar after $%d$ weeks?", g.name(), a, obj, numberWords[r], obj, n)
		default:
			st = g.spinf("A chain [[message|email|letter]] is started by $%d$ people [[at %s's school|in %s's town|including %s]]. Each week every person who received it in the previous week sends it to $%d$ new people, and the starters count as week one. How many people have received the message after $%d$ weeks, including the starters?", a, g.name(), r, n)
		}
		w := sprintf("This is a geometric series with first term $%d$, ratio $%d$ and $%d$ terms, so its sum is $\\frac{%d(%d^{%d} - 1)}{%d - 1} = \\frac{%d(%d - 1)}{%d} = %d$.",
			a, r, n, a, r, n, r, a, ipow(r, int(n)), r-1, S)
		return st, w, itoa(S)
	case 2:
		a := g.n64(1, 12)
		r := int64(g.nz(-4, 4))
		for r == 1 || r == -1 {
			r = int64(g.nz(-4, 4))
		}
		n := g.n64(5, 12)
		for abs64(a*ipow(r, int(n-1))) > 50000000 {
			n--
		}
		term := a * ipow(r, int(n-1))
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("The first two terms of a geometric sequence [[written by %s|on %s's board]] are $%d$ and $%d$. What is its %s term?", g.name(), a, a*r, ordinal(n))
		case 1:
			st = sprintf("A geometric sequence begins $%d, %d, %d, \\ldots$. Find the %s term of the sequence.", a, a*r, a*r*r, ordinal(n))
		default:
			st = sprintf("In a geometric progression $(b_k)$ we have $b_1 = %d$ and $b_2 = %d$. Compute $b_{%d}$.", a, a*r, n)
		}
		w := sprintf("The common ratio is $\\frac{%d}{%d} = %d$, so the $n$th term is $%d \\cdot (%d)^{n-1}$. For $n = %d$ this is $%d \\cdot (%d)^{%d} = %d$.",
			a*r, a, r, a, r, n, a, r, n-1, term)
		return st, w, itoa(term)
	default:
		a, r := g.n64(2, 40), g.n64(2, 4)
		h := g.n64(3, 12)
		for a*ipow(r, int(h)) > 100000000 {
			h--
		}
		v := a * ipow(r, int(h))
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A culture [[in %s's lab|grown by %s]] starts with $%d$ bacteria, and the population is multiplied by $%d$ every hour. How many bacteria are there after $%d$ hours?", g.name(), a, r, h)
		case 1:
			st = sprintf("%s plants $%d$ %s, and every year the number of plants becomes %s times what it was a year earlier. How many plants are there after $%d$ years?", g.name(), a, g.pick("ferns", "strawberry plants", "mint plants"), numberWords[r], h)
		default:
			st = g.spinf("A rumor [[about %s|started by %s]] is known to $%d$ people at noon. Every hour the number of people who know it is multiplied by $%d$. How many people know the rumor $%d$ hours after noon?", g.name(), a, r, h)
		}
		w := sprintf("The amount after $t$ steps is $%d \\cdot %d^t$, a geometric sequence. After $%d$ steps it is $%d \\cdot %d^{%d} = %d \\cdot %d = %d$.",
			a, r, h, a, r, h, a, ipow(r, int(h)), v)
		return st, w, itoa(v)
	}
}

// fracEq renders n/d, followed by its reduced form when that differs.
func fracEq(n, d int64) string {
	raw := sprintf("\\frac{%d}{%d}", n, d)
	if d == 1 {
		raw = itoa(n)
	}
	if r := q(n, d).tex(); r != raw {
		return raw + " = " + r
	}
	return raw
}

// rangeList renders the integers L..U, listing short ranges in full.
func rangeList(L, U int64) string {
	if U-L <= 3 {
		xs := []string{}
		for v := L; v <= U; v++ {
			xs = append(xs, itoa(v))
		}
		return "$" + strings.Join(xs, ", ") + "$"
	}
	return sprintf("$%d, %d, \\ldots, %d$", L, L+1, U)
}

func geomTerm(a, r int64) string {
	if a == 1 {
		return sprintf("%d^k", r)
	}
	return sprintf("%d \\cdot %d^k", a, r)
}

var funcPairs = [][2]string{{"f", "g"}, {"p", "q"}, {"u", "v"}, {"F", "G"}, {"h", "k"}}

func genComposition(g *gen) (string, string, string) {
	a, b := int64(g.nz(-6, 6)), g.n64(-9, 9)
	c, d, e := int64(g.nz(-3, 3)), g.n64(-9, 9), g.n64(-9, 9)
	x := g.n64(-5, 5)
	fp := funcPairs[g.intn(len(funcPairs))]
	f, h := fp[0], fp[1]
	F := func(t int64) int64 { return a*t + b }
	H := func(t int64) int64 { return c*t*t + d*t + e }
	fdef := sprintf("%s(x) = %s", f, lin(a, b, "x"))
	hdef := sprintf("%s(x) = %s", h, polyTeX([]int64{e, d, c}, "x"))
	var expr string
	var inner, outer int64
	var w string
	switch g.intn(3) {
	case 0:
		expr = sprintf("%s(%s(%d))", f, h, x)
		inner = H(x)
		outer = F(inner)
		w = sprintf("First $%s(%d) = %d \\cdot %s^2 %s \\cdot %s %s = %d$. Then $%s(%d) = %d \\cdot %s %s = %d$.",
			h, x, c, paren(x), signed(d), paren(x), signed(e), inner, f, inner, a, paren(inner), signed(b), outer)
	case 1:
		expr = sprintf("%s(%s(%d))", h, f, x)
		inner = F(x)
		outer = H(inner)
		w = sprintf("First $%s(%d) = %d \\cdot %s %s = %d$. Then $%s(%d) = %d \\cdot %s^2 %s \\cdot %s %s = %d$.",
			f, x, a, paren(x), signed(b), inner, h, inner, c, paren(inner), signed(d), paren(inner), signed(e), outer)
	default:
		expr = sprintf("%s(%s(%d))", f, f, x)
		inner = F(x)
		outer = F(inner)
		w = sprintf("First $%s(%d) = %d \\cdot %s %s = %d$. Then $%s(%d) = %d \\cdot %s %s = %d$.",
			f, x, a, paren(x), signed(b), inner, f, inner, a, paren(inner), signed(b), outer)
	}
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Let $%s$ and $%s$. Find $%s$.", fdef, hdef, expr)
	case 1:
		st = sprintf("Given the functions $%s$ and $%s$, compute the value of $%s$.", fdef, hdef, expr)
	case 2:
		st = sprintf("If $%s$ and $%s$ for all real $x$, what is $%s$?", hdef, fdef, expr)
	default:
		nm := g.name()
		st = sprintf("%s defines two functions, $%s$ and $%s$, and then evaluates $%s$. What number does %s obtain?", nm, fdef, hdef, expr, nm)
	}
	return st, w, itoa(outer)
}

func genInequality(g *gen) (string, string, string) {
	if g.chance(0.6) {
		var p, qq, r, L, U int64
		strict := g.chance(0.5)
		for {
			p, qq, r = g.n64(1, 5), g.n64(-30, 30), g.n64(1, 40)
			if strict {
				L, U = floorDiv(qq-r, p)+1, ceilDiv(qq+r, p)-1
			} else {
				L, U = ceilDiv(qq-r, p), floorDiv(qq+r, p)
			}
			if U >= L {
				break
			}
		}
		rel := `\le`
		if strict {
			rel = "<"
		}
		ineq := sprintf("|%s| %s %d", lin(p, -qq, "x"), rel, r)
		sum := g.chance(0.4)
		var st string
		if sum {
			switch g.intn(3) {
			case 0:
				st = sprintf("Find the sum of all integers $x$ that satisfy $%s$.", ineq)
			case 1:
				st = sprintf("What is the sum of the integer solutions of the inequality $%s$?", ineq)
			default:
				st = sprintf("%s lists every integer $x$ for which $%s$ and adds them. What is the total?", g.name(), ineq)
			}
		} else {
			switch g.intn(3) {
			case 0:
				st = sprintf("How many integers $x$ satisfy $%s$?", ineq)
			case 1:
				st = sprintf("Determine the number of integer solutions of the inequality $%s$.", ineq)
			default:
				st = sprintf("%s is counting the integers $x$ with $%s$. How many such integers are there?", g.name(), ineq)
			}
		}
		lo, hi := q(qq-r, p), q(qq+r, p)
		w := sprintf("The inequality is equivalent to $-%d %s %s %s %d$, that is $%d %s %s %s %d$, so $%s %s x %s %s$. The integers in this range are %s.",
			r, rel, lin(p, -qq, "x"), rel, r, qq-r, rel, polyTeX([]int64{0, p}, "x"), rel, qq+r, lo.tex(), rel, rel, hi.tex(), rangeList(L, U))
		if sum {
			S := (L + U) * (U - L + 1) / 2
			w += sprintf(" Their sum is $\\frac{(%d + %s)(%d)}{2} = %d$.", L, paren(U), U-L+1, S)
			return st, w, itoa(S)
		}
		w += sprintf(" There are $%s - %s + 1 = %d$ of them.", itoa(U), paren(L), U-L+1)
		return st, w, itoa(U - L + 1)
	}
	var b, c, lo, hi, L, U int64
	sl, sh := g.chance(0.5), g.chance(0.5)
	for {
		b, c = g.n64(2, 7), g.n64(-20, 20)
		lo, hi = g.n64(-50, 0), g.n64(1, 60)
		// lo (<|<=) b x + c (<|<=) hi
		if sl {
			L = floorDiv(lo-c, b) + 1
		} else {
			L = ceilDiv(lo-c, b)
		}
		if sh {
			U = ceilDiv(hi-c, b) - 1
		} else {
			U = floorDiv(hi-c, b)
		}
		if U >= L {
			break
		}
	}
	r1, r2 := `\le`, `\le`
	if sl {
		r1 = "<"
	}
	if sh {
		r2 = "<"
	}
	ineq := sprintf("%d %s %s %s %d", lo, r1, lin(b, c, "x"), r2, hi)
	var st string
	switch g.intn(3) {
	case 0:
		st = sprintf("How many integers $x$ satisfy $%s$?", ineq)
	case 1:
		st = sprintf("Find the number of integer values of $x$ for which $%s$ holds.", ineq)
	default:
		st = sprintf("%s wants to know how many whole numbers $x$, positive, negative or zero, make $%s$ true. What is the answer?", g.name(), ineq)
	}
	shift := sprintf("Subtract $%d$ from", c)
	if c < 0 {
		shift = sprintf("Add $%d$ to", -c)
	}
	w := sprintf("%s all parts: $%d %s %dx %s %d$. Divide by $%d$: $%s %s x %s %s$. The integers in this range run from $%d$ to $%d$, so there are $%d - %s + 1 = %d$ of them.",
		shift, lo-c, r1, b, r2, hi-c, b, q(lo-c, b).tex(), r1, r2, q(hi-c, b).tex(), L, U, U, paren(L), U-L+1)
	return st, w, itoa(U - L + 1)
}

func genExpEquation(g *gen) (string, string, string) {
	base := []int64{2, 3, 5}[g.intn(3)]
	var k1, k2, p, qq, r, s int64
	for {
		k1, k2 = g.n64(1, 4), g.n64(1, 4)
		p, r = g.n64(1, 5), g.n64(1, 5)
		qq, s = g.n64(-6, 6), g.n64(-6, 6)
		if k1 != k2 && k1*p-k2*r != 0 && ipow(base, int(max(k1, k2))) <= 625 {
			break
		}
	}
	B1, B2 := ipow(base, int(k1)), ipow(base, int(k2))
	e1, e2 := lin(p, qq, "x"), lin(r, s, "x")
	eq := sprintf("%d^{%s} = %d^{%s}", B1, e1, B2, e2)
	x := q(k2*s-k1*qq, k1*p-k2*r)
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Solve for $x$: $%s$.", eq)
	case 1:
		st = sprintf("Find the real number $x$ that satisfies the equation $%s$.", eq)
	case 2:
		st = sprintf("What value of $x$ makes $%s$ a true statement?", eq)
	default:
		st = sprintf("%s is asked to solve the exponential equation $%s$ for real $x$. What is the solution?", g.name(), eq)
	}
	if !x.isInt() && g.chance(0.5) {
		st += " Express your answer as a common fraction."
	}
	w := sprintf("Write both sides as powers of $%d$: $%d = %s$ and $%d = %s$. The equation becomes $%d^{%d(%s)} = %d^{%d(%s)}$. Equating exponents, $%s = %s$, so $%s = %d$ and $x = %s$.",
		base, B1, pow(itoa(base), int(k1)), B2, pow(itoa(base), int(k2)), base, k1, e1, base, k2, e2,
		lin(k1*p, k1*qq, "x"), lin(k2*r, k2*s, "x"), lin(k1*p-k2*r, 0, "x"), k2*s-k1*qq, x.tex())
	return st, w, x.tex()
}

func genWorkRate(g *gen) (string, string, string) {
	n1, n2 := g.names2()
	unit := g.pick("hours", "minutes")
	switch g.intn(3) {
	case 0:
		var a, b int64
		for a == b {
			a, b = g.n64(2, 15), g.n64(2, 15)
		}
		T := q(a*b, a+b)
		kind := g.pick("Printer", "Machine", "Copier")
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("%s can [[paint a fence|tile a floor|weed a garden]] alone in $%d$ %s, and %s can [[do the same job|finish the same task]] alone in $%d$ %s. Working together at these rates, how many %s will it take them?", n1, a, unit, n2, b, unit, unit)
		case 1:
			st = g.spinf("One pipe fills a [[tank|cistern|pool]] [[at %s's farm|behind %s's house]] in $%d$ %s and a second pipe fills it in $%d$ %s. If both pipes are opened at the same time on the empty [[tank|container]], how many %s does it take to fill it?", n1, a, unit, b, unit, unit)
		default:
			st = g.spinf("%s A [[in %s's office|at %s's shop]] finishes a large [[print|copying]] job in $%d$ %s, while %s B needs $%d$ %s for the same job. How long, in %s, do the two need when they share the job?", kind, n1, a, unit, strings.ToLower(kind), b, unit, unit)
		}
		w := sprintf("In one unit of time the first does $\\frac{1}{%d}$ of the job and the second $\\frac{1}{%d}$, so together they do $\\frac{1}{%d} + \\frac{1}{%d} = \\frac{%d}{%d}$ of it. The job therefore takes $%s$ %s.",
			a, b, a, b, a+b, a*b, fracEq(a*b, a+b), unit)
		return st, w, T.tex()
	case 1:
		var a, B int64
		for a == B {
			a, B = g.n64(2, 15), g.n64(2, 20)
		}
		T := q(a*B, a+B)
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Working together, %s and %s can %s in $%s$ %s. Alone, %s needs $%d$ %s. How many %s would %s need alone?", n1, n2, g.pick("mow a lawn", "clean a house", "assemble a bookshelf"), T.tex(), unit, n1, a, unit, unit, n2)
		case 1:
			st = g.spinf("Two hoses together fill %s's [[pool|pond|tank]] in $%s$ %s. The first hose alone fills it in $%d$ %s. How many %s does the second hose [[alone take|need on its own]]?", n1, T.tex(), unit, a, unit, unit)
		default:
			st = g.spinf("Two machines [[in %s's factory|at %s's workshop]] sharing a task complete it in $%s$ %s. If the first machine alone takes $%d$ %s, [[find|what is]] the time in %s the second machine alone would take.", n1, T.tex(), unit, a, unit, unit)
		}
		w := sprintf("Together the rate is $1 \\div %s = %s$ of the job per unit of time, and the first worker's rate is $\\frac{1}{%d}$. The second rate is $%s - \\frac{1}{%d} = %s$, so the second alone needs $%d$ %s.",
			T.tex(), q(a+B, a*B).tex(), a, q(a+B, a*B).tex(), a, q(1, B).tex(), B, unit)
		return st, w, itoa(B)
	default:
		a := g.n64(2, 12)
		b := a + g.n64(1, 12)
		T := q(a*b, b-a)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A faucet [[in %s's kitchen|in %s's bathroom]] fills a sink in $%d$ %s, and the open drain empties the full sink in $%d$ %s. If the faucet is turned on with the drain open, how many %s does it take to fill the empty sink?", n1, a, unit, b, unit, unit)
		case 1:
			st = g.spinf("An inlet pipe fills a tank [[at %s's farm|in %s's garden]] in $%d$ %s while an outlet pipe empties it in $%d$ %s. Both are opened at once on the empty tank. After how many %s is the tank [[full|filled]]?", n1, a, unit, b, unit, unit)
		default:
			st = g.spinf("%s fills a leaky [[bucket|barrel|tub]] with a hose that would fill it in $%d$ %s, but the leak alone would empty [[it when full|a full one]] in $%d$ %s. How many %s does it take to fill [[it|the container]]?", g.name(), a, unit, b, unit, unit)
		}
		w := sprintf("The net rate is $\\frac{1}{%d} - \\frac{1}{%d} = \\frac{%d}{%d}$ of the container per unit of time, so filling it takes $%s$ %s.",
			a, b, b-a, a*b, fracEq(a*b, b-a), unit)
		return st, w, T.tex()
	}
}

// termsEval renders the values of the terms c[i]·x^i, e.g. "-16 + 12 - 2 - 7".
func termsEval(c []int64, x int64) string {
	var b strings.Builder
	for e := len(c) - 1; e >= 0; e-- {
		if c[e] == 0 {
			continue
		}
		v := c[e] * ipow(x, e)
		if b.Len() == 0 {
			b.WriteString(itoa(v))
			continue
		}
		b.WriteString(" " + signed(v))
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

func genPolyRemainder(g *gen) (string, string, string) {
	deg := g.n(3, 5)
	c := make([]int64, deg+1)
	for k := range c {
		c[k] = g.n64(-9, 9)
	}
	c[deg] = int64(g.nz(-5, 5))
	a := int64(g.nz(-4, 4))
	div := lin(1, -a, "x")
	pname := g.pick("P", "p", "f", "Q")
	if g.chance(0.35) {
		c0 := c[0]
		c[0] = 0
		k := -evalPoly(c, a)
		c[0] = c0
		poly := polyTeX(append([]int64{0}, c[1:]...), "x") + " + k"
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("For what value of the constant $k$ is $%s$ a factor of $%s$?", div, poly)
		case 1:
			st = sprintf("The polynomial $%s(x) = %s$ is divisible by $%s$. Find $k$.", pname, poly, div)
		default:
			st = sprintf("%s chooses the constant $k$ so that $%s$ divides $%s$ exactly. What is $k$?", g.name(), div, poly)
		}
		cc := append([]int64{0}, c[1:]...)
		w := sprintf("By the factor theorem, $%s$ is a factor exactly when the polynomial vanishes at $x = %d$. Substituting gives $%s + k = %d + k$, so $k = %d$.",
			div, a, termsEval(cc, a), evalPoly(cc, a), k)
		return st, w, itoa(k)
	}
	poly := polyTeX(c, "x")
	rem := evalPoly(c, a)
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Find the remainder when $%s$ is divided by $%s$.", poly, div)
	case 1:
		st = sprintf("Let $%s(x) = %s$. What is the remainder upon dividing $%s(x)$ by $%s$?", pname, poly, pname, div)
	case 2:
		st = sprintf("When the polynomial $%s$ is divided by $%s$, what remainder is left?", poly, div)
	default:
		st = sprintf("%s performs long division of $%s$ by $%s$. What is the remainder?", g.name(), poly, div)
	}
	w := sprintf("By the remainder theorem, the remainder on division by $%s$ is the value of the polynomial at $x = %d$: $%s = %d$.",
		div, a, termsEval(c, a), rem)
	return st, w, itoa(rem)
}
