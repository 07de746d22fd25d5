package stats

import "math"

// Proportion is k successes of n trials with its 95% Wilson interval and
// the exact two-sided binomial p-value against 0.5 (chance for a
// two-way choice). With n = 0 every float is NaN.
type Proportion struct {
	K, N      int
	P, Lo, Hi float64
	PValue    float64
}

// Prop returns k of n as a Proportion.
func Prop(k, n int) Proportion {
	pr := Proportion{K: k, N: n, P: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), PValue: math.NaN()}
	if n <= 0 {
		return pr
	}
	pr.P = float64(k) / float64(n)
	pr.Lo, pr.Hi = Wilson(pr.P, n, Z95)
	pr.PValue = BinomTest(k, n, 0.5)
	return pr
}

// Preference results of Majority and Prefer.
const (
	PreferTie = 0
	PreferA   = 1
	PreferB   = 2
)

// Majority is the verdict of votes for A against votes for B: a tie when
// the margin |a − b| is at most tieMargin (paper App. D.4: five votes, a
// tie at a margin of at most one, so 3–2 is a tie and 4–1 is not), else
// the side with more votes.
func Majority(a, b, tieMargin int) int {
	switch d := a - b; {
	case d > tieMargin:
		return PreferA
	case -d > tieMargin:
		return PreferB
	}
	return PreferTie
}

// Prefer compares two scores: a tie when they differ by at most margin
// (and when either is NaN), else the higher one. The ordinal judge's
// preference between two candidates is Prefer of their 0–100 scores.
func Prefer(a, b, margin float64) int {
	switch d := a - b; {
	case math.IsNaN(d) || math.Abs(d) <= margin:
		return PreferTie
	case d > 0:
		return PreferA
	}
	return PreferB
}
