package schedule

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/saber-math/saber/lib/swiss"
)

// ForecastNoise is the judge noise of Matches' simulated judge for the
// adaptive schedulers: the logistic scale, in units of the latent N(0, 1)
// spread, at which Swiss R = 20 over 150 candidates has the paper's ~700
// inversions against exhaustive judging (`saber study scheduling`).
const ForecastNoise = 0.39

// Matches is how many comparisons a tournament of n candidates makes in
// at most rounds rounds under c, for a forecast before any judge has
// answered. The Swiss rule's count is swiss.Matches' (coin-flip winners:
// its count hardly depends on who wins). An adaptive scheduler's count
// depends on when its ranking settles, so it is played against a
// simulated judge of seeded latent scores at ForecastNoise, the mean of
// a few such tournaments rounded up: an estimate, not a bound.
func Matches(c Config, n, rounds int, seed uint64) (int, error) {
	if c.Kind == "" || c.Kind == Swiss {
		return swiss.Matches(n, rounds, seed)
	}
	const trials = 4
	total := 0
	for k := range trials {
		rng := rand.New(rand.NewPCG(seed, uint64(k)<<32|1))
		latent := make([]float64, n)
		for i := range latent {
			latent[i] = rng.NormFloat64()
		}
		t, err := New(c, n, func(round int) *rand.Rand { return rand.New(rand.NewPCG(seed^uint64(k+1), uint64(round))) })
		if err != nil {
			return 0, fmt.Errorf("schedule: forecast of %s: %w", c.Kind, err)
		}
		err = Run(t, rounds, func(m swiss.Match) int {
			if rng.Float64() < 1/(1+math.Exp((latent[m.Second]-latent[m.First])/ForecastNoise)) {
				return m.First
			}
			return m.Second
		})
		if err != nil {
			return 0, fmt.Errorf("schedule: forecast of %s: %w", c.Kind, err)
		}
		total += len(t.Judgments())
	}
	return (total + trials - 1) / trials, nil
}
