package thresholds

import (
	"math/rand/v2"
	"testing"
)

// naive counts categories directly at one grid point.
func naive(st, ss []float64, tt, ts float64, k int) bool {
	var topic, summ, both int
	for d := range st {
		switch t, s := st[d] > tt, ss[d] > ts; {
		case t && s:
			both++
		case t:
			topic++
		case s:
			summ++
		}
	}
	return topic >= k && summ >= k && both >= k
}

func TestEligibleMatchesNaive(t *testing.T) {
	g := Grid{Topic: []float64{0.8, 0.85, 0.858, 0.9, 0.95}, Summ: []float64{0.2, 0.211, 0.25, 0.3, 0.4, 0.5}}
	c := NewCounter(g)
	rng := rand.New(rand.NewPCG(1, 2))
	hits := 0
	for trial := 0; trial < 500; trial++ {
		n := rng.IntN(60)
		st, ss := make([]float64, n), make([]float64, n)
		for d := range st {
			// Values on the grid itself test the strict inequality.
			if rng.IntN(4) == 0 {
				st[d] = g.Topic[rng.IntN(len(g.Topic))]
			} else {
				st[d] = 0.75 + 0.25*rng.Float64()
			}
			if rng.IntN(4) == 0 {
				ss[d] = g.Summ[rng.IntN(len(g.Summ))]
			} else {
				ss[d] = 0.15 + 0.4*rng.Float64()
			}
		}
		k := 1 + rng.IntN(6)
		got := map[Point]bool{}
		c.Eligible(st, ss, k, func(i, j int) { got[Point{i, j}] = true })
		for i, tt := range g.Topic {
			for j, ts := range g.Summ {
				want := naive(st, ss, tt, ts, k)
				if got[Point{i, j}] != want {
					t.Fatalf("trial %d k=%d at (%v, %v): got %v, want %v", trial, k, tt, ts, got[Point{i, j}], want)
				}
				if want {
					hits++
				}
			}
		}
	}
	if hits == 0 {
		t.Fatal("no eligible point in any trial: the test checks nothing")
	}
}

// grid2 builds eligible counts [domain][i][j] from rows of numbers.
func TestChoose(t *testing.T) {
	tests := []struct {
		name     string
		elig     [][][]int64
		min      int64
		final    Point
		feasible bool
		step     int
	}{
		{
			name: "minimum of the picks is feasible",
			elig: [][][]int64{
				{{9, 9, 9}, {9, 9, 5}, {9, 9, 1}}, // pick (2,1)
				{{9, 9, 9}, {9, 9, 9}, {1, 1, 1}}, // pick (1,2)
			},
			min: 5, final: Point{1, 1}, feasible: true,
		},
		{
			name: "every pick the same",
			elig: [][][]int64{
				{{9, 9, 0}, {0, 0, 9}}, // pick (1,2)
				{{9, 9, 9}, {0, 0, 9}}, // pick (1,2)
			},
			min: 5, final: Point{1, 2}, feasible: true,
		},
		{
			name: "min point infeasible, steps down",
			elig: [][][]int64{
				{{9, 9}, {0, 9}}, // pick (1,1)
				{{9, 9}, {9, 0}}, // pick (1,0)
			},
			// min = (1,0): domain 0 has 0 there; next (0,0): both 9.
			min: 5, final: Point{0, 0}, feasible: true, step: 1,
		},
		{
			name: "a domain never feasible: best compromise",
			elig: [][][]int64{
				{{9, 9}, {9, 9}},
				{{1, 3}, {2, 0}},
			},
			min: 5, final: Point{0, 1}, feasible: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := Choose(tt.elig, tt.min)
			if ch.Final != tt.final || ch.Feasible != tt.feasible || ch.SteppedDown != tt.step {
				t.Errorf("Choose = %+v, want final %v feasible %v stepped %d", ch, tt.final, tt.feasible, tt.step)
			}
		})
	}
}

func BenchmarkEligible(b *testing.B) {
	var g Grid
	for v := 0.858; v < 0.99; v += 0.01 {
		g.Topic = append(g.Topic, v)
	}
	for v := 0.211; v < 0.6; v += 0.01 {
		g.Summ = append(g.Summ, v)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	st, ss := make([]float64, 1000), make([]float64, 1000)
	for d := range st {
		st[d], ss[d] = 0.8+0.2*rng.Float64(), 0.1+0.5*rng.Float64()
	}
	c := NewCounter(g)
	b.ResetTimer()
	for b.Loop() {
		c.Eligible(st, ss, 50, func(i, j int) {})
	}
}

func TestBin(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want int
	}{{-0.1, 0}, {0, 0}, {0.049, 0}, {0.05, 1}, {0.858, 17}, {0.999, 19}, {1, 19}, {1.5, 19}} {
		if got := Bin(c.v); got != c.want {
			t.Errorf("Bin(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}
