package swiss

import "math/rand/v2"

// Matches is how many comparisons a tournament of n candidates makes in
// rounds rounds, for a forecast before any judge has answered: the
// schedule is played with seeded coin-flip winners. Pairing depends on
// the win counts, so a real judge can make a few more or fewer sit out;
// the count is floor(n/2)·rounds minus the rounds' byes beyond the odd
// one, which coin flips reproduce closely.
func Matches(n, rounds int, seed uint64) (int, error) {
	t, err := New(n, func(round int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(round))) })
	if err != nil {
		return 0, err
	}
	coin := rand.New(rand.NewPCG(seed, 1<<32))
	count := 0
	err = t.Run(rounds, func(m Match) int {
		count++
		if coin.IntN(2) == 0 {
			return m.First
		}
		return m.Second
	})
	return count, err
}
