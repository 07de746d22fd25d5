// Package swiss schedules the Swiss-style tournament of SPEC §3 (paper B.3):
// which candidates the judge compares in each round, given the judgments of
// the rounds before.
//
// Pairing. Every round: shuffle the candidates with the round's generator,
// stable-sort them by wins ascending (the shuffle only orders equal win
// counts, so no candidate keeps a fixed place among its equals across the
// tournament), then walk the order: the lowest unpaired candidate takes the
// unpaired candidate it has not met with the closest win count, the first
// in the order on ties; if there is none it sits out the round (a bye).
// Because the order is sorted and everything before the current candidate
// is already placed, "closest win count, first on ties" is simply the first
// unpaired, unmet candidate after it. Round 1 is the same procedure with all
// wins 0 and nobody met, which is exactly the SPEC's seeded random perfect
// pairing: shuffle, pair neighbours, the last one sits out when n is odd.
// No pair is ever scheduled twice.
//
// Sample order. After pairing, one coin per match, in match order, decides
// which candidate the judge sees as Sample 1 (Match.First), so position bias
// is spread evenly and the order is part of the recorded judgment.
//
// Randomness and replay. Each round draws from its own generator, obtained
// from a RoundRand function of the round number (SeedRounds derives them
// from lib/seed). The state entering round r is a function of the
// judgments of rounds 1..r−1 only, and round r's generator does not depend
// on how many numbers earlier rounds drew, so a driver that checkpoints
// after each round rebuilds the exact same tournament with Replay from the
// seed and the recorded judgments, and pairs the next round identically.
//
// Judgments. A judgment names the winner or is Invalid (the judge gave no
// usable answer). An invalid judgment counts as played — the pair is never
// scheduled again — but is a win for nobody.
//
// The package is pure: no I/O; all randomness comes from RoundRand.
//
// docs/algorithms.md#relevance-ratings-judge-rate specifies the judge
// stage that plays these tournaments: its rounds, checkpoints, and the schedulers beside this one.
package swiss

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/saber-math/saber/lib/seed"
)

// DefaultRounds is R of SPEC §3 and paper D.2.
const DefaultRounds = 20

// Invalid is Judgment.Winner for a judgment without a usable answer.
const Invalid = -1

// RoundRand returns the generator for round r (1-based). It must return a
// generator in the same state for the same r on every call and in every
// process: that is what makes Replay exact.
type RoundRand func(round int) *rand.Rand

// SeedRounds returns the RoundRand whose round r generator is
// seed.Rand(run, stage, key + "/round=" + r), so each query's tournament,
// and each of its rounds, has a seed of its own that no shard layout or
// earlier draw can shift.
func SeedRounds(run uint64, stage, key string) RoundRand {
	return func(round int) *rand.Rand {
		return seed.Rand(run, stage, key+"/round="+strconv.Itoa(round))
	}
}

// Match is one scheduled comparison: First is shown to the judge as
// Sample 1, Second as Sample 2.
type Match struct {
	Round         int
	First, Second int
}

// Judgment is the outcome of a Match: Winner is First, Second or Invalid.
type Judgment struct {
	Match
	Winner int
}

// Round is the schedule of one round.
type Round struct {
	// Number is the 1-based round number.
	Number int
	// Matches in the order they were paired (lowest-ranked first).
	Matches []Match
	// Byes are the candidates that sit out, ascending.
	Byes []int
}

// Tournament is the state of one tournament between candidates 0..n−1:
// the rounds completed so far and what they decided. The zero value is not
// usable; build one with New or Replay. Not safe for concurrent use.
type Tournament struct {
	n       int
	rnd     RoundRand
	wins    []int
	played  []int
	byes    []int
	met     []bool // n×n, symmetric
	done    int    // completed rounds
	pending *Round // the paired, not yet recorded round done+1
	history []Judgment
}

// New returns a tournament of n candidates before round 1.
func New(n int, rnd RoundRand) (*Tournament, error) {
	if n < 0 {
		return nil, fmt.Errorf("swiss: new tournament of %d candidates: negative count", n)
	}
	if rnd == nil {
		return nil, fmt.Errorf("swiss: new tournament of %d candidates: nil RoundRand", n)
	}
	return &Tournament{
		n:      n,
		rnd:    rnd,
		wins:   make([]int, n),
		played: make([]int, n),
		byes:   make([]int, n),
		met:    make([]bool, n*n),
	}, nil
}

// Replay rebuilds the tournament after its first `rounds` rounds from the
// same RoundRand and the judgments recorded for them (in any order). Each
// round is re-paired and must match its judgments exactly — same pairs, same
// Sample 1 — so a changed seed, a changed n or a lost judgment is an error
// rather than a silently different tournament. A round in which nobody
// could be paired has no judgments; that is why the number of completed
// rounds is given rather than read off the judgments.
func Replay(n int, rnd RoundRand, rounds int, judgments []Judgment) (*Tournament, error) {
	t, err := New(n, rnd)
	if err != nil {
		return nil, err
	}
	if rounds < 0 {
		return nil, fmt.Errorf("swiss: replay of %d rounds: negative count", rounds)
	}
	byRound := make([][]Judgment, rounds+1)
	for _, j := range judgments {
		if j.Round < 1 || j.Round > rounds {
			return nil, fmt.Errorf("swiss: replay of %d rounds: judgment %d vs %d in round %d", rounds, j.First, j.Second, j.Round)
		}
		byRound[j.Round] = append(byRound[j.Round], j)
	}
	for r := 1; r <= rounds; r++ {
		t.Pair()
		if err := t.record(byRound[r]); err != nil {
			return nil, fmt.Errorf("swiss: replay of %d rounds: %w", rounds, err)
		}
	}
	return t, nil
}

