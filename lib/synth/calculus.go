package synth

import "strings"

var calculusTemplates = []template{
	{"derivative-at-point", []string{"Calculus and Analysis/Differentiation/Polynomial Derivatives"}, genDerivative},
	{"definite-integral", []string{"Calculus and Analysis/Integration/Definite Integrals"}, genIntegral},
	{"rational-limit", []string{"Calculus and Analysis/Limits/Limits of Rational Functions"}, genRationalLimit},
	{"cubic-extremum", []string{"Calculus and Analysis/Applications of Derivatives/Local Extrema"}, genCubicExtremum},
	{"geometric-series-sum", []string{"Calculus and Analysis/Series/Geometric Series"}, genGeomSeries},
	{"tangent-line", []string{"Calculus and Analysis/Differentiation/Tangent Lines"}, genTangent},
	{"telescoping-series", []string{"Calculus and Analysis/Series/Telescoping Series"}, genTelescoping},
	{"radius-of-convergence", []string{"Calculus and Analysis/Series/Power Series"}, genRadius},
	{"related-rates", []string{"Calculus and Analysis/Differentiation/Related Rates"}, genRelatedRates},
	{"optimization", []string{"Calculus and Analysis/Applications of Derivatives/Optimization"}, genOptimization},
	{"lhopital-limit", []string{"Calculus and Analysis/Limits/L'Hopital's Rule"}, genLHopital},
	{"area-between-curves", []string{"Calculus and Analysis/Integration/Area Between Curves", "Geometry/Area/Regions Bounded by Curves"}, genAreaBetween},
}

// randPoly draws a polynomial of the given degree with coefficients in
// [-lim, lim] and a non-zero leading coefficient.
func (g *gen) randPoly(deg, lim int) []int64 {
	c := make([]int64, deg+1)
	for k := range c {
		c[k] = g.n64(int64(-lim), int64(lim))
	}
	c[deg] = int64(g.nz(-lim, lim))
	return c
}

func genDerivative(g *gen) (string, string, string) {
	c := g.randPoly(g.n(3, 5), 9)
	fn := g.pick("f", "g", "h", "p")
	switch g.intn(4) {
	case 0, 1:
		a := g.n64(-3, 3)
		d := deriv(c)
		v := evalPoly(d, a)
		def := sprintf("%s(x) = %s", fn, polyTeX(c, "x"))
		var st string
		switch g.intn(4) {
		case 0:
			st = sprintf("Let $%s$. Find $%s'(%d)$.", def, fn, a)
		case 1:
			st = sprintf("If $%s$, what is the value of $%s'(%d)$?", def, fn, a)
		case 2:
			st = sprintf("Compute the derivative of $%s$ and evaluate it at $x = %d$, that is, find $%s'(%d)$.", def, a, fn, a)
		default:
			st = sprintf("%s is studying the function $%s$. What is the slope of its graph at the point where $x = %d$? Give the value of $%s'(%d)$.", g.name(), def, a, fn, a)
		}
		w := sprintf("Differentiating term by term with the power rule gives $%s'(x) = %s$. Then $%s'(%d) = %s = %d$.", fn, polyTeX(d, "x"), fn, a, termsEval(d, a), v)
		return st, w, itoa(v)
	case 2:
		a := g.n64(-3, 3)
		d := deriv(c)
		d2 := deriv(d)
		v := evalPoly(d2, a)
		def := sprintf("%s(x) = %s", fn, polyTeX(c, "x"))
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Let $%s$. Find $%s''(%d)$.", def, fn, a)
		case 1:
			st = sprintf("For $%s$, compute the second derivative at $x = %d$.", def, a)
		default:
			st = sprintf("What is the value of $%s''(%d)$ if $%s$?", fn, a, def)
		}
		w := sprintf("We have $%s'(x) = %s$ and $%s''(x) = %s$. Hence $%s''(%d) = %s = %d$.", fn, polyTeX(d, "x"), fn, polyTeX(d2, "x"), fn, a, termsEval(d2, a), v)
		return st, w, itoa(v)
	default:
		a := g.n64(1, 5)
		d := deriv(c)
		v := evalPoly(d, a)
		pos := polyTeX(c, "t")
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("A particle moves along a line so that its position at time $t$ seconds is $s(t) = %s$ meters. What is its velocity, in meters per second, at $t = %d$?", pos, a)
		case 1:
			st = sprintf("The position of a toy car on a track is $s(t) = %s$, where $t$ is measured in seconds. Find the instantaneous velocity of the car at time $t = %d$.", pos, a)
		default:
			st = sprintf("%s models the height of a drone by $s(t) = %s$ meters after $t$ seconds. How fast, in meters per second, is the height changing at $t = %d$?", g.name(), pos, a)
		}
		w := sprintf("Velocity is the derivative of position: $s'(t) = %s$. At $t = %d$, $s'(%d) = %s = %d$.", polyTeX(d, "t"), a, a, termsEval(d, a), v)
		return st, w, itoa(v)
	}
}

// antideriv returns Σ c[i]/(i+1) x^{i+1}.
func antideriv(c []int64) []rat {
	F := make([]rat, len(c)+1)
	F[0] = qi(0)
	for i, a := range c {
		F[i+1] = q(a, int64(i+1))
	}
	return F
}

func evalRatPoly(c []rat, x int64) rat {
	r := qi(0)
	for e := len(c) - 1; e >= 0; e-- {
		r = r.mul(qi(x)).add(c[e])
	}
	return r
}

