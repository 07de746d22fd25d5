// Package stats holds the small statistics the studies and the report
// use: the Wilson score interval of a proportion and the exact two-sided
// binomial test (paper App. D.4, Table 6), and the Pearson and Spearman
// correlations with average ranks (App. D.3 sensitivity, the MTEB
// comparison, the Swiss-tournament studies).
//
// All are checked against golden values from SciPy (testdata/golden.json,
// made by testdata/golden.py; see there). The package is pure.
package stats

import "math"

// Z95 is the standard normal quantile Φ⁻¹(0.975) of a 95% interval.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval of a proportion p observed over
// n trials at normal quantile z (Z95 for 95%):
//
//	(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)
//
// p need not be k/n for an integer k: the studies pass a mean agreement
// with half-points in it, as the paper does. n ≤ 0 gives NaN, NaN.
func Wilson(p float64, n int, z float64) (lo, hi float64) {
	if n <= 0 || math.IsNaN(p) {
		return math.NaN(), math.NaN()
	}
	nf := float64(n)
	z2 := z * z
	den := 1 + z2/nf
	centre := p + z2/(2*nf)
	half := z * math.Sqrt(math.Max(0, p*(1-p)/nf+z2/(4*nf*nf)))
	lo, hi = (centre-half)/den, (centre+half)/den
	return math.Max(0, lo), math.Min(1, hi)
}

// BinomPMF is P(X = k) for X ~ Binomial(n, p).
func BinomPMF(k, n int, p float64) float64 {
	switch {
	case k < 0 || k > n:
		return 0
	case p == 0:
		if k == 0 {
			return 1
		}
		return 0
	case p == 1:
		if k == n {
			return 1
		}
		return 0
	}
	lc := lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
	return math.Exp(lc + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

func lgamma(x int) float64 {
	v, _ := math.Lgamma(float64(x))
	return v
}

// BinomTest is the exact two-sided binomial test of k successes in n
// trials against success probability p: the probability, under p, of every
// outcome no more likely than k. It is SciPy's binomtest(k, n, p).pvalue
// (alternative='two-sided'), including its relative tolerance of 1e-7 when
// comparing likelihoods, so outcomes as likely as k up to round-off count.
// n ≤ 0, k outside [0, n] or p outside [0, 1] give NaN.
func BinomTest(k, n int, p float64) float64 {
	if n <= 0 || k < 0 || k > n || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	if float64(k) == p*float64(n) {
		return 1
	}
	d := BinomPMF(k, n, p) * (1 + 1e-7)
	// The pmf is unimodal, so the outcomes with pmf ≤ d are two tails:
	// sum each from its end inwards, small terms first.
	var sum float64
	for i := 0; i <= n; i++ {
		v := BinomPMF(i, n, p)
		if v > d {
			break
		}
		sum += v
	}
	for i := n; i >= 0; i-- {
		v := BinomPMF(i, n, p)
		if v > d {
			break
		}
		sum += v
	}
	// When every outcome is as unlikely as k (no mode above d), the two
	// walks counted everything twice.
	return math.Min(1, sum)
}
