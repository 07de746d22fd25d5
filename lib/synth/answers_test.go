package synth

import (
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The checks below recompute answers from the statement text alone, with
// methods deliberately different from the generators' (brute force,
// big-number arithmetic, dynamic programming), so a wrong formula or a
// statement that does not say what the solution assumes is caught.

var (
	mathSegRe  = regexp.MustCompile(`\$([^$]*)\$`)
	intRe      = regexp.MustCompile(`-?\d+`)
	powRe      = regexp.MustCompile(`(\d+)\^\{(\d+)\}`)
	modByRe    = regexp.MustCompile(`(?:divided by|division by|modulo) \$(\d+)\$|\\bmod (\d+)`)
	congRe     = regexp.MustCompile(`(\d+)x \\equiv (\d+) \\pmod\{(\d+)\}`)
	factRe     = regexp.MustCompile(`\$(\d+)!\$`)
	primePowRe = regexp.MustCompile(`\$(\d+)\^k\$`)
	crtAbsRe   = regexp.MustCompile(`x \\equiv (\d+) \\pmod\{(\d+)\}`)
	crtBoxRe   = regexp.MustCompile(`of \$(\d+)\$, (?:the remainder is|the number left over is) \$(\d+)\$`)
	crtRemRe   = regexp.MustCompile(`remainder \$(\d+)\$ when divided by \$(\d+)\$`)
	overRe     = regexp.MustCompile(`\\overline\{(\d*)A(\d*)\}`)
	divByRe    = regexp.MustCompile(`(?:divisible by|multiple of) \$(\d+)\$`)
	wordRe     = regexp.MustCompile(`\b[A-Z]{4,}\b`)
	fixLetRe   = regexp.MustCompile(`(begin|end) with (?:the letter )?([A-Z])\b|is the (first|last) letter ([A-Z])\b`)
	pointRe    = regexp.MustCompile(`\((-?\d+), ?(-?\d+)\)`)
	quadRe     = regexp.MustCompile(`\$([^$]*x\^2[^$]*) = 0\$`)
	derivDefRe = regexp.MustCompile(`\$([fghp])\(x\) = ([^$]+)\$`)
	derivAtRe  = regexp.MustCompile(`\$([fghp])('+)\((-?\d+)\)\$`)
	posDefRe   = regexp.MustCompile(`\$s\(t\) = ([^$]+)\$`)
	timeRe     = regexp.MustCompile(`\$t = (\d+)\$`)
	intgRe     = regexp.MustCompile(`\\int_\{(-?\d+)\}\^\{(-?\d+)\} \(([^)]*)\)\\,dx`)
	areaIntRe  = regexp.MustCompile(`\$y = ([^$]+)\$ and the \$x\$-axis from \$x = (-?\d+)\$ to \$x = (-?\d+)\$`)
	exactlyRe  = regexp.MustCompile(`(?:exactly|precisely) \$(\d+)\$`)
	termRe     = regexp.MustCompile(`^(\d*)([a-z])?(?:\^(\d+))?$`)
)

// mathInts returns the integers inside $...$ in order.
func mathInts(s string) []int64 {
	var out []int64
	for _, m := range mathSegRe.FindAllStringSubmatch(s, -1) {
		for _, d := range intRe.FindAllString(m[1], -1) {
			v, _ := strconv.ParseInt(d, 10, 64)
			out = append(out, v)
		}
	}
	return out
}

func maxInt(xs []int64) int64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func atoi64(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }

// parseRatAns parses an integer or \frac answer.
func parseRatAns(s string) (*big.Rat, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var r *big.Rat
	if m := regexp.MustCompile(`^\\frac\{(\d+)\}\{(\d+)\}$`).FindStringSubmatch(s); m != nil {
		r = new(big.Rat).SetFrac(big.NewInt(atoi64(m[1])), big.NewInt(atoi64(m[2])))
	} else if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		r = new(big.Rat).SetInt64(v)
	} else {
		return nil, false
	}
	if neg {
		r.Neg(r)
	}
	return r, true
}

// parsePoly parses the polynomials the generators print ("-2x^3 + x - 7",
// in any single-letter variable) into coefficients by degree.
func parsePoly(s string) ([]int64, bool) {
	s = strings.ReplaceAll(s, " - ", " + -")
	c := make([]int64, 8)
	for _, t := range strings.Split(s, " + ") {
		t = strings.TrimSpace(t)
		neg := strings.HasPrefix(t, "-")
		t = strings.TrimPrefix(t, "-")
		m := termRe.FindStringSubmatch(t)
		if m == nil || t == "" {
			return nil, false
		}
		coef, deg := int64(1), 0
		if m[1] != "" {
			coef = atoi64(m[1])
		}
		if m[2] != "" {
			deg = 1
			if m[3] != "" {
				deg = int(atoi64(m[3]))
			}
		} else if m[1] == "" {
			return nil, false
		}
		if neg {
			coef = -coef
		}
		c[deg] += coef
	}
	return c, true
}