func genIntegral(g *gen) (string, string, string) {
	c := g.randPoly(g.n(1, 3), 6)
	a := g.n64(-3, 3)
	b := a + g.n64(1, 4)
	F := antideriv(c)
	Fa, Fb := evalRatPoly(F, a), evalRatPoly(F, b)
	v := Fb.sub(Fa)
	integ := sprintf("\\int_{%d}^{%d} (%s)\\,dx", a, b, polyTeX(c, "x"))
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Evaluate $%s$.", integ)
	case 1:
		st = sprintf("Compute the definite integral $%s$.", integ)
	case 2:
		st = sprintf("Find the net signed area between the graph of $y = %s$ and the $x$-axis from $x = %d$ to $x = %d$.", polyTeX(c, "x"), a, b)
	default:
		st = sprintf("%s needs the exact value of $%s$ for a physics lab report. What is the value?", g.name(), integ)
	}
	if !v.isInt() && g.chance(0.5) {
		st += " Express the answer as a fraction in lowest terms."
	}
	w := sprintf("An antiderivative is $F(x) = %s$. Then $F(%d) = %s$ and $F(%d) = %s$, so the integral equals $F(%d) - F(%d) = %s - %s = %s$.",
		ratPolyTeX(F, "x"), b, Fb.tex(), a, Fa.tex(), b, a, Fb.tex(), parenQ(Fa), v.tex())
	return st, w, v.tex()
}

func genRationalLimit(g *gen) (string, string, string) {
	if g.chance(0.6) {
		var r, s, t int64
		for {
			r, s, t = g.n64(-6, 6), g.n64(-6, 6), g.n64(-6, 6)
			if r != s && r != t && s != t {
				break
			}
		}
		k := []int64{1, 1, 2, 3, -1, -2}[g.intn(6)]
		num := polyTeX([]int64{k * r * s, -k * (r + s), k}, "x")
		den := polyTeX([]int64{r * t, -(r + t), 1}, "x")
		v := q(k*(r-s), r-t)
		lim := sprintf("\\lim_{x \\to %d} \\frac{%s}{%s}", r, num, den)
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Evaluate $%s$.", lim)
		case 1:
			st = sprintf("Find the value of the limit $%s$.", lim)
		default:
			st = sprintf("%s notices that direct substitution in $%s$ gives $\\frac{0}{0}$. What is the actual value of the limit?", g.name(), lim)
		}
		kf := ""
		if k == -1 {
			kf = "-"
		} else if k != 1 {
			kf = itoa(k)
		}
		w := sprintf("Both numerator and denominator vanish at $x = %d$, so both contain the factor $%s$. Factoring, $%s = %s%s%s$ and $%s = %s%s$. Cancelling the common factor, the limit is $\\frac{%s%s}{%s}$ evaluated at $x = %d$, which is $\\frac{%d(%d - %s)}{%d - %s} = %s$.",
			r, lin(1, -r, "x"), num, kf, factorLin(1, r), factorLin(1, s), den, factorLin(1, r), factorLin(1, t), kf, factorLin(1, s), factorLin(1, t), r, k, r, paren(s), r, paren(t), v.tex())
		w = strings.ReplaceAll(w, "(x)", "x")
		return st, w, v.tex()
	}
	deg := int64(g.n(2, 3))
	nc := g.randPoly(int(deg), 9)
	dc := g.randPoly(int(deg), 9)
	v := q(nc[deg], dc[deg])
	lim := sprintf("\\lim_{x \\to \\infty} \\frac{%s}{%s}", polyTeX(nc, "x"), polyTeX(dc, "x"))
	var st string
	switch g.intn(3) {
	case 0:
		st = sprintf("Compute $%s$.", lim)
	case 1:
		st = sprintf("What is the horizontal asymptote $y = L$ of the graph of $y = \\frac{%s}{%s}$? Give $L$.", polyTeX(nc, "x"), polyTeX(dc, "x"))
	default:
		st = sprintf("Determine the limit $%s$.", lim)
	}
	w := sprintf("Numerator and denominator both have degree $%d$. Dividing each by $%s$, every term except the leading ones tends to $0$ as $x \\to \\infty$, so the limit is the ratio of leading coefficients, $%s$.",
		deg, pow("x", int(deg)), fracEq(nc[deg], dc[deg]))
	return st, w, v.tex()
}

func genCubicExtremum(g *gen) (string, string, string) {
	var p, qq int64
	for p >= qq {
		p, qq = g.n64(-4, 5), g.n64(-4, 5)
	}
	m := g.n64(1, 2)
	sg := int64(1)
	if g.chance(0.4) {
		sg = -1
	}
	d := g.n64(-20, 20)
	c := []int64{d, 6 * sg * m * p * qq, -3 * sg * m * (p + qq), 2 * sg * m}
	fn := g.pick("f", "g", "h")
	def := sprintf("%s(x) = %s", fn, polyTeX(c, "x"))
	maxAt, minAt := p, qq
	if sg < 0 {
		maxAt, minAt = qq, p
	}
	askMax := g.chance(0.5)
	askX := g.chance(0.3)
	kind, at := "minimum", minAt
	if askMax {
		kind, at = "maximum", maxAt
	}
	val := evalPoly(c, at)
	var st string
	if askX {
		switch g.intn(3) {
		case 0:
			st = sprintf("At what value of $x$ does $%s$ attain its local %s?", def, kind)
		case 1:
			st = sprintf("Find the $x$-coordinate of the local %s of the function $%s$.", kind, def)
		default:
			st = sprintf("%s graphs $%s$. Where, on the $x$-axis, is the local %s located?", g.name(), def, kind)
		}
	} else {
		switch g.intn(3) {
		case 0:
			st = sprintf("Find the local %s value of $%s$.", kind, def)
		case 1:
			st = sprintf("What is the value of the local %s of the function $%s$?", kind, def)
		default:
			st = sprintf("%s is analyzing $%s$. Determine the %s's local %s value.", g.name(), def, "function", kind)
		}
	}
	lead := 6 * sg * m
	w := sprintf("Differentiate: $%s'(x) = %s = %d(x %s)(x %s)$, so the critical points are $x = %d$ and $x = %d$. ",
		fn, polyTeX(deriv(c), "x"), lead, signed(-p), signed(-qq), p, qq)
	if sg > 0 {
		w += sprintf("The derivative is positive for $x < %d$, negative between the critical points and positive for $x > %d$, so there is a local maximum at $x = %d$ and a local minimum at $x = %d$.", p, qq, p, qq)
	} else {
		w += sprintf("The derivative is negative for $x < %d$, positive between the critical points and negative for $x > %d$, so there is a local minimum at $x = %d$ and a local maximum at $x = %d$.", p, qq, p, qq)
	}
	w = strings.ReplaceAll(w, "(x + 0)", "x")
	w = strings.ReplaceAll(w, "(x - 0)", "x")
	if askX {
		return st, w, itoa(at)
	}
	w += sprintf(" The local %s value is $%s(%d) = %s = %d$.", kind, fn, at, termsEval(c, at), val)
	return st, w, itoa(val)
}

