// Package swisssim simulates the judged tournament of SPEC §3 with a known
// truth, to measure what a schedule recovers (paper D.2): candidates get
// latent scores, a simulated judge prefers a over b with probability
// σ((s_a − s_b)/noise), and the Bradley–Terry ranking of the judgments is
// compared with the latent order. It also provides the baseline the paper
// compares Swiss scheduling with — random pairs without repeats — and
// inversions, a rank-agreement measure beside lib/stats' Spearman ρ.
//
// Pure: no I/O, and every random draw comes from a generator the caller
// passes in, or, in RunTrial, from lib/seed keyed by the trial.
package swisssim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/stats"
	"github.com/saber-math/saber/lib/swiss"
)

// Latent returns n latent relevance scores drawn i.i.d. from N(0, 1).
func Latent(n int, rng *rand.Rand) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

// Judge is a simulated pairwise judge over candidates with known latent
// Scores: a beats b with probability σ((s_a − s_b)/Noise), and with
// probability InvalidRate it gives no usable answer. Noise 0 is a perfect
// judge (the higher score wins; a tie is a coin flip). Not safe for
// concurrent use: it draws from Rng.
type Judge struct {
	Scores      []float64
	Noise       float64
	InvalidRate float64
	Rng         *rand.Rand
}

// Prefer returns the winner of a against b, or swiss.Invalid.
func (j *Judge) Prefer(a, b int) int {
	if j.InvalidRate > 0 && j.Rng.Float64() < j.InvalidRate {
		return swiss.Invalid
	}
	d := j.Scores[a] - j.Scores[b]
	var p float64
	switch {
	case j.Noise > 0:
		p = 1 / (1 + math.Exp(-d/j.Noise))
	case d > 0:
		p = 1
	case d < 0:
		p = 0
	default:
		p = 0.5
	}
	// Draw even when p is 0 or 1 so that the stream of draws does not
	// depend on the scores.
	if j.Rng.Float64() < p {
		return a
	}
	return b
}

// Decide is Prefer for a scheduled match, as a swiss.Judge. The sample order
// does not matter to this judge: it has no position bias.
func (j *Judge) Decide(m swiss.Match) int { return j.Prefer(m.First, m.Second) }

// Comparisons turns judgments into Bradley–Terry input, dropping the
// invalid ones (SPEC: never counted as a win).
func Comparisons(js []swiss.Judgment) []bt.Comparison {
	out := make([]bt.Comparison, 0, len(js))
	for _, j := range js {
		switch j.Winner {
		case swiss.Invalid:
		case j.First:
			out = append(out, bt.Comparison{Winner: j.First, Loser: j.Second})
		default:
			out = append(out, bt.Comparison{Winner: j.Second, Loser: j.First})
		}
	}
	return out
}

// Swiss runs a Swiss tournament of len(judge.Scores) candidates for rounds
// rounds and returns it; its Judgments are the data.
func Swiss(rounds int, rnd swiss.RoundRand, judge *Judge) (*swiss.Tournament, error) {
	t, err := swiss.New(len(judge.Scores), rnd)
	if err != nil {
		return nil, err
	}
	if err := t.Run(rounds, judge.Decide); err != nil {
		return nil, fmt.Errorf("swisssim: swiss tournament: %w", err)
	}
	return t, nil
}

// Random judges m distinct pairs drawn uniformly from all n(n−1)/2 (the
// paper's random-scheduling baseline, without repeats), Sample 1 by a coin,
// and returns the judgments in draw order with Round 0. It is an error for
// m to exceed the number of pairs.
func Random(m int, rng *rand.Rand, judge *Judge) ([]swiss.Judgment, error) {
	n := len(judge.Scores)
	all := n * (n - 1) / 2
	if m < 0 || m > all {
		return nil, fmt.Errorf("swisssim: %d random pairs of %d candidates: only %d exist", m, n, all)
	}
	// A partial Fisher–Yates over pair indices, the pairs decoded lazily,
	// so m ≪ n² costs O(m) memory.
	swapped := make(map[int]int, m)
	at := func(k int) int {
		if v, ok := swapped[k]; ok {
			return v
		}
		return k
	}
	out := make([]swiss.Judgment, 0, m)
	for k := range m {
		r := k + rng.IntN(all-k)
		p := at(r)
		swapped[r] = at(k)
		a, b := decodePair(p, n)
		if rng.IntN(2) == 1 {
			a, b = b, a
		}
		match := swiss.Match{First: a, Second: b}
		out = append(out, swiss.Judgment{Match: match, Winner: judge.Decide(match)})
	}
	return out, nil
}

