package synth

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// gen wraps a row's random stream with the small drawing helpers templates
// use. Everything a template draws goes through it, so a row's content is a
// function of its stream alone.
type gen struct{ r *rand.Rand }

// n returns a uniform integer in [lo, hi].
func (g *gen) n(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// nz returns a uniform non-zero integer in [lo, hi].
func (g *gen) nz(lo, hi int) int {
	for {
		if v := g.n(lo, hi); v != 0 {
			return v
		}
	}
}

// n64 is n for int64 arithmetic.
func (g *gen) n64(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) intn(n int) int { return g.r.IntN(n) }

// name returns a random first name; names multiply the number of distinct
// statements so that instances with equal numbers still differ in wording.
func (g *gen) name() string { return names[g.r.IntN(len(names))] }

// names2 returns two distinct names.
func (g *gen) names2() (string, string) {
	a := g.r.IntN(len(names))
	b := g.r.IntN(len(names) - 1)
	if b >= a {
		b++
	}
	return names[a], names[b]
}

// distinct returns k distinct values drawn from pool, in draw order.
func (g *gen) distinct(pool []int64, k int) []int64 {
	idx := g.r.Perm(len(pool))[:k]
	out := make([]int64, k)
	for t, j := range idx {
		out[t] = pool[j]
	}
	return out
}

var names = []string{
	"Alice", "Ben", "Chloe", "David", "Elena", "Farid", "Grace", "Hiro",
	"Isabel", "Jamal", "Kira", "Liam", "Maya", "Noah", "Olivia", "Pedro",
	"Quinn", "Rosa", "Samir", "Tara", "Umar", "Vera", "Wen", "Xavier",
	"Yara", "Zoe", "Anika", "Bruno", "Carmen", "Dmitri", "Esther", "Felix",
	"Gita", "Hassan", "Ingrid", "Jonas", "Keiko", "Lucas", "Mei", "Nadia",
	"Oscar", "Priya", "Rafael", "Sofia", "Tomas", "Ursula", "Victor", "Wanda",
	"Yusuf", "Zara", "Aaron", "Beatriz", "Chen", "Daria", "Emil", "Fatima",
	"Gabriel", "Hana", "Ivan", "Julia",
}

// preambles are optional opening sentences like those that precede real
// forum and contest problems. They contain no digits, so tests can parse the
// numbers of a statement back.
var preambles = []string{
	"Consider the following problem.",
	"Here is a short exercise.",
	"This question appeared on a practice test for a regional contest.",
	"Try to solve this without a calculator.",
	"A student posted the following question on a forum.",
	"The following is a warm-up problem from a training camp.",
	"Answer the question below.",
	"This one comes from an old olympiad preparation booklet.",
	"Read the problem carefully before answering.",
	"Here is a classic exercise.",
	"The next question was given as homework in a high school class.",
	"Solve the following.",
	"This is a typical contest problem.",
	"A teacher wrote this problem on the board.",
	"Work through the following question step by step.",
	"This puzzle was shared at a math club meeting.",
	"The problem below is from a qualifying round.",
	"Here is a question from a mock exam.",
	"I came across this problem while studying for a competition.",
	"A quick one for the weekend.",
	"Can someone help me with this?",
	"My textbook has this exercise and I am stuck.",
}

// conclusions end every solution; each has one %s for the boxed answer.
var conclusions = []string{
	"Therefore, the answer is %s",
	"Hence the answer is %s",
	"So the answer is %s",
	"The final answer is %s",
	"Thus we obtain %s",
	"Answer: %s",
}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six",
	"seven", "eight", "nine", "ten", "eleven", "twelve"}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func gcd64(a, b int64) int64 {
	a, b = abs64(a), abs64(b)
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm64(a, b int64) int64 { return a / gcd64(a, b) * b }

// mod returns a mod m in [0, m).
func mod(a, m int64) int64 {
	a %= m
	if a < 0 {
		a += m
	}
	return a
}

func powmod(a, e, m int64) int64 {
	a = mod(a, m)
	r := int64(1) % m
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r * a % m
		}
		a = a * a % m
	}
	return r
}