func genGeomSeries(g *gen) (string, string, string) {
	var u, v int64
	for {
		v = g.n64(2, 9)
		u = int64(g.nz(-int(v)+1, int(v)-1))
		if gcd64(u, v) == 1 {
			break
		}
	}
	r := q(u, v)
	a := g.n64(1, 12)
	one := qi(1)
	switch g.intn(4) {
	case 0:
		S := qi(a).div(one.sub(r))
		ser := sprintf("\\sum_{n=0}^{\\infty} %s\\left(%s\\right)^n", coefTeX(a), r.tex())
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Evaluate the infinite series $%s$.", ser)
		case 1:
			st = sprintf("Find the sum of the geometric series $%s$.", ser)
		default:
			st = sprintf("%s claims that $%s$ converges. Find its sum.", g.name(), ser)
		}
		w := sprintf("This is a geometric series with first term $%d$ and ratio $%s$, and $|%s| < 1$, so it converges to $\\frac{%d}{1 - %s} = %s$.", a, r.tex(), r.tex(), a, parenQ(r), S.tex())
		return st, w, S.tex()
	case 1:
		S := qi(a).mul(r).div(one.sub(r))
		ser := sprintf("\\sum_{n=1}^{\\infty} %s\\left(%s\\right)^n", coefTeX(a), r.tex())
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Compute $%s$.", ser)
		case 1:
			st = sprintf("What is the value of the convergent series $%s$?", ser)
		default:
			st = sprintf("Find the sum $%s$, if it exists.", ser)
		}
		w := sprintf("The first term (for $n = 1$) is $%d \\cdot %s = %s$ and the ratio is $%s$ with $|%s| < 1$. The sum is $\\frac{%s}{1 - %s} = %s$.", a, parenQ(r), qi(a).mul(r).tex(), r.tex(), r.tex(), qi(a).mul(r).tex(), parenQ(r), S.tex())
		return st, w, S.tex()
	case 2:
		if u < 0 {
			u = -u
			r = q(u, v)
		}
		h := g.n64(1, 30)
		D := qi(h).mul(one.add(r)).div(one.sub(r))
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("A ball is dropped from a height of $%d$ meters. Each time it hits the ground it rebounds to $%s$ of the height from which it fell. Assuming it bounces forever, what total vertical distance does it travel?", h, r.tex())
		case 1:
			st = sprintf("%s drops a rubber ball from $%d$ m. After every bounce it rises to $%s$ of its previous height. Find the total distance, up and down, that the ball travels.", g.name(), h, r.tex())
		default:
			st = sprintf("A super ball falls from height $%d$ and after each impact climbs back to a fraction $%s$ of the height it fell from. What is the total distance covered before it comes to rest?", h, r.tex())
		}
		w := sprintf("The ball falls $%d$, then rises and falls $%d \\cdot %s$, then $%d \\cdot \\left(%s\\right)^2$ twice, and so on. The total is $%d + 2 \\cdot \\frac{%d \\cdot %s}{1 - %s} = %d \\cdot \\frac{1 + %s}{1 - %s} = %s$.",
			h, h, r.tex(), h, r.tex(), h, h, r.tex(), r.tex(), h, r.tex(), r.tex(), D.tex())
		return st, w, D.tex()
	default:
		L := g.n(2, 3)
		var D int64
		for {
			D = g.n64(1, ipow(10, L)-2)
			if D%11 != 0 || L == 3 {
				break
			}
		}
		den := ipow(10, L) - 1
		digits := sprintf("%0*d", L, D)
		F := q(D, den)
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Write the repeating decimal $0.\\overline{%s}$ as a fraction in lowest terms by summing a geometric series.", digits)
		case 1:
			st = sprintf("Express $0.\\overline{%s}$ as a common fraction.", digits)
		default:
			st = sprintf("%s's calculator shows $0.%s%s%s\\ldots$ with the block $%s$ repeating forever. Which fraction in lowest terms is this?", g.name(), digits, digits, digits, digits)
		}
		w := sprintf("We have $0.\\overline{%s} = \\frac{%d}{10^{%d}} + \\frac{%d}{10^{%d}} + \\cdots$, a geometric series with first term $\\frac{%d}{%d}$ and ratio $\\frac{1}{%d}$. Its sum is $\\frac{%d/%d}{1 - 1/%d} = %s$.",
			digits, D, L, D, 2*L, D, den+1, den+1, D, den+1, den+1, fracEq(D, den))
		return st, w, F.tex()
	}
}