// decodePair maps p ∈ [0, n(n−1)/2) to the p-th pair (a, b), a < b, in
// row-major order of the upper triangle.
func decodePair(p, n int) (int, int) {
	a := 0
	for row := n - 1; p >= row; row-- {
		p -= row
		a++
	}
	return a, a + 1 + p
}

// Exhaustive judges every pair once, Sample 1 by a coin (the paper's
// reference ranking of D.2).
func Exhaustive(rng *rand.Rand, judge *Judge) []swiss.Judgment {
	n := len(judge.Scores)
	out := make([]swiss.Judgment, 0, n*(n-1)/2)
	for a := range n {
		for b := a + 1; b < n; b++ {
			x, y := a, b
			if rng.IntN(2) == 1 {
				x, y = y, x
			}
			match := swiss.Match{First: x, Second: y}
			out = append(out, swiss.Judgment{Match: match, Winner: judge.Decide(match)})
		}
	}
	return out
}

// Inversions counts the pairs that x and y order strictly oppositely
// (pairs tied in either are not inversions). O(n²), which is nothing at
// n = 150.
func Inversions(x, y []float64) int {
	if len(x) != len(y) {
		panic(fmt.Sprintf("swisssim: Inversions of %d and %d values", len(x), len(y)))
	}
	inv := 0
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if (x[i]-x[j])*(y[i]-y[j]) < 0 {
				inv++
			}
		}
	}
	return inv
}

// Config is one simulated query.
type Config struct {
	N           int     // candidates (paper: 150)
	Rounds      int     // Swiss rounds R (paper: 20)
	Noise       float64 // judge noise, in units of the latent N(0, 1) scale
	InvalidRate float64 // share of judgments without a usable answer
	Lambda      float64 // Bradley–Terry ridge; 0 means bt.DefaultLambda
	// Run and Key seed everything (latent scores, judge, Swiss rounds,
	// random baseline) through lib/seed, so trials with different keys are
	// independent and each is reproducible.
	Run uint64
	Key string
}

// Outcome is how well one schedule's Bradley–Terry ranking recovers the
// latent order.
type Outcome struct {
	Comparisons int     // judgments made, invalid included
	Spearman    float64 // ρ between fitted θ and latent scores
	Inversions  int     // pairs the fit orders against the latent scores
}

// Trial is one simulated query, scheduled both ways with the same number
// of judgments.
type Trial struct {
	Swiss, Random Outcome
}

// RunTrial draws latent scores, runs a Swiss tournament, then judges as
// many random distinct pairs with an independent judge stream of the same
// noise, fits Bradley–Terry to each, and scores both against the latent
// order.
func RunTrial(c Config) (Trial, error) {
	if c.N < 2 || c.Rounds < 1 {
		return Trial{}, fmt.Errorf("swisssim: trial %q: need N ≥ 2 and Rounds ≥ 1, have %d and %d", c.Key, c.N, c.Rounds)
	}
	scores := Latent(c.N, seed.Rand(c.Run, "swisssim/latent", c.Key))
	judge := func(stream string) *Judge {
		return &Judge{Scores: scores, Noise: c.Noise, InvalidRate: c.InvalidRate, Rng: seed.Rand(c.Run, "swisssim/judge/"+stream, c.Key)}
	}
	t, err := Swiss(c.Rounds, swiss.SeedRounds(c.Run, "swisssim/swiss", c.Key), judge("swiss"))
	if err != nil {
		return Trial{}, fmt.Errorf("swisssim: trial %q: %w", c.Key, err)
	}
	sw := t.Judgments()
	rnd, err := Random(len(sw), seed.Rand(c.Run, "swisssim/random", c.Key), judge("random"))
	if err != nil {
		return Trial{}, fmt.Errorf("swisssim: trial %q: %w", c.Key, err)
	}
	var tr Trial
	for _, s := range []struct {
		js  []swiss.Judgment
		out *Outcome
	}{{sw, &tr.Swiss}, {rnd, &tr.Random}} {
		o, err := Score(scores, s.js, c.Lambda)
		if err != nil {
			return Trial{}, fmt.Errorf("swisssim: trial %q: %w", c.Key, err)
		}
		*s.out = o
	}
	return tr, nil
}

// Score fits Bradley–Terry to judgments over len(scores) candidates and
// compares the fitted θ with scores.
func Score(scores []float64, js []swiss.Judgment, lambda float64) (Outcome, error) {
	fit, err := bt.Fit(len(scores), Comparisons(js), bt.Options{Lambda: lambda})
	if err != nil {
		return Outcome{}, fmt.Errorf("fit of %d judgments: %w", len(js), err)
	}
	return Outcome{
		Comparisons: len(js),
		Spearman:    stats.Spearman(fit.Theta, scores),
		Inversions:  Inversions(fit.Theta, scores),
	}, nil
}
