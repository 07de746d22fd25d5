package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/swiss"
)

// noisyJudge decides a match between candidates with latent scores i/n by
// a seeded BT coin at noise 0.3, drawn from the match itself, so the same
// match gets the same verdict whatever was asked before (as the LLM cache
// makes it), with one match in 40 invalid.
func noisyJudge(n int) swiss.Judge {
	return func(m swiss.Match) int {
		r := rand.New(rand.NewPCG(uint64(m.First)<<32|uint64(m.Second), 7))
		if r.IntN(40) == 0 {
			return swiss.Invalid
		}
		d := float64(m.First-m.Second) / float64(n)
		if r.Float64() < 1/(1+math.Exp(-d/0.3)) {
			return m.First
		}
		return m.Second
	}
}

func rounds(seed uint64) swiss.RoundRand {
	return func(r int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(r))) }
}

func play(t *testing.T, c Config, n, r int) Tournament {
	t.Helper()
	tr, err := New(c, n, rounds(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(tr, r, noisyJudge(n)); err != nil {
		t.Fatal(err)
	}
	return tr
}

func scheduleHash(js []swiss.Judgment) string {
	h := sha256.New()
	for _, j := range js {
		fmt.Fprintf(h, "%d %d %d %d\n", j.Round, j.First, j.Second, j.Winner)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSwissDefaultUnchanged pins the paper's schedule: the default
// scheduler (Kind "" or swiss) is lib/swiss's tournament, match for match,
// and its 150-candidate, 20-round schedule under a fixed judge has the
// hash it had before the scheduler interface existed.
func TestSwissDefaultUnchanged(t *testing.T) {
	const pinned = "6269532289a545bda37cbec837e8122ef2bf2f5c920a5aa05e0808f5d346b115"
	ref, err := swiss.New(150, rounds(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Run(20, noisyJudge(150)); err != nil {
		t.Fatal(err)
	}
	want := scheduleHash(ref.Judgments())
	for _, kind := range []string{"", Swiss} {
		got := play(t, Config{Kind: kind}, 150, 20)
		if h := scheduleHash(got.Judgments()); h != want {
			t.Errorf("kind %q: schedule %s, lib/swiss %s", kind, h, want)
		}
		if got.Stopped() {
			t.Errorf("kind %q: a Swiss tournament stopped", kind)
		}
	}
	if want != pinned {
		t.Errorf("lib/swiss schedule %s, pinned %s: the default schedule changed", want, pinned)
	}
}

// TestReplayResumesAnywhere: under every scheduler, a tournament rebuilt
// by Replay from its first r rounds and played on gives exactly the
// uninterrupted judgments, for every r, including after it stopped.
func TestReplayResumesAnywhere(t *testing.T) {
	const n, R = 40, 14
	for _, c := range []Config{
		{Kind: Swiss},
		{Kind: SwissAdaptive, TopK: 5, StableRounds: 2, MinRounds: 4, Epsilon: 0.01},
		{Kind: Active, TopK: 5, StableRounds: 3, MinRounds: 8, SwissRounds: 3, Matches: 8, PerCandidate: 2},
		{Kind: Refine, SwissRounds: 2, Games: 7, Window: 6, TopWeight: 1},
		{Kind: SwissTop, SwissRounds: 2, Games: 7, TopShare: 0.5},
	} {
		full := play(t, c, n, R)
		want := full.Judgments()
		for r := 0; r <= R; r++ {
			var prefix []swiss.Judgment
			for _, j := range want {
				if j.Round <= r {
					prefix = append(prefix, j)
				}
			}
			tr, err := Replay(c, n, rounds(3), r, prefix)
			if err != nil {
				t.Fatalf("%s: replay of %d rounds: %v", c.Kind, r, err)
			}
			if err := Run(tr, R-r, noisyJudge(n)); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tr.Judgments(), want) || tr.Stopped() != full.Stopped() {
				t.Fatalf("%s: resumed after round %d: %d judgments (stopped %v), uninterrupted %d (stopped %v)",
					c.Kind, r, len(tr.Judgments()), tr.Stopped(), len(want), full.Stopped())
			}
		}
		if c.Kind != Swiss && !full.Stopped() {
			t.Errorf("%s: never stopped in %d rounds; the test wants a stop to replay", c.Kind, R)
		}
	}
}

// TestReplayRefusesAChangedRecord: a flipped sample order, a lost judgment
// or another config is an error, not a different tournament.
func TestReplayRefusesAChangedRecord(t *testing.T) {
	c := Config{Kind: Active, TopK: 5, SwissRounds: 2, Matches: 6, StableRounds: 9}
	js := play(t, c, 30, 5).Judgments()
	last := len(js) - 1
	flipped := append([]swiss.Judgment(nil), js...)
	flipped[last].First, flipped[last].Second = flipped[last].Second, flipped[last].First
	for name, tt := range map[string]struct {
		c  Config
		js []swiss.Judgment
	}{
		"flipped": {c, flipped},
		"lost":    {c, js[:last]},
		"config":  {Config{Kind: Active, TopK: 5, SwissRounds: 2, Matches: 5, StableRounds: 9}, js},
	} {
		if _, err := Replay(tt.c, 30, rounds(3), 5, tt.js); err == nil || !strings.Contains(err.Error(), "round") {
			t.Errorf("%s: replay err %v, want one naming the round", name, err)
		}
	}
}

// TestActivePairing: information-driven rounds hold at most Matches
// matches, each candidate in at most PerCandidate of them, never a pair
// met before, and the top of the ranking plays more than the bottom.
func TestActivePairing(t *testing.T) {
	const n, R = 60, 16
	c := Config{Kind: Active, SwissRounds: 4, Matches: 12, PerCandidate: 2, StableRounds: 99}
	tr := play(t, c, n, R)
	met := map[[2]int]bool{}
	perRound := map[int]int{}
	games := make([]int, n)
	for _, j := range tr.Judgments() {
		k := [2]int{min(j.First, j.Second), max(j.First, j.Second)}
		if met[k] {
			t.Fatalf("pair %v scheduled twice", k)
		}
		met[k] = true
		if j.Round > c.SwissRounds {
			perRound[j.Round]++
			games[j.First]++
			games[j.Second]++
		}
	}
	for r := c.SwissRounds + 1; r <= R; r++ {
		if perRound[r] == 0 || perRound[r] > c.Matches {
			t.Errorf("round %d: %d matches, want 1..%d", r, perRound[r], c.Matches)
		}
	}
	// Latent order is the index: the top decile should have played the
	// information-driven rounds far more than the bottom half.
	top, bottom := 0, 0
	for i := range n {
		switch {
		case i >= n-n/10:
			top += games[i]
		case i < n/2:
			bottom += games[i]
		}
	}
	if top <= bottom/5*2 {
		t.Errorf("information-driven games: top 10%% %d, bottom 50%% %d: not weighted to the top", top, bottom)
	}
	// PerCandidate, round by round.
	for r := c.SwissRounds + 1; r <= R; r++ {
		plays := make([]int, n)
		for _, j := range tr.Judgments() {
			if j.Round == r {
				plays[j.First]++
				plays[j.Second]++
			}
		}
		for i, p := range plays {
			if p > c.PerCandidate {
				t.Errorf("round %d: candidate %d in %d matches, want ≤ %d", r, i, p, c.PerCandidate)
			}
		}
	}
}

// TestStoppedRoundsAreEmpty: once stopped, every round has no match and
// Record takes no judgment.
func TestStoppedRoundsAreEmpty(t *testing.T) {
	c := Config{Kind: SwissAdaptive, TopK: 3, StableRounds: 1, MinRounds: 2}
	tr := play(t, c, 20, 12)
	if !tr.Stopped() {
		t.Fatal("never stopped")
	}
	last := 0
	for _, j := range tr.Judgments() {
		last = max(last, j.Round)
	}
	if tr.Completed() != 12 || last >= 12 {
		t.Errorf("completed %d rounds, last judged round %d: want 12 and fewer", tr.Completed(), last)
	}
	if r := tr.Pair(); len(r.Matches) != 0 {
		t.Errorf("round after the stop has %d matches", len(r.Matches))
	}
	if err := tr.Record([]swiss.Judgment{{Match: swiss.Match{Round: 13, First: 0, Second: 1}, Winner: 0}}); err == nil {
		t.Error("a judgment recorded in a stopped round")
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Kind: Active}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mut  func(*Config)
		want string
	}{
		{func(c *Config) { c.Kind = "x" }, "kind"},
		{func(c *Config) { c.TopK = -1 }, "top_k"},
		{func(c *Config) { c.StableRounds = -1 }, "stable_rounds"},
		{func(c *Config) { c.Epsilon = 1 }, "epsilon"},
		{func(c *Config) { c.MinRounds = -3 }, "min_rounds"},
		{func(c *Config) { c.SwissRounds = -1 }, "swiss_rounds"},
		{func(c *Config) { c.Matches = -1 }, "matches"},
		{func(c *Config) { c.PerCandidate = -1 }, "per_candidate"},
		{func(c *Config) { c.Kind, c.Games, c.Window, c.TopWeight = Refine, 0.5, 5, 1 }, "games"},
		{func(c *Config) { c.Kind, c.Games, c.Window, c.TopWeight = Refine, 4, 5, 1 }, "games"}, // < swiss_rounds
		{func(c *Config) { c.Kind, c.Games, c.Window, c.TopWeight = Refine, 9, 0, 1 }, "window"},
		{func(c *Config) { c.Kind, c.Games, c.Window, c.TopWeight = Refine, 9, 5, -1 }, "top_weight"},
		{func(c *Config) { c.Kind, c.Games, c.TopShare = SwissTop, 0.5, 0.5 }, "games"},
		{func(c *Config) { c.Kind, c.Games, c.TopShare = SwissTop, 4, 0.5 }, "games"}, // < swiss_rounds
		{func(c *Config) { c.Kind, c.Games, c.TopShare = SwissTop, 9, 1.5 }, "top_share"},
		{func(c *Config) { c.Kind, c.Games, c.TopShare = SwissTop, 9, -0.5 }, "top_share"},
	} {
		c := ok
		tt.mut(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want one naming %s", c, err, tt.want)
		}
	}
}

func TestTopLoss(t *testing.T) {
	theta := []float64{3, 2, 1, 0}
	if l := TopLoss([]int{0, 1}, theta, 2); l != 0 {
		t.Errorf("the current top 2: loss %v, want 0", l)
	}
	if l := TopLoss([]int{1, 0}, theta, 2); !(l > 0 && l < 1) {
		t.Errorf("top 2 swapped: loss %v, want in (0, 1)", l)
	}
	if l1, l2 := TopLoss([]int{1, 0}, theta, 2), TopLoss([]int{3, 2}, theta, 2); !(l2 > l1) {
		t.Errorf("the bottom two as the top lose %v, a swap %v: want more", l2, l1)
	}
}

// TestRefine: a refine tournament is the same for the same seed and
// another for another seed, never schedules a pair twice nor a candidate
// twice in a round, makes exactly its budget of ⌊Games·n/2⌋ comparisons
// when there are pairs enough (and never more), and once it is spent has
// stopped, with empty rounds after.
func TestRefine(t *testing.T) {
	for _, tt := range []struct {
		name      string
		c         Config
		n, rounds int
		want      int  // comparisons
		wantStop  bool // stopped within the rounds
	}{
		{"defaults", Config{Kind: Refine}, 150, 20, 742, true},
		{"odd n", Config{Kind: Refine, SwissRounds: 3, Games: 6}, 41, 20, 123, true},
		{"budget spent by the Swiss opening", Config{Kind: Refine, SwissRounds: 5, Games: 5}, 40, 20, 100, true},
		{"rounds run out first", Config{Kind: Refine, SwissRounds: 2, Games: 12}, 30, 6, 90, false},
		{"window exhausted", Config{Kind: Refine, SwissRounds: 1, Games: 30, Window: 1}, 20, 20, -1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c.WithDefaults()
			tr := play(t, c, tt.n, tt.rounds)
			js := tr.Judgments()
			if tt.want >= 0 && len(js) != tt.want {
				t.Errorf("%d comparisons, want %d", len(js), tt.want)
			}
			if budget := int(c.Games * float64(tt.n) / 2); len(js) > budget {
				t.Errorf("%d comparisons over the budget %d", len(js), budget)
			}
			if tr.Stopped() != tt.wantStop {
				t.Errorf("stopped %v, want %v", tr.Stopped(), tt.wantStop)
			}
			met := map[[2]int]bool{}
			inRound := map[[2]int]bool{}
			for _, j := range js {
				k := [2]int{min(j.First, j.Second), max(j.First, j.Second)}
				if met[k] {
					t.Fatalf("pair %v scheduled twice", k)
				}
				met[k] = true
				for _, x := range []int{j.First, j.Second} {
					if inRound[[2]int{j.Round, x}] {
						t.Fatalf("round %d: candidate %d plays twice", j.Round, x)
					}
					inRound[[2]int{j.Round, x}] = true
				}
			}
			checkStopAndSeeds(t, tr, c, tt.n, tt.rounds, js)
		})
	}
}

// TestRefinePairsNeighbours: after the Swiss opening, refine pairs
// candidates near each other in its ranking — here the latent order is
// the index — so nearer than the opening's rounds did (random pairing
// would be n/3 apart, more than the opening's).
func TestRefinePairsNeighbours(t *testing.T) {
	const n = 100
	c := Config{Kind: Refine, SwissRounds: 3, Games: 10, Window: 10}.WithDefaults()
	tr := play(t, c, n, 20)
	var swissGap, refineGap, swissN, refineN float64
	for _, j := range tr.Judgments() {
		gap := math.Abs(float64(j.First - j.Second))
		if j.Round <= c.SwissRounds {
			swissGap, swissN = swissGap+gap, swissN+1
		} else {
			refineGap, refineN = refineGap+gap, refineN+1
		}
	}
	if refineN == 0 || !(refineGap/refineN < 0.9*swissGap/swissN) {
		t.Errorf("mean index gap: refine rounds %v (%v games), Swiss rounds %v: want under 90%% of it", refineGap/refineN, refineN, swissGap/swissN)
	}
}

// TestHalfTheCallsCannotMatchSwissInformation is why issue 41's goal (half
// of Swiss R = 20's calls, no more inversions) is out of reach under the
// logistic judge of the scheduling study: a comparison carries Fisher
// information p(1−p) ≤ 1/4 about its two θ, and Swiss R = 20's games over
// 150 candidates at the study's noise already average more than 1/8 — so
// their total exceeds what any schedule of half as many comparisons can
// collect, even were every one an even match.
func TestHalfTheCallsCannotMatchSwissInformation(t *testing.T) {
	const n, noise, trials = 150, ForecastNoise, 4
	for trial := range trials {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		latent := make([]float64, n)
		for i := range latent {
			latent[i] = rng.NormFloat64()
		}
		p := func(a, b int) float64 { return 1 / (1 + math.Exp(-(latent[a]-latent[b])/noise)) }
		tr := play(t, Config{Kind: Swiss}, n, 0)
		if err := Run(tr, 20, func(m swiss.Match) int {
			if rng.Float64() < p(m.First, m.Second) {
				return m.First
			}
			return m.Second
		}); err != nil {
			t.Fatal(err)
		}
		js := tr.Judgments()
		info := 0.0
		for _, j := range js {
			q := p(j.First, j.Second)
			info += q * (1 - q)
		}
		t.Logf("trial %d: %d games, information %.3f a game", trial, len(js), info/float64(len(js)))
		if ceiling := float64(len(js)) / 2 * 0.25; !(info > ceiling) {
			t.Errorf("trial %d: Swiss R=20's %d games carry information %.1f (%.3f a game), half as many at best %.1f",
				trial, len(js), info, info/float64(len(js)), ceiling)
		}
	}
}

// TestSwissTop: a swiss-top tournament is the same for the same seed and
// another for another seed, never schedules a pair twice, makes exactly
// its budget of ⌊Games·n/2⌋ comparisons when there are pairs enough (and
// never more), each round at most a Swiss round's ⌊n/2⌋ and, after the
// opening, exactly that until the budget or the top runs out; after the
// opening only the top ⌈TopShare·n⌉ by wins before the round play; once
// it has stopped, rounds are empty.
func TestSwissTop(t *testing.T) {
	for _, tt := range []struct {
		name      string
		c         Config
		n, rounds int
		want      int  // comparisons
		wantStop  bool // stopped within the rounds
	}{
		{"defaults", Config{Kind: SwissTop}, 150, 20, 742, true},
		{"odd n", Config{Kind: SwissTop, SwissRounds: 3, Games: 6, TopShare: 0.4}, 41, 20, 123, true},
		{"budget spent by the Swiss opening", Config{Kind: SwissTop, SwissRounds: 5, Games: 5}, 40, 20, 100, true},
		{"rounds run out first", Config{Kind: SwissTop, SwissRounds: 2, Games: 12}, 30, 6, 90, false},
		// A top of 4 has 6 pairs: once they have all met, nothing is left.
		{"top exhausted", Config{Kind: SwissTop, SwissRounds: 1, Games: 30, TopShare: 0.2}, 20, 20, -1, true},
		{"the whole field: Swiss by wins", Config{Kind: SwissTop, SwissRounds: 1, Games: 8, TopShare: 1}, 24, 20, 96, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c.WithDefaults()
			tr := play(t, c, tt.n, tt.rounds)
			js := tr.Judgments()
			budget := int(c.Games * float64(tt.n) / 2)
			if tt.want >= 0 && len(js) != tt.want {
				t.Errorf("%d comparisons, want %d", len(js), tt.want)
			}
			if len(js) > budget {
				t.Errorf("%d comparisons over the budget %d", len(js), budget)
			}
			if tr.Stopped() != tt.wantStop {
				t.Errorf("stopped %v, want %v", tr.Stopped(), tt.wantStop)
			}
			met := map[[2]int]bool{}
			perRound := map[int]int{}
			last := 0
			for _, j := range js {
				k := [2]int{min(j.First, j.Second), max(j.First, j.Second)}
				if met[k] {
					t.Fatalf("pair %v scheduled twice", k)
				}
				met[k] = true
				perRound[j.Round]++
				last = max(last, j.Round)
			}
			// Rounds after the opening: a Swiss round's batch but for the
			// last, and only the top by wins before the round plays.
			wins := make([]int, tt.n)
			done := 0
			k := int(math.Ceil(c.TopShare * float64(tt.n)))
			for r := 1; r <= last; r++ {
				if perRound[r] > tt.n/2 {
					t.Errorf("round %d: %d matches, more than ⌊n/2⌋ = %d", r, perRound[r], tt.n/2)
				}
				if r > c.SwissRounds && r < last && perRound[r] != tt.n/2 && done+perRound[r] < budget {
					t.Errorf("round %d: %d matches, want a Swiss round's %d", r, perRound[r], tt.n/2)
				}
				sorted := slices.Clone(wins)
				slices.SortFunc(sorted, func(a, b int) int { return b - a })
				cut := sorted[k-1] // the fewest wins in the top
				for _, j := range js {
					if j.Round != r {
						continue
					}
					if r > c.SwissRounds && (wins[j.First] < cut || wins[j.Second] < cut) {
						t.Errorf("round %d: %d (%d wins) vs %d (%d wins), the top's cut %d", r, j.First, wins[j.First], j.Second, wins[j.Second], cut)
					}
				}
				for _, j := range js {
					if j.Round == r {
						done++
						if j.Winner != swiss.Invalid {
							wins[j.Winner]++
						}
					}
				}
			}
			checkStopAndSeeds(t, tr, c, tt.n, tt.rounds, js)
		})
	}
}

// checkStopAndSeeds: a stopped tournament pairs no more, the same seed
// plays the same tournament again and another seed another one.
func checkStopAndSeeds(t *testing.T, tr Tournament, c Config, n, maxRounds int, js []swiss.Judgment) {
	t.Helper()
	if tr.Stopped() {
		if r := tr.Pair(); len(r.Matches) != 0 {
			t.Errorf("round %d after the stop has %d matches", r.Number, len(r.Matches))
		}
	}
	if again := play(t, c, n, maxRounds); scheduleHash(again.Judgments()) != scheduleHash(js) {
		t.Error("the same seed gave another tournament")
	}
	other, err := New(c, n, rounds(4))
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(other, maxRounds, noisyJudge(n)); err != nil {
		t.Fatal(err)
	}
	if scheduleHash(other.Judgments()) == scheduleHash(js) {
		t.Error("another seed gave the same tournament")
	}
}