// coefTeX renders a leading coefficient, omitting 1.
func coefTeX(a int64) string {
	if a == 1 {
		return ""
	}
	return itoa(a)
}

func genTangent(g *gen) (string, string, string) {
	c := g.randPoly(g.n(2, 3), 7)
	a := g.n64(-3, 3)
	m := evalPoly(deriv(c), a)
	y0 := evalPoly(c, a)
	b := y0 - m*a
	curve := "y = " + polyTeX(c, "x")
	mode := g.intn(3)
	if m == 0 && mode == 1 {
		mode = 0
	}
	var st string
	var ans string
	switch mode {
	case 0:
		switch g.intn(3) {
		case 0:
			st = sprintf("Find the $y$-intercept of the line tangent to the curve $%s$ at the point where $x = %d$.", curve, a)
		case 1:
			st = sprintf("The tangent line to $%s$ at $x = %d$ has equation $y = mx + b$. Find $b$.", curve, a)
		default:
			st = sprintf("%s draws the tangent line to the graph of $%s$ at $x = %d$. Where does this line cross the $y$-axis? Give the $y$-coordinate.", g.name(), curve, a)
		}
		ans = itoa(b)
	case 1:
		switch g.intn(2) {
		case 0:
			st = sprintf("At what $x$-value does the tangent line to $%s$ at $x = %d$ intersect the $x$-axis?", curve, a)
		default:
			st = sprintf("Find the $x$-intercept of the tangent line to the curve $%s$ at the point with $x$-coordinate $%d$.", curve, a)
		}
		ans = q(-b, m).tex()
	default:
		switch g.intn(2) {
		case 0:
			st = sprintf("The line tangent to $%s$ at $x = %d$ is $y = mx + b$. Compute $m + b$.", curve, a)
		default:
			st = sprintf("%s writes the tangent line to $%s$ at $x = %d$ in the form $y = mx + b$. What is $m + b$?", g.name(), curve, a)
		}
		ans = itoa(m + b)
	}
	w := sprintf("The point of tangency is $(%d, %d)$, since the curve's value there is $%s = %d$. The derivative is $y' = %s$, so the slope is $m = %s = %d$. The tangent line is $y - %s = %d(x - %s)$, i.e. $y = %s$.",
		a, y0, termsEval(c, a), y0, polyTeX(deriv(c), "x"), termsEval(deriv(c), a), m, paren(y0), m, paren(a), lin(m, b, "x"))
	switch mode {
	case 0:
		w += sprintf(" Its $y$-intercept is $%d$.", b)
	case 1:
		w += sprintf(" Setting $y = 0$ gives $x = \\frac{%d}{%d} = %s$.", -b, m, ans)
	default:
		w += sprintf(" Hence $m + b = %d + %s = %d$.", m, paren(b), m+b)
	}
	return st, w, ans
}

func genTelescoping(g *gen) (string, string, string) {
	ix := g.pick("n", "k", "m", "j")
	nm := g.name()
	switch g.intn(3) {
	case 0:
		k := g.n64(1, 3)
		N := g.n64(10, 400)
		c := g.n64(1, 6)
		H, T := qi(0), qi(0)
		hs, ts := []string{}, []string{}
		for j := int64(1); j <= k; j++ {
			H = H.add(q(1, j))
			T = T.add(q(1, N+j))
			hs = append(hs, q(1, j).tex())
			ts = append(ts, q(1, N+j).tex())
		}
		v := H.sub(T).mul(q(c, k))
		ser := sprintf("\\sum_{%s=1}^{%d} \\frac{%d}{%s(%s+%d)}", ix, N, c, ix, ix, k)
		st := g.spinf("[[Evaluate|Find the exact value of|Compute]] the [[finite|]] sum $%s$[[.| as a fraction in lowest terms.| and simplify the result.]]", ser)
		if g.chance(0.35) {
			st = g.spinf("%s wants to add up $%s$ [[without a computer|by hand|using a clever trick]]. What is the sum, [[as a fraction in lowest terms|in simplest form]]?", nm, ser)
		}
		w := sprintf("By partial fractions, $\\frac{%d}{%s(%s+%d)} = %s\\left(\\frac{1}{%s} - \\frac{1}{%s+%d}\\right)$. The sum telescopes: all terms cancel except the first $%d$ positive ones and the last $%d$ negative ones, so it equals $%s\\left(%s - \\left(%s\\right)\\right) = %s$.",
			c, ix, ix, k, q(c, k).tex(), ix, ix, k, k, k, q(c, k).tex(), strings.Join(hs, " + "), strings.Join(ts, " + "), v.tex())
		return st, strings.ReplaceAll(w, "$1\\left(", "$\\left("), v.tex()
	case 1:
		k := g.n64(1, 6)
		c := g.n64(1, 9)
		H := qi(0)
		hs := []string{}
		for j := int64(1); j <= k; j++ {
			H = H.add(q(1, j))
			hs = append(hs, q(1, j).tex())
		}
		v := H.mul(q(c, k))
		ser := sprintf("\\sum_{%s=1}^{\\infty} \\frac{%d}{%s(%s+%d)}", ix, c, ix, ix, k)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Compute|Find|Evaluate]] $%s$[[.| exactly.]]", ser)
		case 1:
			st = g.spinf("[[Find|What is]] the sum of the [[infinite|convergent]] series $%s$.", ser)
		default:
			st = g.spinf("[[Show|Prove]] that $%s$ converges and [[find|compute]] its [[value|sum]], as %s's [[teacher|textbook]] asks.", ser, nm)
		}
		w := sprintf("Write $\\frac{%d}{%s(%s+%d)} = %s\\left(\\frac{1}{%s} - \\frac{1}{%s+%d}\\right)$. The partial sums telescope to $%s\\left(%s\\right)$ minus terms that tend to $0$, so the series converges to $%s$.",
			c, ix, ix, k, q(c, k).tex(), ix, ix, k, q(c, k).tex(), strings.Join(hs, " + "), v.tex())
		return st, strings.ReplaceAll(w, "= 1\\left(", "= \\left("), v.tex()
	default:
		N := g.n64(5, 500)
		v := q(N, 2*N+1)
		ser := sprintf("\\sum_{%s=1}^{%d} \\frac{1}{(2%s-1)(2%s+1)}", ix, N, ix, ix)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Evaluate|Compute|Find]] $%s$ [[and express it as a reduced fraction|in lowest terms|exactly]].", ser)
		case 1:
			st = g.spinf("What is $\\frac{1}{1 \\cdot 3} + \\frac{1}{3 \\cdot 5} + \\cdots + \\frac{1}{%d \\cdot %d}$ [[as a fraction|in simplest form|exactly]]?", 2*N-1, 2*N+1)
		default:
			st = g.spinf("%s adds the fractions $\\frac{1}{(2%s-1)(2%s+1)}$ for $%s = 1, 2, \\ldots, %d$ [[one by one|on a long sheet of paper|by hand]]. What total results?", nm, ix, ix, ix, N)
		}
		w := sprintf("Since $\\frac{1}{(2%s-1)(2%s+1)} = \\frac{1}{2}\\left(\\frac{1}{2%s-1} - \\frac{1}{2%s+1}\\right)$, the sum telescopes to $\\frac{1}{2}\\left(1 - \\frac{1}{%d}\\right) = \\frac{%d}{%d}$.", ix, ix, ix, ix, 2*N+1, N, 2*N+1)
		return st, w, v.tex()
	}
}

