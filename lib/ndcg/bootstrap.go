package ndcg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Interval is a mean with a confidence interval.
type Interval struct {
	Mean   float64 // the mean of the values themselves
	Lo, Hi float64 // the interval's bounds
}

// BootstrapOptions are the number of resamples and the confidence level;
// the zero value is SPEC §3's 1,000 resamples and 95%.
type BootstrapOptions struct {
	Resamples int     // 0 means 1000
	Level     float64 // in (0, 1); 0 means 0.95
}

// Bootstrap returns the mean of values (one per query) and its percentile
// bootstrap interval: Resamples times, draw len(values) values uniformly
// with replacement (rng.IntN) and take their mean; the interval is the
// (1 − Level)/2 and (1 + Level)/2 percentiles of those means, by
// Percentile (numpy's default, "linear"). For the default 95% the
// percentiles are exactly 2.5 and 97.5, as in
// numpy.percentile(means, [2.5, 97.5]).
//
// The result depends only on values, the options and the state of rng: the
// same seed gives the same interval. Callers seed rng per run and measure
// (lib/seed.Rand), never per shard.
func Bootstrap(values []float64, opt BootstrapOptions, rng *rand.Rand) (Interval, error) {
	if opt.Resamples == 0 {
		opt.Resamples = 1000
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	switch {
	case len(values) == 0:
		return Interval{}, fmt.Errorf("ndcg: bootstrap of no values")
	case opt.Resamples < 0:
		return Interval{}, fmt.Errorf("ndcg: bootstrap with %d resamples", opt.Resamples)
	case !(opt.Level > 0 && opt.Level < 1):
		return Interval{}, fmt.Errorf("ndcg: bootstrap level %v, want a value in (0, 1)", opt.Level)
	case rng == nil:
		return Interval{}, fmt.Errorf("ndcg: bootstrap without a random generator")
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Interval{}, fmt.Errorf("ndcg: bootstrap value %d is %v", i, v)
		}
	}
	mean, _ := Mean(values)
	n := len(values)
	means := make([]float64, opt.Resamples)
	for b := range means {
		sum := 0.0
		for range n {
			sum += values[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	// In percent, as numpy takes them: 100·0.95 is exactly 95, so the
	// default gives exactly 2.5 and 97.5.
	tail := (100 - 100*opt.Level) / 2
	return Interval{Mean: mean, Lo: Percentile(means, tail), Hi: Percentile(means, 100-tail)}, nil
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted, which
// must be sorted ascending and not empty, as numpy.percentile does by
// default (method "linear", Hyndman & Fan's type 7): with q = p/100 and the
// virtual index h = (n − 1)·q, the value a[⌊h⌋] + (h − ⌊h⌋)·(a[⌊h⌋+1] −
// a[⌊h⌋]), computed with numpy's _lerp, which for a weight ≥ 0.5
// interpolates back from the upper value instead, so that results agree
// with numpy to the last bit (TestPercentileGolden).
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	h := float64(n-1) * (p / 100)
	switch {
	case h >= float64(n-1):
		return sorted[n-1]
	case h < 0:
		return sorted[0]
	}
	lo := math.Floor(h)
	a, b := sorted[int(lo)], sorted[int(lo)+1]
	t := h - lo
	diff := b - a
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}