func ipow(a int64, e int) int64 {
	r := int64(1)
	for ; e > 0; e-- {
		r *= a
	}
	return r
}

// isqrtFast returns ⌊√n⌋ by Newton iteration.
func isqrtFast(n int64) int64 {
	if n < 2 {
		return n
	}
	x := n
	y := (x + 1) / 2
	for y < x {
		x = y
		y = (x + n/x) / 2
	}
	return x
}

var factorials = func() []int64 {
	f := make([]int64, 21)
	f[0] = 1
	for k := 1; k <= 20; k++ {
		f[k] = f[k-1] * int64(k)
	}
	return f
}()

// binom returns C(n, k) for the small arguments templates use.
func binom(n, k int64) int64 {
	if k < 0 || k > n {
		return 0
	}
	if k > n-k {
		k = n - k
	}
	r := int64(1)
	for i := int64(1); i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// factor returns the prime factorization of n > 1.
func factor(n int64) (ps []int64, es []int) {
	for p := int64(2); p*p <= n; p++ {
		if n%p != 0 {
			continue
		}
		e := 0
		for n%p == 0 {
			n /= p
			e++
		}
		ps = append(ps, p)
		es = append(es, e)
	}
	if n > 1 {
		ps = append(ps, n)
		es = append(es, 1)
	}
	return ps, es
}

// factorTeX renders 2^{3} \cdot 3 \cdot 5^{2}.
func factorTeX(ps []int64, es []int) string {
	var b strings.Builder
	for k, p := range ps {
		if k > 0 {
			b.WriteString(` \cdot `)
		}
		b.WriteString(itoa(p))
		if es[k] > 1 {
			b.WriteString("^{" + strconv.Itoa(es[k]) + "}")
		}
	}
	return b.String()
}

// factored draws a number with k in [kmin, kmax] distinct prime factors from
// pool, within [lo, hi], returning its factorization.
func (g *gen) factored(pool []int64, kmin, kmax int, lo, hi int64) ([]int64, []int, int64) {
	for {
		k := g.n(kmin, kmax)
		ps := g.distinct(pool, k)
		sortInt64(ps)
		es := make([]int, k)
		n := int64(1)
		for t, p := range ps {
			maxe := 2
			switch {
			case p <= 3:
				maxe = 6
			case p <= 7:
				maxe = 3
			}
			es[t] = g.n(1, maxe)
			n *= ipow(p, es[t])
		}
		if n >= lo && n <= hi {
			return ps, es, n
		}
	}
}

func sortInt64(a []int64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// rat is an exact rational with a positive denominator, in lowest terms.
type rat struct{ n, d int64 }

func q(n, d int64) rat {
	if d == 0 {
		panic("synth: zero denominator")
	}
	if d < 0 {
		n, d = -n, -d
	}
	g := gcd64(n, d)
	if g > 1 {
		n, d = n/g, d/g
	}
	return rat{n, d}
}

func qi(n int64) rat { return rat{n, 1} }

func (a rat) add(b rat) rat { return q(a.n*b.d+b.n*a.d, a.d*b.d) }
func (a rat) sub(b rat) rat { return q(a.n*b.d-b.n*a.d, a.d*b.d) }
func (a rat) mul(b rat) rat { return q(a.n*b.n, a.d*b.d) }
func (a rat) div(b rat) rat { return q(a.n*b.d, a.d*b.n) }
func (a rat) isInt() bool   { return a.d == 1 }

// tex renders 3, -\frac{3}{4}.
func (a rat) tex() string {
	if a.d == 1 {
		return itoa(a.n)
	}
	if a.n < 0 {
		return `-\frac{` + itoa(-a.n) + "}{" + itoa(a.d) + "}"
	}
	return `\frac{` + itoa(a.n) + "}{" + itoa(a.d) + "}"
}

// piTeX renders a·π: \pi, 3\pi, \frac{5\pi}{2}, -\frac{\pi}{3}.
func (a rat) piTeX() string {
	sign := ""
	n := a.n
	if n < 0 {
		sign, n = "-", -n
	}
	num := `\pi`
	if n == 0 {
		return "0"
	}
	if n != 1 {
		num = itoa(n) + `\pi`
	}
	if a.d == 1 {
		return sign + num
	}
	return sign + `\frac{` + num + "}{" + itoa(a.d) + "}"
}

// overPiTeX renders a/π: \frac{3}{\pi}, \frac{5}{16\pi}.
func (a rat) overPiTeX() string {
	sign := ""
	n := a.n
	if n < 0 {
		sign, n = "-", -n
	}
	den := `\pi`
	if a.d != 1 {
		den = itoa(a.d) + `\pi`
	}
	return sign + `\frac{` + itoa(n) + "}{" + den + "}"
}

// paren wraps negative numbers in parentheses for substitution displays.
func paren(v int64) string {
	if v < 0 {
		return "(" + itoa(v) + ")"
	}
	return itoa(v)
}

func parenQ(v rat) string {
	if v.n < 0 {
		return `\left(` + v.tex() + `\right)`
	}
	return v.tex()
}

// pow renders v^e with braces only when needed.
func pow(v string, e int) string {
	switch {
	case e == 1:
		return v
	case e < 10:
		return v + "^" + strconv.Itoa(e)
	}
	return v + "^{" + strconv.Itoa(e) + "}"
}

// polyTeX renders Σ c[i]·v^i, highest degree first, e.g. 2x^3 - x + 5.
func polyTeX(c []int64, v string) string {
	var b strings.Builder
	for e := len(c) - 1; e >= 0; e-- {
		a := c[e]
		if a == 0 {
			continue
		}
		if b.Len() == 0 {
			if a < 0 {
				b.WriteString("-")
			}
		} else if a < 0 {
			b.WriteString(" - ")
		} else {
			b.WriteString(" + ")
		}
		m := abs64(a)
		if e == 0 || m != 1 {
			b.WriteString(itoa(m))
		}
		if e > 0 {
			b.WriteString(pow(v, e))
		}
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// ratPolyTeX renders Σ c[i]·v^i with rational coefficients.
func ratPolyTeX(c []rat, v string) string {
	var b strings.Builder
	for e := len(c) - 1; e >= 0; e-- {
		a := c[e]
		if a.n == 0 {
			continue
		}
		if b.Len() == 0 {
			if a.n < 0 {
				b.WriteString("-")
			}
		} else if a.n < 0 {
			b.WriteString(" - ")
		} else {
			b.WriteString(" + ")
		}
		m := rat{abs64(a.n), a.d}
		if e == 0 || m.n != 1 || m.d != 1 {
			b.WriteString(m.tex())
		}
		if e > 0 {
			b.WriteString(pow(v, e))
		}
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// evalPoly evaluates Σ c[i]·x^i.
func evalPoly(c []int64, x int64) int64 {
	r := int64(0)
	for e := len(c) - 1; e >= 0; e-- {
		r = r*x + c[e]
	}
	return r
}

// deriv returns the coefficients of the derivative.
func deriv(c []int64) []int64 {
	if len(c) <= 1 {
		return []int64{0}
	}
	d := make([]int64, len(c)-1)
	for e := 1; e < len(c); e++ {
		d[e-1] = int64(e) * c[e]
	}
	return d
}

// lin renders a·v + b (b may be zero).
func lin(a, b int64, v string) string { return polyTeX([]int64{b, a}, v) }

// signed renders "+ 3" or "- 3" for use after another term.
func signed(v int64) string {
	if v < 0 {
		return "- " + itoa(-v)
	}
	return "+ " + itoa(v)
}

// sqrtTeX renders √n in simplest radical form and returns (k, m) with
// √n = k√m.
func sqrtTeX(n int64) (string, int64, int64) {
	k, m := int64(1), n
	for f := int64(2); f*f <= m; f++ {
		for m%(f*f) == 0 {
			m /= f * f
			k *= f
		}
	}
	switch {
	case m == 1:
		return itoa(k), k, 1
	case k == 1:
		return `\sqrt{` + itoa(m) + "}", 1, m
	}
	return itoa(k) + `\sqrt{` + itoa(m) + "}", k, m
}

// joinAnd renders "a, b and c".
func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