func genRadius(g *gen) (string, string, string) {
	p := g.n(0, 3)
	ix := g.pick("n", "k", "n", "m")
	x := g.pick("x", "x", "z", "t")
	np := ""
	if p > 0 {
		np = pow(ix, p)
	}
	c := g.n64(-5, 5)
	xc := x
	if c != 0 {
		xc = "(" + lin(1, -c, x) + ")"
	}
	bare := strings.Trim(xc, "()")
	nm := g.name()
	switch g.intn(3) {
	case 0:
		a := g.n64(2, 12)
		ser := sprintf("\\sum_{%s=1}^{\\infty} \\frac{%s%s^%s}{%d^%s}", ix, np, xc, ix, a, ix)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Find|Determine|What is]] the radius of convergence of the power series $%s$.", ser)
		case 1:
			st = g.spinf("For which $R$ does $%s$ converge when $|%s| < R$ and diverge when $|%s| > R$? [[Give|Find]] $R$.", ser, bare, bare)
		default:
			st = g.spinf("%s is studying the series $%s$ [[for a homework assignment|in an analysis course|for an exam]]. What is its radius of convergence?", nm, ser)
		}
		w := sprintf("Apply the ratio test to $a_%s = \\frac{%s%s^%s}{%d^%s}$: $\\left|\\frac{a_{%s+1}}{a_%s}\\right| = \\left(\\frac{%s+1}{%s}\\right)^{%d}\\frac{|%s|}{%d} \\to \\frac{|%s|}{%d}$. The series converges when this is less than $1$, i.e. $|%s| < %d$, so the radius is $%d$.",
			ix, np, xc, ix, a, ix, ix, ix, ix, ix, p, bare, a, bare, a, bare, a, a)
		w = strings.ReplaceAll(w, sprintf("\\left(\\frac{%s+1}{%s}\\right)^{0}", ix, ix), "")
		return st, w, itoa(a)
	case 1:
		b := g.n64(2, 12)
		ser := sprintf("\\sum_{%s=1}^{\\infty} \\frac{(%d%s)^%s}{%s}", ix, b, x, ix, np)
		if p == 0 {
			ser = sprintf("\\sum_{%s=1}^{\\infty} (%d%s)^%s", ix, b, x, ix)
		}
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("[[Determine|Find]] the radius of convergence of $%s$[[.%.0s| in the variable $%s$.]]", ser, x)
		case 1:
			st = g.spinf("What is the radius of convergence $R$ of the power series $%s$ [[in $%s$|as a function of $%s$]]?", ser, x)
		default:
			st = g.spinf("%s needs the radius of convergence of $%s$ [[for a project|to finish an assignment|before an exam]]. [[Find it.|What is the radius?]]", nm, ser)
		}
		R := q(1, b)
		w := sprintf("By the ratio test, $\\left|\\frac{a_{%s+1}}{a_%s}\\right| = %d|%s|\\left(\\frac{%s}{%s+1}\\right)^{%d} \\to %d|%s|$. Convergence requires $%d|%s| < 1$, i.e. $|%s| < %s$, so $R = %s$.", ix, ix, b, x, ix, ix, p, b, x, b, x, x, R.tex(), R.tex())
		w = strings.ReplaceAll(w, sprintf("\\left(\\frac{%s}{%s+1}\\right)^{0}", ix, ix), "")
		return st, w, R.tex()
	default:
		a := g.n64(2, 12)
		ser := sprintf("\\sum_{%s=1}^{\\infty} \\frac{%s^%s}{%s \\cdot %d^%s}", ix, xc, ix, ix, a, ix)
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("The power series $%s$ converges on an interval. What is the length of [[this|that]] interval?", ser)
		case 1:
			st = g.spinf("[[Find|Determine]] the length of the interval of convergence of $%s$[[.%.0s| in the variable $%s$.]]", ser, x)
		default:
			st = g.spinf("%s determines the interval of convergence of $%s$ [[for homework|in class]]. How long is [[it|that interval]]?", nm, ser)
		}
		w := sprintf("By the ratio test the terms satisfy $\\left|\\frac{a_{%s+1}}{a_%s}\\right| = \\frac{%s}{%s+1} \\cdot \\frac{|%s|}{%d} \\to \\frac{|%s|}{%d}$, so the radius of convergence is $%d$ and the interval runs from $%d$ to $%d$ (the endpoints affect only whether it is closed, not its length). Its length is $2 \\cdot %d = %d$.",
			ix, ix, ix, ix, bare, a, bare, a, a, c-a, c+a, a, 2*a)
		return st, w, itoa(2 * a)
	}
}