// N is the number of candidates.
func (t *Tournament) N() int { return t.n }

// Completed is the number of rounds recorded so far.
func (t *Tournament) Completed() int { return t.done }

// Pair schedules the next round, Completed()+1. Until that round is
// recorded, Pair returns the same schedule again (a driver that crashed
// mid-round re-pairs it identically). The returned Round is a copy.
func (t *Tournament) Pair() Round {
	if t.pending == nil {
		r := t.pair(t.done + 1)
		t.pending = &r
	}
	return Round{
		Number:  t.pending.Number,
		Matches: slices.Clone(t.pending.Matches),
		Byes:    slices.Clone(t.pending.Byes),
	}
}

func (t *Tournament) pair(round int) Round {
	rng := t.rnd(round)
	order := make([]int, t.n)
	for i := range order {
		order[i] = i
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(t.wins[a], t.wins[b]) })

	r := Round{Number: round}
	placed := make([]bool, t.n)
	for k, a := range order {
		if placed[a] {
			continue
		}
		placed[a] = true
		partner := -1
		for _, b := range order[k+1:] {
			if !placed[b] && !t.met[a*t.n+b] {
				partner = b
				break
			}
		}
		if partner < 0 {
			r.Byes = append(r.Byes, a)
			continue
		}
		placed[partner] = true
		r.Matches = append(r.Matches, Match{Round: round, First: a, Second: partner})
	}
	// The coins come after the whole pairing, one per match in order, so
	// the pairing's draws (n−1 for the shuffle) never depend on them.
	for i := range r.Matches {
		if rng.IntN(2) == 1 {
			m := &r.Matches[i]
			m.First, m.Second = m.Second, m.First
		}
	}
	slices.Sort(r.Byes)
	return r
}

// Record completes the pending round with one judgment per match, in any
// order. It pairs the round first if Pair was not called. Nothing is
// recorded unless every judgment is valid: it must name a scheduled match of
// this round with the same Sample 1, each match once, and a Winner that is
// First, Second or Invalid.
func (t *Tournament) Record(judgments []Judgment) error {
	if err := t.record(judgments); err != nil {
		return fmt.Errorf("swiss: %w", err)
	}
	return nil
}

func (t *Tournament) record(judgments []Judgment) error {
	t.Pair()
	r := t.pending
	if len(judgments) != len(r.Matches) {
		return fmt.Errorf("round %d: %d judgments for %d matches", r.Number, len(judgments), len(r.Matches))
	}
	index := make(map[Match]int, len(r.Matches))
	for i, m := range r.Matches {
		index[m] = i
	}
	seen := make([]bool, len(r.Matches))
	for _, j := range judgments {
		i, ok := index[j.Match]
		if !ok {
			return fmt.Errorf("round %d: judgment of %d (Sample 1) vs %d in round %d was not scheduled", r.Number, j.First, j.Second, j.Round)
		}
		if seen[i] {
			return fmt.Errorf("round %d: two judgments of %d vs %d", r.Number, j.First, j.Second)
		}
		seen[i] = true
		if j.Winner != j.First && j.Winner != j.Second && j.Winner != Invalid {
			return fmt.Errorf("round %d: judgment of %d vs %d names winner %d", r.Number, j.First, j.Second, j.Winner)
		}
	}
	for _, j := range judgments {
		a, b := j.First, j.Second
		t.met[a*t.n+b], t.met[b*t.n+a] = true, true
		t.played[a]++
		t.played[b]++
		if j.Winner != Invalid {
			t.wins[j.Winner]++
		}
	}
	for _, b := range r.Byes {
		t.byes[b]++
	}
	// History in match order, whatever order the caller gave.
	sorted := make([]Judgment, len(judgments))
	for _, j := range judgments {
		sorted[index[j.Match]] = j
	}
	t.history = append(t.history, sorted...)
	t.done = r.Number
	t.pending = nil
	return nil
}

// Wins returns each candidate's win count (invalid judgments excluded).
func (t *Tournament) Wins() []int { return slices.Clone(t.wins) }

// Played returns each candidate's number of judged matches, invalid ones
// included.
func (t *Tournament) Played() []int { return slices.Clone(t.played) }

// Byes returns how many recorded rounds each candidate sat out.
func (t *Tournament) Byes() []int { return slices.Clone(t.byes) }

// Met reports whether a and b have been judged against each other.
func (t *Tournament) Met(a, b int) bool { return t.met[a*t.n+b] }

// Judgments returns every recorded judgment, round by round, each round in
// match order.
func (t *Tournament) Judgments() []Judgment { return slices.Clone(t.history) }

// Judge decides a match: it returns m.First, m.Second or Invalid.
type Judge func(m Match) int

// Run plays `rounds` more rounds from the tournament's current state,
// asking judge for every match. It is the whole loop of a driver without
// checkpoints: simulations and tests use it.
func (t *Tournament) Run(rounds int, judge Judge) error {
	for range rounds {
		r := t.Pair()
		js := make([]Judgment, len(r.Matches))
		for i, m := range r.Matches {
			js[i] = Judgment{Match: m, Winner: judge(m)}
		}
		if err := t.Record(js); err != nil {
			return err
		}
	}
	return nil
}