func polyAtRat(c []int64, x *big.Rat) *big.Rat {
	r := new(big.Rat)
	for e := len(c) - 1; e >= 0; e-- {
		r.Mul(r, x)
		r.Add(r, new(big.Rat).SetInt64(c[e]))
	}
	return r
}

func gcdRef(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// countArrangements counts distinct orderings of a multiset by recursion
// over the letter counts (not by the multinomial formula).
func countArrangements(counts map[byte]int, memo map[string]int64) int64 {
	key := fmt.Sprint(counts)
	if v, ok := memo[key]; ok {
		return v
	}
	total, left := int64(0), 0
	for l, c := range counts {
		if c == 0 {
			continue
		}
		left += c
		counts[l]--
		total += countArrangements(counts, memo)
		counts[l]++
	}
	if left == 0 {
		total = 1
	}
	memo[key] = total
	return total
}

var fixedPointHist = map[int][]int64{}

// fixedPoints returns how many permutations of n elements have exactly k
// fixed points, by enumerating all permutations.
func fixedPoints(n, k int) int64 {
	if h, ok := fixedPointHist[n]; ok {
		return h[k]
	}
	h := make([]int64, n+1)
	p := make([]int, n)
	used := make([]bool, n)
	var rec func(i, fixed int)
	rec = func(i, fixed int) {
		if i == n {
			h[fixed]++
			return
		}
		for v := 0; v < n; v++ {
			if !used[v] {
				used[v] = true
				p[i] = v
				f := fixed
				if v == i {
					f++
				}
				rec(i+1, f)
				used[v] = false
			}
		}
	}
	rec(0, 0)
	fixedPointHist[n] = h
	return h[k]
}

// gridPaths counts monotone lattice paths by dynamic programming, avoiding
// the point `block` when given.
func gridPaths(a, b int64, block *[2]int64) int64 {
	dp := make([][]int64, a+1)
	for i := range dp {
		dp[i] = make([]int64, b+1)
	}
	for i := int64(0); i <= a; i++ {
		for j := int64(0); j <= b; j++ {
			switch {
			case block != nil && i == block[0] && j == block[1]:
				dp[i][j] = 0
			case i == 0 && j == 0:
				dp[i][j] = 1
			default:
				if i > 0 {
					dp[i][j] += dp[i-1][j]
				}
				if j > 0 {
					dp[i][j] += dp[i][j-1]
				}
			}
		}
	}
	return dp[a][b]
}

// checker recomputes the answer of one problem; it returns "" to skip a
// phrasing it does not parse.
type checker func(st string) (want string, err error)

var checkers = map[string]checker{
	"divisor-count": func(st string) (string, error) {
		n := maxInt(mathInts(st))
		c := int64(0)
		for d := int64(1); d*d <= n; d++ {
			if n%d == 0 {
				c += 2
				if d*d == n {
					c--
				}
			}
		}
		return itoa(c), nil
	},
	"euler-totient": func(st string) (string, error) {
		n := maxInt(mathInts(st))
		c := int64(0)
		for k := int64(1); k <= n; k++ {
			if gcdRef(k, n) == 1 {
				c++
			}
		}
		return itoa(c), nil
	},
	"last-digit-power": func(st string) (string, error) {
		m := powRe.FindStringSubmatch(st)
		v := new(big.Int).Exp(big.NewInt(atoi64(m[1])), big.NewInt(atoi64(m[2])), big.NewInt(10))
		return v.String(), nil
	},
	"power-remainder": func(st string) (string, error) {
		m := powRe.FindStringSubmatch(st)
		mm := modByRe.FindStringSubmatch(st)
		if m == nil || mm == nil {
			return "", fmt.Errorf("unparsed")
		}
		mod := atoi64(mm[1] + mm[2])
		v := new(big.Int).Exp(big.NewInt(atoi64(m[1])), big.NewInt(atoi64(m[2])), big.NewInt(mod))
		return v.String(), nil
	},
	"linear-congruence": func(st string) (string, error) {
		m := congRe.FindStringSubmatch(st)
		a, b, md := atoi64(m[1]), atoi64(m[2]), atoi64(m[3])
		for x := int64(1); x <= md; x++ {
			if (a*x-b)%md == 0 {
				return itoa(x), nil
			}
		}
		return "", fmt.Errorf("no solution")
	},
	"factorial-prime-power": func(st string) (string, error) {
		n := atoi64(factRe.FindStringSubmatch(st)[1])
		if strings.Contains(strings.ToLower(st), "zero") {
			f := big.NewInt(1)
			for k := int64(2); k <= n; k++ {
				f.Mul(f, big.NewInt(k))
			}
			d := f.String()
			return itoa(int64(len(d) - len(strings.TrimRight(d, "0")))), nil
		}
		var p int64
		if m := primePowRe.FindStringSubmatch(st); m != nil {
			p = atoi64(m[1])
		} else { // "the exponent of the prime $p$"
			p = atoi64(regexp.MustCompile(`prime \$(\d+)\$`).FindStringSubmatch(st)[1])
		}
		e := int64(0)
		for k := int64(2); k <= n; k++ {
			for v := k; v%p == 0; v /= p {
				e++
			}
		}
		return itoa(e), nil
	},
	"chinese-remainder": func(st string) (string, error) {
		var rs, ms []int64
		for _, m := range crtAbsRe.FindAllStringSubmatch(st, -1) {
			rs, ms = append(rs, atoi64(m[1])), append(ms, atoi64(m[2]))
		}
		for _, m := range crtBoxRe.FindAllStringSubmatch(st, -1) {
			ms, rs = append(ms, atoi64(m[1])), append(rs, atoi64(m[2]))
		}
		for _, m := range crtRemRe.FindAllStringSubmatch(st, -1) {
			rs, ms = append(rs, atoi64(m[1])), append(ms, atoi64(m[2]))
		}
		if len(ms) < 2 {
			return "", fmt.Errorf("unparsed")
		}
	next:
		for x := int64(1); x < 1<<20; x++ {
			for k := range ms {
				if x%ms[k] != rs[k] {
					continue next
				}
			}
			return itoa(x), nil
		}
		return "", fmt.Errorf("no solution")
	},
	"digit-divisibility": func(st string) (string, error) {
		o := overRe.FindStringSubmatch(st)
		d := atoi64(divByRe.FindStringSubmatch(st)[1])
		var ok []int64
		for a := int64(0); a <= 9; a++ {
			if atoi64(o[1]+itoa(a)+o[2])%d == 0 {
				ok = append(ok, a)
			}
		}
		low := strings.ToLower(st)
		if strings.Contains(low, "sum of all") || strings.Contains(low, "total of all") || strings.Contains(low, "sum of all digits") {
			s := int64(0)
			for _, a := range ok {
				s += a
			}
			return itoa(s), nil
		}
		if len(ok) != 1 {
			return "", fmt.Errorf("digit not unique: %v", ok)
		}
		return itoa(ok[0]), nil
	},
	"rectangular-arrays": func(st string) (string, error) {
		n := maxInt(mathInts(st))
		tau := int64(0)
		for d := int64(1); d <= n; d++ {
			if n%d == 0 {
				tau++
			}
		}
		low := strings.ToLower(st)
		switch {
		case strings.Contains(low, "ordered pairs"):
			return itoa(tau), nil
		case strings.Contains(low, "congruent"):
			return itoa((tau + 1) / 2), nil
		}
		return itoa(tau - 2), nil
	},
	"word-arrangements": func(st string) (string, error) {
		w := wordRe.FindString(st)
		counts := map[byte]int{}
		for k := 0; k < len(w); k++ {
			counts[w[k]]++
		}
		if m := fixLetRe.FindStringSubmatch(st); m != nil {
			l := m[2] + m[4]
			counts[l[0]]--
		}
		return itoa(countArrangements(counts, map[string]int64{})), nil
	},
	"heron-area": func(st string) (string, error) {
		v := mathInts(st)
		a, b, c := float64(v[0]), float64(v[1]), float64(v[2])
		s := (a + b + c) / 2
		area := math.Sqrt(s * (s - a) * (s - b) * (s - c))
		return itoa(int64(math.Round(area))), nil
	},
	"shoelace-area": func(st string) (string, error) {
		p := pointRe.FindAllStringSubmatch(st, -1)
		var x, y [3]int64
		for k := 0; k < 3; k++ {
			x[k], y[k] = atoi64(p[k][1]), atoi64(p[k][2])
		}
		cross := (x[1]-x[0])*(y[2]-y[0]) - (x[2]-x[0])*(y[1]-y[0])
		if cross < 0 {
			cross = -cross
		}
		return q(cross, 2).tex(), nil
	},
	"lattice-points-segment": func(st string) (string, error) {
		p := pointRe.FindAllStringSubmatch(st, -1)
		x1, y1, x2, y2 := atoi64(p[0][1]), atoi64(p[0][2]), atoi64(p[1][1]), atoi64(p[1][2])
		cnt := int64(0)
		lo, hi := min(x1, x2), max(x1, x2)
		for x := lo; x <= hi; x++ {
			num := (x - x1) * (y2 - y1)
			if num%(x2-x1) == 0 {
				cnt++
			}
		}
		low := strings.ToLower(st)
		if strings.Contains(low, "strictly") || strings.Contains(low, "excluding") || strings.Contains(low, "not counting") {
			cnt -= 2
		}
		return itoa(cnt), nil
	},
	"derangements": func(st string) (string, error) {
		n := maxInt(mathInts(st))
		k := int64(0)
		if m := exactlyRe.FindStringSubmatch(st); m != nil {
			k = atoi64(m[1])
		}
		return itoa(fixedPoints(int(n), int(k))), nil
	},
	"grid-paths": func(st string) (string, error) {
		p := pointRe.FindAllStringSubmatch(st, -1)
		if len(p) == 0 { // "a blocks east and b blocks north"
			v := mathInts(st)
			return itoa(gridPaths(v[0], v[1], nil)), nil
		}
		a, b := atoi64(p[1][1]), atoi64(p[1][2])
		total := gridPaths(a, b, nil)
		if len(p) < 3 {
			return itoa(total), nil
		}
		blk := [2]int64{atoi64(p[2][1]), atoi64(p[2][2])}
		avoid := gridPaths(a, b, &blk)
		low := strings.ToLower(st)
		if strings.Contains(low, "avoid") {
			return itoa(avoid), nil
		}
		return itoa(total - avoid), nil
	},
}

// Checkers comparing numerically rather than by string.
var ratCheckers = map[string]func(st string, ans *big.Rat) error{
	"coordinate-distance": nil, // handled separately (radicals)
	"quadratic-roots": func(st string, ans *big.Rat) error {
		c, ok := parsePoly(quadRe.FindStringSubmatch(st)[1])
		if !ok {
			return fmt.Errorf("poly")
		}
		a, b, cc := new(big.Rat).SetInt64(c[2]), new(big.Rat).SetInt64(c[1]), new(big.Rat).SetInt64(c[0])
		disc := new(big.Rat).Sub(new(big.Rat).Mul(b, b), new(big.Rat).Mul(new(big.Rat).SetInt64(4), new(big.Rat).Mul(a, cc)))
		if strings.Contains(st, "difference") || strings.Contains(st, "exceed") || strings.Contains(st, "subtracted") {
			want := new(big.Rat).Quo(disc, new(big.Rat).Mul(a, a))
			if new(big.Rat).Mul(ans, ans).Cmp(want) != 0 || ans.Sign() <= 0 {
				return fmt.Errorf("difference^2 %v != %v", new(big.Rat).Mul(ans, ans), want)
			}
			return nil
		}
		if polyAtRat(c, ans).Sign() != 0 {
			return fmt.Errorf("%v is not a root", ans)
		}
		other := new(big.Rat).Sub(new(big.Rat).Neg(new(big.Rat).Quo(b, a)), ans)
		larger := strings.Contains(st, "larger")
		if (larger && ans.Cmp(other) <= 0) || (!larger && ans.Cmp(other) >= 0) {
			return fmt.Errorf("wrong root chosen: %v vs %v", ans, other)
		}
		return nil
	},
	"derivative-at-point": func(st string, ans *big.Rat) error {
		var c []int64
		var at int64
		order := 1
		if m := derivDefRe.FindStringSubmatch(st); m != nil {
			var ok bool
			if c, ok = parsePoly(m[2]); !ok {
				return fmt.Errorf("poly %q", m[2])
			}
			d := derivAtRe.FindStringSubmatch(st)
			switch {
			case d != nil:
				order, at = len(d[2]), atoi64(d[3])
			case strings.Contains(st, "second derivative"):
				xs := regexp.MustCompile(`\$x = (-?\d+)\$`).FindAllStringSubmatch(st, -1)
				order, at = 2, atoi64(xs[len(xs)-1][1])
			default:
				return fmt.Errorf("point")
			}
		} else {
			m := posDefRe.FindStringSubmatch(st)
			var ok bool
			if c, ok = parsePoly(m[1]); !ok {
				return fmt.Errorf("poly %q", m[1])
			}
			ts := timeRe.FindAllStringSubmatch(st, -1)
			at = atoi64(ts[len(ts)-1][1])
		}
		for k := 0; k < order; k++ {
			d := make([]int64, len(c))
			for e := 1; e < len(c); e++ {
				d[e-1] = int64(e) * c[e]
			}
			c = d
		}
		if want := polyAtRat(c, new(big.Rat).SetInt64(at)); want.Cmp(ans) != 0 {
			return fmt.Errorf("want %v", want)
		}
		return nil
	},
	"definite-integral": func(st string, ans *big.Rat) error {
		var a, b int64
		var poly string
		if m := intgRe.FindStringSubmatch(st); m != nil {
			a, b, poly = atoi64(m[1]), atoi64(m[2]), m[3]
		} else if m := areaIntRe.FindStringSubmatch(st); m != nil {
			poly, a, b = m[1], atoi64(m[2]), atoi64(m[3])
		} else {
			return fmt.Errorf("unparsed")
		}
		c, ok := parsePoly(poly)
		if !ok {
			return fmt.Errorf("poly %q", poly)
		}
		want := new(big.Rat)
		for e, ce := range c {
			// ∫ x^e = x^{e+1}/(e+1)
			hi := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(b), big.NewInt(int64(e+1)), nil))
			lo := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(a), big.NewInt(int64(e+1)), nil))
			term := new(big.Rat).Sub(hi, lo)
			term.Mul(term, big.NewRat(ce, int64(e+1)))
			want.Add(want, term)
		}
		if want.Cmp(ans) != 0 {
			return fmt.Errorf("want %v", want)
		}
		return nil
	},
}