func genRelatedRates(g *gen) (string, string, string) {
	nm := g.name()
	switch g.intn(4) {
	case 0:
		t := triples[g.intn(len(triples))]
		x, y, L := t[0], t[1], t[2]
		if g.chance(0.5) {
			x, y = y, x
		}
		v := g.n64(1, 5)
		rate := q(x*v, y)
		unit := g.pick("feet", "meters")
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("A ladder $%d$ %s long leans against a vertical wall. The bottom slides away from the wall at $%d$ %s per second. How fast is the top sliding down the wall when the bottom is $%d$ %s from the wall?", L, unit, v, unit, x, unit)
		case 1:
			st = sprintf("%s pulls the foot of a $%d$-%s ladder away from a wall at a steady $%d$ %s per second. At what rate, in %s per second, does the top of the ladder descend when the foot is $%d$ %s from the wall?", nm, L, strings.TrimSuffix(strings.Replace(unit, "feet", "foot", 1), "s"), v, unit, unit, x, unit)
		default:
			st = sprintf("The top of a $%d$ %s ladder rests against a wall while its base moves outward at $%d$ %s/s. Find the speed at which the top moves down when the base is $%d$ %s from the wall.", L, unit, v, unit, x, unit)
		}
		w := sprintf("Let $x$ be the distance of the foot from the wall and $y$ the height of the top, so $x^2 + y^2 = %d^2$. Differentiating, $2x\\frac{dx}{dt} + 2y\\frac{dy}{dt} = 0$. When $x = %d$, $y = \\sqrt{%d - %d} = %d$, so $\\frac{dy}{dt} = -\\frac{%d \\cdot %d}{%d} = -%s$. The top slides down at $%s$ %s per second.",
			L, x, L*L, x*x, y, x, v, y, rate.tex(), rate.tex(), unit)
		return st, w, rate.tex()
	case 1:
		v := g.n64(1, 9)
		r0 := g.n64(2, 40)
		ans := qi(2 * r0 * v).piTeX()
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("A stone dropped in a pond creates a circular ripple whose radius grows at $%d$ cm/s. How fast is the area inside the ripple increasing when the radius is $%d$ cm?", v, r0)
		case 1:
			st = sprintf("Oil spreads in a circle whose radius increases at a constant $%d$ meters per minute. At what rate is the area of the spill growing when the radius is $%d$ meters?", v, r0)
		default:
			st = sprintf("%s watches a circular patch of frost grow, with its radius increasing by $%d$ mm per minute. Find the rate of increase of its area when the radius is $%d$ mm.", nm, v, r0)
		}
		st += " Express your answer in terms of $\\pi$."
		w := sprintf("The area is $A = \\pi r^2$, so $\\frac{dA}{dt} = 2\\pi r \\frac{dr}{dt} = 2\\pi \\cdot %d \\cdot %d = %s$.", r0, v, ans)
		return st, w, ans
	case 2:
		V := g.n64(10, 200)
		r0 := g.n64(1, 10)
		ans := q(V, 4*r0*r0).overPiTeX()
		var st string
		switch g.intn(3) {
		case 0:
			st = sprintf("Air is pumped into a spherical balloon at $%d$ cubic centimeters per second. How fast is the radius increasing when the radius is $%d$ cm?", V, r0)
		case 1:
			st = sprintf("%s inflates a spherical balloon so that its volume grows by $%d$ cubic centimeters each second. At what rate is its radius growing at the instant the radius equals $%d$ cm?", nm, V, r0)
		default:
			st = sprintf("The volume of a sphere increases at a rate of $%d$ cubic units per second. Find the rate of change of its radius when the radius is $%d$ units.", V, r0)
		}
		w := sprintf("With $V = \\frac{4}{3}\\pi r^3$ we get $\\frac{dV}{dt} = 4\\pi r^2 \\frac{dr}{dt}$. Hence $\\frac{dr}{dt} = \\frac{%d}{4\\pi \\cdot %d^2} = %s$.", V, r0, ans)
		return st, w, ans
	default:
		v := g.n64(1, 6)
		s := g.n64(2, 30)
		cube := g.chance(0.5)
		if cube {
			ans := 3 * s * s * v
			var st string
			switch g.intn(2) {
			case 0:
				st = sprintf("The edges of a cube grow at $%d$ cm/s. How fast is the volume increasing, in cubic centimeters per second, when each edge is $%d$ cm long?", v, s)
			default:
				st = sprintf("%s heats a metal cube so that each edge lengthens at $%d$ mm per minute. At what rate does the volume grow when the edge is $%d$ mm?", nm, v, s)
			}
			w := sprintf("With $V = s^3$, $\\frac{dV}{dt} = 3s^2\\frac{ds}{dt} = 3 \\cdot %d^2 \\cdot %d = %d$.", s, v, ans)
			return st, w, itoa(ans)
		}
		ans := 2 * s * v
		var st string
		switch g.intn(2) {
		case 0:
			st = sprintf("The side of a square increases at $%d$ cm/s. At what rate is the area increasing when the side is $%d$ cm?", v, s)
		default:
			st = sprintf("%s enlarges a square photo so that its side grows by $%d$ mm per second. How fast is its area growing when the side is $%d$ mm?", nm, v, s)
		}
		w := sprintf("With $A = s^2$, $\\frac{dA}{dt} = 2s\\frac{ds}{dt} = 2 \\cdot %d \\cdot %d = %d$.", s, v, ans)
		return st, w, itoa(ans)
	}
}

