package swisssim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/swiss"
)

// TestSwissBeatsRandom is the bar of the issue: with a simulated judge over
// 150 candidates with known latent scores, a 20-round Swiss tournament
// makes at most 1,500 comparisons, its Bradley–Terry ranking recovers the
// latent order with Spearman ρ ≥ 0.9 at low noise, and it has fewer
// inversions against the latent order than random scheduling of as many
// distinct pairs, fitted the same way. Every trial must pass, not just the
// mean; the trials are seeded, so the figures are the same on every run.
func TestSwissBeatsRandom(t *testing.T) {
	const trials = 5
	for _, noise := range []float64{0.1, 0.3} {
		var swissInv, randInv, swissRho, randRho float64
		for k := range trials {
			tr, err := RunTrial(Config{N: 150, Rounds: 20, Noise: noise, Run: 2024, Key: fmt.Sprintf("bar/%d", k)})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("noise %.1f trial %d: Swiss %d comparisons, Spearman %.4f, %d inversions | random %d comparisons, Spearman %.4f, %d inversions",
				noise, k, tr.Swiss.Comparisons, tr.Swiss.Spearman, tr.Swiss.Inversions, tr.Random.Comparisons, tr.Random.Spearman, tr.Random.Inversions)
			if tr.Swiss.Comparisons > 1500 || tr.Random.Comparisons != tr.Swiss.Comparisons {
				t.Errorf("comparisons: Swiss %d (want ≤ 1,500), random %d (want equal)", tr.Swiss.Comparisons, tr.Random.Comparisons)
			}
			if tr.Swiss.Spearman < 0.9 {
				t.Errorf("Swiss Spearman %.4f < 0.9", tr.Swiss.Spearman)
			}
			if tr.Swiss.Inversions >= tr.Random.Inversions {
				t.Errorf("Swiss %d inversions, random %d: Swiss should have fewer", tr.Swiss.Inversions, tr.Random.Inversions)
			}
			swissInv += float64(tr.Swiss.Inversions)
			randInv += float64(tr.Random.Inversions)
			swissRho += tr.Swiss.Spearman
			randRho += tr.Random.Spearman
		}
		t.Logf("noise %.1f, mean of %d trials (of 11,175 pairs): Swiss %.0f inversions, Spearman %.4f; random %.0f inversions, Spearman %.4f",
			noise, trials, swissInv/trials, swissRho/trials, randInv/trials, randRho/trials)
	}
}

func TestRunTrialDeterministic(t *testing.T) {
	c := Config{N: 40, Rounds: 6, Noise: 0.5, InvalidRate: 0.1, Run: 1, Key: "d"}
	a, err := RunTrial(c)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RunTrial(c)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("same config, %+v then %+v", a, b)
	}
	c.Key = "e"
	if d, _ := RunTrial(c); d == a {
		t.Fatalf("other key, same trial %+v", d)
	}
	if _, err := RunTrial(Config{N: 1, Rounds: 20}); err == nil {
		t.Fatal("N = 1 accepted")
	}
}

func TestJudge(t *testing.T) {
	scores := []float64{0, 1, 2}
	perfect := &Judge{Scores: scores, Rng: rand.New(rand.NewPCG(1, 1))}
	for range 100 {
		if w := perfect.Prefer(0, 2); w != 2 {
			t.Fatalf("noise 0: %d beat the better 2", w)
		}
	}
	// P(1 beats 0) = σ(1/1) ≈ 0.731 at noise 1; 10% invalid on top.
	j := &Judge{Scores: scores, Noise: 1, InvalidRate: 0.1, Rng: rand.New(rand.NewPCG(2, 2))}
	var wins, invalid int
	const draws = 20000
	for range draws {
		switch j.Prefer(1, 0) {
		case 1:
			wins++
		case swiss.Invalid:
			invalid++
		}
	}
	want := 0.9 * (1 / (1 + math.Exp(-1)))
	if got := float64(wins) / draws; math.Abs(got-want) > 0.015 {
		t.Errorf("P(1 beats 0) = %.3f, want %.3f", got, want)
	}
	if got := float64(invalid) / draws; math.Abs(got-0.1) > 0.01 {
		t.Errorf("invalid rate %.3f, want 0.1", got)
	}
}

func TestComparisons(t *testing.T) {
	js := []swiss.Judgment{
		{Match: swiss.Match{First: 1, Second: 2}, Winner: 2},
		{Match: swiss.Match{First: 3, Second: 0}, Winner: 3},
		{Match: swiss.Match{First: 4, Second: 5}, Winner: swiss.Invalid},
	}
	want := []bt.Comparison{{Winner: 2, Loser: 1}, {Winner: 3, Loser: 0}}
	if got := Comparisons(js); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestRandom(t *testing.T) {
	j := &Judge{Scores: make([]float64, 7), Noise: 1, Rng: rand.New(rand.NewPCG(3, 3))}
	// All 21 pairs: each exactly once.
	js, err := Random(21, rand.New(rand.NewPCG(4, 4)), j)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]int]bool{}
	for _, x := range js {
		a, b := min(x.First, x.Second), max(x.First, x.Second)
		if a == b || a < 0 || b >= 7 || seen[[2]int{a, b}] {
			t.Fatalf("bad or repeated pair %v", x.Match)
		}
		seen[[2]int{a, b}] = true
	}
	if len(seen) != 21 {
		t.Fatalf("%d distinct pairs, want 21", len(seen))
	}
	if _, err := Random(22, rand.New(rand.NewPCG(4, 4)), j); err == nil {
		t.Fatal("22 distinct pairs of 7 candidates accepted")
	}
	for n := 2; n < 9; n++ {
		p := 0
		for a := range n {
			for b := a + 1; b < n; b++ {
				if x, y := decodePair(p, n); x != a || y != b {
					t.Fatalf("decodePair(%d, %d) = (%d, %d), want (%d, %d)", p, n, x, y, a, b)
				}
				p++
			}
		}
	}
}

func TestExhaustive(t *testing.T) {
	j := &Judge{Scores: []float64{3, 2, 1, 0}, Rng: rand.New(rand.NewPCG(5, 5))}
	js := Exhaustive(rand.New(rand.NewPCG(6, 6)), j)
	if len(js) != 6 {
		t.Fatalf("%d judgments, want 6", len(js))
	}
	fit, err := bt.Fit(4, Comparisons(js), bt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if inv := Inversions(fit.Theta, j.Scores); inv != 0 {
		t.Fatalf("perfect judge, all pairs: %d inversions", inv)
	}
}

func TestInversions(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		inv  int
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 0},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, 6},
		{"one swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 1},
		// Ties are not inversions.
		{"ties", []float64{1, 1, 2}, []float64{1, 2, 3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inversions(tt.x, tt.y); got != tt.inv {
				t.Errorf("Inversions = %d, want %d", got, tt.inv)
			}
		})
	}
}