var (
	sidesRe   = regexp.MustCompile(`(?:faces \$1\$ through \$(\d+)\$|numbered \$1\$ to \$(\d+)\$|fair (\d+)-sided)`)
	limRe     = regexp.MustCompile(`\\lim_\{x \\to (-?\d+|\\infty)\} \\frac\{([^{}]+)\}\{([^{}]+)\}`)
	teleRe    = regexp.MustCompile(`\\sum_\{([a-z])=1\}\^\{(\d+|\\infty)\} \\frac\{(\d+)\}\{[a-z]\([a-z]\+(\d+)\)\}`)
	teleOddRe = regexp.MustCompile(`\\sum_\{[a-z]=1\}\^\{(\d+)\} \\frac\{1\}\{\(2[a-z]-1\)|\\frac\{1\}\{(\d+) \\cdot (\d+)\}\$|for \$[a-z] = 1, 2, \\ldots, (\d+)\$`)
	curveRe   = regexp.MustCompile(`\$y = ([^$]+)\$`)
	atXRe     = regexp.MustCompile(`\$x = (-?\d+)\$|coordinate \$(-?\d+)\$`)
)

func init() {
	checkers["dice-probability"] = func(st string) (string, error) {
		s := int64(6)
		if m := sidesRe.FindStringSubmatch(st); m != nil {
			s = atoi64(m[1] + m[2] + m[3])
		}
		low := strings.ToLower(st)
		v := mathInts(regexp.MustCompile(`\$1\$ (?:to|through) \$\d+\$`).ReplaceAllString(st, ""))
		t := int64(0)
		if len(v) > 0 {
			t = v[len(v)-1]
		}
		pred := func(a, b int64) bool { return a+b == t }
		switch {
		case strings.Contains(low, "even"):
			pred = func(a, b int64) bool { return a*b%2 == 0 }
		case strings.Contains(low, "differ") || strings.Contains(low, "difference"):
			pred = func(a, b int64) bool { return a-b == t || b-a == t }
		case strings.Contains(low, "at least") || strings.Contains(low, "or more") || strings.Contains(low, "greater than or equal"):
			pred = func(a, b int64) bool { return a+b >= t }
		}
		fav := int64(0)
		for a := int64(1); a <= s; a++ {
			for b := int64(1); b <= s; b++ {
				if pred(a, b) {
					fav++
				}
			}
		}
		return q(fav, s*s).tex(), nil
	}
	checkers["coin-probability"] = func(st string) (string, error) {
		v := mathInts(st)
		n, k := v[0], v[len(v)-1]
		low := strings.ToLower(st)
		fav := int64(0)
		for mask := 0; mask < 1<<n; mask++ {
			c := int64(0)
			for b := 0; b < int(n); b++ {
				c += int64(mask >> b & 1)
			}
			switch {
			case strings.Contains(low, "at least"):
				if c >= k {
					fav++
				}
			case strings.Contains(low, "at most"):
				if c <= k {
					fav++
				}
			default:
				if c == k {
					fav++
				}
			}
		}
		return q(fav, 1<<n).tex(), nil
	}
	checkers["inclusion-exclusion-divisibility"] = func(st string) (string, error) {
		// N is the largest number; the divisors are the numbers after it.
		v := mathInts(st)
		N, at := int64(0), 0
		for k, x := range v {
			if x >= N {
				N, at = x, k
			}
		}
		ds := v[at+1:]
		low := strings.ToLower(st)
		cnt := int64(0)
		for x := int64(1); x <= N; x++ {
			hits := 0
			for _, d := range ds {
				if x%d == 0 {
					hits++
				}
			}
			switch {
			case strings.Contains(low, "neither") || strings.Contains(low, "none of") || strings.Contains(low, "not divisible"):
				if hits == 0 {
					cnt++
				}
			case strings.Contains(low, "exactly one") || strings.Contains(low, "precisely one") || strings.Contains(low, "but not of both"):
				if hits == 1 {
					cnt++
				}
			default:
				if hits > 0 {
					cnt++
				}
			}
		}
		return itoa(cnt), nil
	}
	ratCheckers["rational-limit"] = func(st string, ans *big.Rat) error {
		m := limRe.FindStringSubmatch(st)
		if m == nil {
			// asymptote phrasing: the fraction after "y = "
			m = regexp.MustCompile(`y = \\frac\{([^{}]+)\}\{([^{}]+)\}`).FindStringSubmatch(st)
			if m == nil {
				return fmt.Errorf("unparsed")
			}
			m = []string{"", `\infty`, m[1], m[2]}
		}
		num, ok1 := parsePoly(m[2])
		den, ok2 := parsePoly(m[3])
		if !ok1 || !ok2 {
			return fmt.Errorf("poly")
		}
		x := 1e7
		if m[1] != `\infty` {
			x = float64(atoi64(m[1])) + 1e-6
		}
		got := evalF(num, x) / evalF(den, x)
		want, _ := ans.Float64()
		if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
			return fmt.Errorf("numeric limit %v, answer %v", got, want)
		}
		return nil
	}
	ratCheckers["telescoping-series"] = func(st string, ans *big.Rat) error {
		sum := 0.0
		if m := teleRe.FindStringSubmatch(st); m != nil {
			c, k := float64(atoi64(m[3])), float64(atoi64(m[4]))
			N := 2000000
			if m[2] != `\infty` {
				N = int(atoi64(m[2]))
			}
			for n := N; n >= 1; n-- {
				sum += c / (float64(n) * (float64(n) + k))
			}
			if m[2] == `\infty` {
				sum += c / float64(N) // tail bound ~ c·k/(k·N)
			}
		} else if m := teleOddRe.FindStringSubmatch(st); m != nil {
			N := atoi64(m[1] + m[4])
			if m[3] != "" {
				N = (atoi64(m[3]) - 1) / 2
			}
			for n := N; n >= 1; n-- {
				sum += 1 / (float64(2*n-1) * float64(2*n+1))
			}
		} else {
			return fmt.Errorf("unparsed")
		}
		want, _ := ans.Float64()
		if math.Abs(sum-want) > 1e-5*(1+math.Abs(want)) {
			return fmt.Errorf("numeric sum %v, answer %v", sum, want)
		}
		return nil
	}
	ratCheckers["cubic-extremum"] = func(st string, ans *big.Rat) error {
		m := derivDefRe.FindStringSubmatch(st)
		c, ok := parsePoly(m[2])
		if !ok {
			return fmt.Errorf("poly")
		}
		// critical points of a·x^3 + b·x^2 + c·x + d
		A, B, C := 3*float64(c[3]), 2*float64(c[2]), float64(c[1])
		disc := math.Sqrt(B*B - 4*A*C)
		r1, r2 := (-B-disc)/(2*A), (-B+disc)/(2*A)
		second := func(x float64) float64 { return 6*float64(c[3])*x + 2*float64(c[2]) }
		maxX, minX := r1, r2
		if second(r1) > 0 {
			maxX, minX = r2, r1
		}
		x := minX
		if strings.Contains(st, "maximum") {
			x = maxX
		}
		want := x
		low := strings.ToLower(st)
		if !(strings.Contains(low, "at what value") || strings.Contains(low, "coordinate") || strings.Contains(low, "where")) {
			want = evalF(c, x)
		}
		got, _ := ans.Float64()
		if math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
			return fmt.Errorf("want %v", want)
		}
		return nil
	}
	ratCheckers["tangent-line"] = func(st string, ans *big.Rat) error {
		c, ok := parsePoly(curveRe.FindStringSubmatch(st)[1])
		if !ok {
			return fmt.Errorf("poly")
		}
		pm := atXRe.FindStringSubmatch(st)
		a := float64(atoi64(pm[1] + pm[2]))
		h := 1e-5
		slope := (evalF(c, a+h) - evalF(c, a-h)) / (2 * h)
		b := evalF(c, a) - slope*a
		var want float64
		switch {
		case strings.Contains(st, "m + b"):
			want = slope + b
		case strings.Contains(st, "$x$-axis") || strings.Contains(st, "$x$-intercept"):
			want = -b / slope
		default:
			want = b
		}
		got, _ := ans.Float64()
		if math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
			return fmt.Errorf("want %v", want)
		}
		return nil
	}
	ratCheckers["area-between-curves"] = func(st string, ans *big.Rat) error {
		cs := curveRe.FindAllStringSubmatch(st, -1)
		p1, ok1 := parsePoly(cs[0][1])
		p2, ok2 := parsePoly(cs[1][1])
		if !ok1 || !ok2 {
			return fmt.Errorf("poly")
		}
		d := make([]int64, 8)
		for e := range d {
			d[e] = p1[e] - p2[e]
		}
		A, B, C := float64(d[2]), float64(d[1]), float64(d[0])
		disc := math.Sqrt(B*B - 4*A*C)
		lo, hi := (-B-disc)/(2*A), (-B+disc)/(2*A)
		if lo > hi {
			lo, hi = hi, lo
		}
		const steps = 20000
		area := 0.0
		hstep := (hi - lo) / steps
		for k := 0; k < steps; k++ {
			x := lo + (float64(k)+0.5)*hstep
			area += math.Abs(evalF(d, x)) * hstep
		}
		got, _ := ans.Float64()
		if math.Abs(got-area) > 1e-5*(1+area) {
			return fmt.Errorf("numeric area %v", area)
		}
		return nil
	}
}