func genOptimization(g *gen) (string, string, string) {
	nm := g.name()
	t := g.n64(5, 150)
	switch g.intn(4) {
	case 0:
		P := 4 * t
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("%s has $%d$ meters of fencing to enclose a rectangular %s [[behind the house|in the backyard|on a farm]]. What is the [[largest|greatest]] area, in square meters, that can be enclosed?", nm, P, g.pick("garden", "pen", "play area", "paddock"))
		case 1:
			st = g.spinf("Among all rectangles with perimeter $%d$ [[units|cm|inches]], [[find|what is]] the maximum possible area.", P)
		default:
			st = g.spinf("A rectangle is formed from a [[wire|string|ribbon]] of length $%d$ cm [[by %s|in %s's craft project]]. What is the greatest area the rectangle can have?", P, nm)
		}
		w := sprintf("If one side is $x$, the other is $%d - x$ and the area is $A(x) = x(%d - x)$. Then $A'(x) = %d - 2x = 0$ at $x = %d$, and $A'' = -2 < 0$ confirms a maximum. The maximum area is $%d \\cdot %d = %d$.", P/2, P/2, P/2, t, t, t, t*t)
		return st, w, itoa(t * t)
	case 1:
		L := 4 * t
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("A farmer [[named %s|called %s]] has $%d$ meters of fencing to enclose a rectangular field along a straight river; no fence is needed along the river. What is the largest area that can be enclosed?", nm, L)
		case 1:
			st = g.spinf("%s wants to fence a rectangular %s against the long wall of a barn, using $%d$ feet of fencing for the other three sides. [[Find|What is]] the maximum possible area in square feet.", nm, g.pick("chicken run", "vegetable patch", "dog pen", "flower bed"), L)
		default:
			st = g.spinf("Three sides of a rectangle have total length $%d$, and the fourth side is [[free|along a wall]]. What is the largest area such a rectangle can have [[according to %s|if %s chooses the sides well]]?", L, nm)
		}
		w := sprintf("Let $x$ be each of the two sides perpendicular to the unfenced side; the remaining side is $%d - 2x$, so $A(x) = x(%d - 2x)$. Then $A'(x) = %d - 4x = 0$ gives $x = %d$, a maximum since $A'' = -4$. The area is $%d \\cdot %d = %d$.", L, L, L, t, t, L-2*t, t*(L-2*t))
		return st, w, itoa(t * (L - 2*t))
	case 2:
		S := 2 * t
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("Two positive numbers [[chosen by %s|picked by %s]] have sum $%d$. What is the largest possible value of their product?", nm, S)
		case 1:
			st = g.spinf("%s splits the number $%d$ into two positive parts and multiplies them. What is the [[greatest|largest]] product that can be [[obtained|reached]]?", nm, S)
		default:
			st = g.spinf("[[Find|Determine]] the maximum of $xy$ given that $x$ and $y$ are positive reals with $x + y = %d$, [[as in %s's homework|a classic exercise%.0s]].", S, nm)
		}
		w := sprintf("With $y = %d - x$, the product is $P(x) = x(%d - x)$, and $P'(x) = %d - 2x = 0$ at $x = %d$. Since $P'' = -2 < 0$, the maximum is $%d \\cdot %d = %d$.", S, S, S, t, t, t, t*t)
		return st, w, itoa(t * t)
	default:
		u := g.n64(1, 30)
		s := 6 * u
		V := 16 * u * u * u
		var st string
		switch g.intn(3) {
		case 0:
			st = g.spinf("An open box is made [[by %s|in %s's workshop]] from a square sheet of %s $%d$ cm on a side by cutting equal squares from the four corners and folding up the sides. What is the largest possible volume of the box, in cubic centimeters?", nm, g.pick("cardboard", "tin", "plastic", "card"), s)
		case 1:
			st = g.spinf("%s cuts congruent squares from the corners of a $%d$ by $%d$ square sheet of %s and folds the flaps up to make an open %s. [[Find|What is]] the maximum volume of the %s.", nm, s, s, g.pick("tin", "cardboard", "aluminum"), "tray", "tray")
		default:
			st = g.spinf("From a square piece of %s with side $%d$, squares of side $x$ are removed at each corner and the edges are folded up to form a lidless box [[for %s|in %s's class]]. What is the greatest volume the box can have?", g.pick("card", "paper", "felt", "sheet metal"), s, nm)
		}
		w := sprintf("With corner squares of side $x$, the volume is $V(x) = x(%d - 2x)^2$ for $0 < x < %d$. Then $V'(x) = (%d - 2x)^2 - 4x(%d - 2x) = (%d - 2x)(%d - 6x)$, which vanishes inside the interval at $x = %d$; $V$ increases before and decreases after, so this is the maximum. $V(%d) = %d \\cdot %d^2 = %d$.",
			s, s/2, s, s, s, s, u, u, u, s-2*u, V)
		return st, w, itoa(V)
	}
}

