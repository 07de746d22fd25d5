package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Pearson returns the Pearson product-moment correlation of x and y,
//
//	Σ(x_i − x̄)(y_i − ȳ) / √(Σ(x_i − x̄)² · Σ(y_i − ȳ)²),
//
// SciPy's pearsonr(x, y).statistic. It is NaN when there are fewer than two
// values or either side is constant (the correlation is undefined, and a
// NaN shows in a table where a 0 would pass for "no correlation"), and NaN
// when any value is NaN. x and y must have the same length: a mismatch is a
// programming error, so it panics.
func Pearson(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("stats: Pearson of %d and %d values", len(x), len(y)))
	}
	if len(x) < 2 {
		return math.NaN()
	}
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// Ranks returns the 1-based ranks of x in ascending order, with ties
// sharing the average of the ranks they span. Which values tie is decided
// in sorted order: a run of values each within tol of the one before it
// (equal, or differing by at most tol) is one tie, so a run can chain
// across more than tol from its first value to its last — ties are
// transitive, as ranks must be.
//
// tol = 0 ties only equal values: scipy.stats.rankdata(x, method="average").
// A positive tol is for values known only to round-off, such as fitted
// Bradley–Terry strengths, where two candidates the data cannot tell apart
// should tie rather than be ordered by noise.
//
// If any value is NaN every rank is NaN, as rankdata's default
// nan_policy="propagate" gives: a NaN has no place in an order. (The sort
// uses cmp.Compare, which orders NaN consistently, so it is never given an
// inconsistent comparison either way.)
func Ranks(x []float64, tol float64) []float64 {
	r := make([]float64, len(x))
	if slices.ContainsFunc(x, math.IsNaN) {
		for i := range r {
			r[i] = math.NaN()
		}
		return r
	}
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	for i := 0; i < len(idx); {
		j := i + 1
		// The == also ties equal infinities, whose difference is NaN.
		for j < len(idx) && (x[idx[j]] == x[idx[j-1]] || x[idx[j]]-x[idx[j-1]] <= tol) {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// Spearman returns Spearman's rank correlation ρ of x and y: the Pearson
// correlation of their ranks, equal values sharing their average rank —
// scipy.stats.spearmanr(x, y).statistic. Like Pearson it is NaN for fewer
// than two values, a constant side or a NaN value, and panics on unequal
// lengths. For ties within a tolerance, use
// Pearson(Ranks(x, tol), Ranks(y, tol)).
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("stats: Spearman of %d and %d values", len(x), len(y)))
	}
	return Pearson(Ranks(x, 0), Ranks(y, 0))
}