var (
	absIneqRe  = regexp.MustCompile(`\|([^|]+)\| (\\le|<) (\d+)`)
	compIneqRe = regexp.MustCompile(`(-?\d+) (\\le|<) ([^$]+?) (\\le|<) (-?\d+)\$`)
	expEqRe    = regexp.MustCompile(`(\d+)\^\{([^}]+)\} = (\d+)\^\{([^}]+)\}`)
	remDivRe   = regexp.MustCompile(`\$x ([+-]) (\d+)\$`)
	vietaEqRe  = regexp.MustCompile(`\$([^$]*x\^2[^$]*) = 0\$`)
)

func init() {
	checkers["integer-inequality"] = func(st string) (string, error) {
		var ok func(x int64) bool
		if m := absIneqRe.FindStringSubmatch(st); m != nil {
			c, good := parsePoly(m[1])
			if !good {
				return "", fmt.Errorf("poly %q", m[1])
			}
			r := atoi64(m[3])
			ok = func(x int64) bool {
				v := c[1]*x + c[0]
				if v < 0 {
					v = -v
				}
				if m[2] == "<" {
					return v < r
				}
				return v <= r
			}
		} else if m := compIneqRe.FindStringSubmatch(st); m != nil {
			c, good := parsePoly(m[3])
			if !good {
				return "", fmt.Errorf("poly %q", m[3])
			}
			lo, hi := atoi64(m[1]), atoi64(m[5])
			ok = func(x int64) bool {
				v := c[1]*x + c[0]
				return (v > lo || (m[2] != "<" && v == lo)) && (v < hi || (m[4] != "<" && v == hi))
			}
		} else {
			return "", fmt.Errorf("unparsed")
		}
		cnt, sum := int64(0), int64(0)
		for x := int64(-1000); x <= 1000; x++ {
			if ok(x) {
				cnt++
				sum += x
			}
		}
		low := strings.ToLower(st)
		if strings.Contains(low, "sum") || strings.Contains(low, "total of") || strings.Contains(low, "adds them") {
			return itoa(sum), nil
		}
		return itoa(cnt), nil
	}
	checkers["polynomial-remainder"] = func(st string) (string, error) {
		d := remDivRe.FindStringSubmatch(st)
		if d == nil {
			return "", fmt.Errorf("divisor")
		}
		sign, mag := d[1], atoi64(d[2])
		a := mag // root of x - a
		if sign == "+" {
			a = -mag
		}
		var poly string
		for _, m := range mathSegRe.FindAllStringSubmatch(st, -1) {
			body := m[1]
			if i := strings.Index(body, " = "); i >= 0 && strings.Contains(body[:i], "(x)") {
				body = body[i+3:]
			}
			if strings.Contains(body, "x^") && len(body) > len(poly) {
				poly = body
			}
		}
		withK := strings.HasSuffix(poly, " + k")
		c, good := parsePoly(strings.TrimSuffix(poly, " + k"))
		if !good {
			return "", fmt.Errorf("poly %q", poly)
		}
		v := int64(0)
		for e := len(c) - 1; e >= 0; e-- {
			v = v*a + c[e]
		}
		if withK {
			return itoa(-v), nil
		}
		return itoa(v), nil
	}
	ratCheckers["exponential-equation"] = func(st string, ans *big.Rat) error {
		m := expEqRe.FindStringSubmatch(st)
		c1, ok1 := parsePoly(m[2])
		c2, ok2 := parsePoly(m[4])
		if !ok1 || !ok2 {
			return fmt.Errorf("poly")
		}
		x, _ := ans.Float64()
		lhs := evalF(c1, x) * math.Log(float64(atoi64(m[1])))
		rhs := evalF(c2, x) * math.Log(float64(atoi64(m[3])))
		if math.Abs(lhs-rhs) > 1e-9*(1+math.Abs(lhs)) {
			return fmt.Errorf("log sides %v != %v", lhs, rhs)
		}
		return nil
	}
	ratCheckers["quadratic-vieta"] = func(st string, ans *big.Rat) error {
		c, ok := parsePoly(vietaEqRe.FindStringSubmatch(st)[1])
		if !ok {
			return fmt.Errorf("poly")
		}
		A, B, C := complex(float64(c[2]), 0), complex(float64(c[1]), 0), complex(float64(c[0]), 0)
		sq := cmplx.Sqrt(B*B - 4*A*C)
		r, s := (-B+sq)/(2*A), (-B-sq)/(2*A)
		var v complex128
		switch {
		case regexp.MustCompile(`\\frac\{[a-z\\]`).MatchString(st): // r/s + s/r
			v = r/s + s/r
		case strings.Contains(st, `\frac{1}`):
			v = 1/r + 1/s
		case strings.Contains(st, " + 1)("):
			v = (r + 1) * (s + 1)
		case regexp.MustCompile(` - [a-z\\_0-9{}]+\)\^2\$`).MatchString(st):
			v = (r - s) * (r - s)
		case regexp.MustCompile(`\^2 [a-z\\]`).MatchString(st): // r^2 s + r s^2
			v = r*r*s + r*s*s
		default:
			v = r*r + s*s
		}
		want, _ := ans.Float64()
		if cmplx.Abs(v-complex(want, 0)) > 1e-6*(1+math.Abs(want)) {
			return fmt.Errorf("numeric value %v, answer %v", v, want)
		}
		return nil
	}
}