func genLHopital(g *gen) (string, string, string) {
	a, b := g.n64(1, 9), g.n64(1, 9)
	var expr, work string
	var v rat
	switch g.intn(6) {
	case 0:
		expr = sprintf("\\frac{\\sin(%sx)}{%sx}", coefTeX(a), coefTeX(b))
		v = q(a, b)
		work = sprintf("Differentiating numerator and denominator gives $\\frac{%s\\cos(%sx)}{%d}$, which tends to $%s$", coefTeX(a), coefTeX(a), b, fracEq(a, b))
	case 1:
		expr = sprintf("\\frac{e^{%sx} - 1}{%sx}", coefTeX(a), coefTeX(b))
		v = q(a, b)
		work = sprintf("Differentiating numerator and denominator gives $\\frac{%se^{%sx}}{%d}$, which tends to $%s$", coefTeX(a), coefTeX(a), b, fracEq(a, b))
	case 2:
		expr = sprintf("\\frac{1 - \\cos(%sx)}{%sx^2}", coefTeX(a), coefTeX(b))
		v = q(a*a, 2*b)
		work = sprintf("After one application we get $\\frac{%s\\sin(%sx)}{%dx}$, still of the form $\\frac{0}{0}$; a second application gives $\\frac{%d\\cos(%sx)}{%d}$, which tends to $%s$", coefTeX(a), coefTeX(a), 2*b, a*a, coefTeX(a), 2*b, fracEq(a*a, 2*b))
	case 3:
		expr = sprintf("\\frac{\\ln(1 + %sx)}{%sx}", coefTeX(a), coefTeX(b))
		v = q(a, b)
		work = sprintf("Differentiating gives $\\frac{%d/(1 + %sx)}{%d}$, which tends to $%s$", a, coefTeX(a), b, fracEq(a, b))
	case 4:
		expr = sprintf("\\frac{\\tan(%sx)}{\\sin(%sx)}", coefTeX(a), coefTeX(b))
		v = q(a, b)
		work = sprintf("Differentiating gives $\\frac{%s\\sec^2(%sx)}{%s\\cos(%sx)}$, which tends to $%s$", coefTeX(a), coefTeX(a), coefTeX(b), coefTeX(b), fracEq(a, b))
	default:
		for a == b {
			b = g.n64(1, 9)
		}
		expr = sprintf("\\frac{e^{%sx} - e^{%sx}}{x}", coefTeX(a), coefTeX(b))
		v = qi(a - b)
		work = sprintf("Differentiating gives $\\frac{%se^{%sx} - %se^{%sx}}{1}$, which tends to $%d - %d$", coefTeX(a), coefTeX(a), coefTeX(b), coefTeX(b), a, b)
	}
	lim := sprintf("\\lim_{x \\to 0} %s", expr)
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Evaluate $%s$.", lim)
	case 1:
		st = sprintf("Use L'Hopital's rule to compute $%s$.", lim)
	case 2:
		st = sprintf("Find the value of the limit $%s$.", lim)
	default:
		st = sprintf("%s says that $%s$ is an indeterminate form. Find the limit.", g.name(), lim)
	}
	w := "At $x = 0$ both numerator and denominator equal $0$, so L'Hopital's rule applies. " + work + sprintf(" as $x \\to 0$. So the limit is $%s$.", v.tex())
	return st, w, v.tex()
}

func genAreaBetween(g *gen) (string, string, string) {
	var p, qq int64
	for p >= qq {
		p, qq = g.n64(-4, 5), g.n64(-4, 5)
	}
	k := g.n64(1, 3)
	u, v := g.n64(-6, 6), g.n64(-6, 6)
	par := []int64{v, u, k}
	line := []int64{v - k*p*qq, u + k*(p+qq)}
	A := q(k*ipow(qq-p, 3), 6)
	ps, ls := polyTeX(par, "x"), polyTeX(line, "x")
	var st string
	switch g.intn(4) {
	case 0:
		st = sprintf("Find the area of the region bounded by the parabola $y = %s$ and the line $y = %s$.", ps, ls)
	case 1:
		st = sprintf("Compute the area enclosed between the curves $y = %s$ and $y = %s$.", ps, ls)
	case 2:
		st = sprintf("The line $y = %s$ cuts the parabola $y = %s$ in two points. What is the area of the region between them?", ls, ps)
	default:
		st = sprintf("%s shades the region enclosed by $y = %s$ and $y = %s$. How large is the shaded area?", g.name(), ps, ls)
	}
	if !A.isInt() && g.chance(0.5) {
		st += " Express your answer as a common fraction."
	}
	diff := polyTeX([]int64{-k * p * qq, k * (p + qq), -k}, "x")
	w := sprintf("The curves meet where $%s = %s$, i.e. $%s = 0$, at $x = %d$ and $x = %d$; between these the line lies above the parabola. The area is $\\int_{%d}^{%d} \\left(%s\\right)dx = %d\\int_{%d}^{%d} (x - %s)(%d - x)\\,dx = %d \\cdot \\frac{(%d - %s)^3}{6} = %s$.",
		ps, ls, polyTeX([]int64{k * p * qq, -k * (p + qq), k}, "x"), p, qq, p, qq, diff, k, p, qq, paren(p), qq, k, qq, paren(p), A.tex())
	w = strings.ReplaceAll(w, " = 1\\int", " = \\int")
	w = strings.ReplaceAll(w, "= 1 \\cdot \\frac", "= \\frac")
	return st, w, A.tex()
}