func evalF(c []int64, x float64) float64 {
	r := 0.0
	for e := len(c) - 1; e >= 0; e-- {
		r = r*x + float64(c[e])
	}
	return r
}

func TestAnswersIndependently(t *testing.T) {
	const rows = 60000
	const perTemplate = 120
	checked := map[string]int{}
	cfg := noDups(31337)
	for i := 0; i < rows; i++ {
		p := Generate(cfg, i)
		if checked[p.Template] >= perTemplate {
			continue
		}
		ans, _ := lastBoxed(p.Solution)
		fail := func(err error) {
			t.Fatalf("row %d (%s): %v\nstatement: %s\nsolution: %s", i, p.Template, err, p.Statement, p.Solution)
		}
		if c, ok := checkers[p.Template]; ok {
			want, err := safeCheck(c, p.Statement)
			if err != nil {
				fail(err)
			}
			if want != ans {
				fail(fmt.Errorf("answer %s, recomputed %s", ans, want))
			}
			checked[p.Template]++
			continue
		}
		if p.Template == "coordinate-distance" {
			pts := pointRe.FindAllStringSubmatch(p.Statement, -1)
			dx := atoi64(pts[1][1]) - atoi64(pts[0][1])
			dy := atoi64(pts[1][2]) - atoi64(pts[0][2])
			m := regexp.MustCompile(`^(\d*)(?:\\sqrt\{(\d+)\})?$`).FindStringSubmatch(ans)
			if m == nil {
				fail(fmt.Errorf("answer form %q", ans))
			}
			k, r := int64(1), int64(1)
			if m[1] != "" {
				k = atoi64(m[1])
			}
			if m[2] != "" {
				r = atoi64(m[2])
			}
			if k*k*r != dx*dx+dy*dy {
				fail(fmt.Errorf("%s^2 != %d", ans, dx*dx+dy*dy))
			}
			checked[p.Template]++
			continue
		}
		if c := ratCheckers[p.Template]; c != nil {
			r, ok := parseRatAns(ans)
			if !ok {
				fail(fmt.Errorf("answer %q is not rational", ans))
			}
			if err := safeRat(c, p.Statement, r); err != nil {
				fail(err)
			}
			checked[p.Template]++
		}
	}
	names := mapKeys(checkers)
	for n, c := range ratCheckers {
		if c != nil {
			names = append(names, n)
		}
	}
	names = append(names, "coordinate-distance")
	for _, n := range names {
		if checked[n] < 50 {
			t.Errorf("template %s: only %d instances checked", n, checked[n])
		}
	}
	t.Logf("independently checked %d templates: %v", len(names), checked)
}

// safeCheck turns a checker's parse panic into an error naming the text.
func safeCheck(c checker, st string) (want string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("checker could not parse the statement: %v", r)
		}
	}()
	return c(st)
}

func safeRat(c func(string, *big.Rat) error, st string, r *big.Rat) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("checker could not parse the statement: %v", x)
		}
	}()
	return c(st, r)
}

func mapKeys(m map[string]checker) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
