package bt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

type goldenCase struct {
	Name            string    `json:"name"`
	N               int       `json:"n"`
	Lambda          float64   `json:"lambda"`
	Games           [][2]int  `json:"games"`
	Theta           []float64 `json:"theta"`
	Ratings         []float64 `json:"ratings"`
	LogLik          float64   `json:"loglik"`
	PenalisedLogLik float64   `json:"penalised_loglik"`
}

// TestGolden checks Fit against scipy (testdata/gen.py): an independent
// optimiser and an independent formula for the objective.
func TestGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []goldenCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 8 {
		t.Fatalf("golden file has %d cases, want at least 8", len(golden.Cases))
	}
	for _, c := range golden.Cases {
		t.Run(c.Name, func(t *testing.T) {
			games := make([]Comparison, len(c.Games))
			for i, g := range c.Games {
				games[i] = Comparison{Winner: g[0], Loser: g[1]}
			}
			res, err := Fit(c.N, games, Options{Lambda: c.Lambda})
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range c.N {
				worst = math.Max(worst, math.Abs(res.Theta[i]-c.Theta[i]))
				if d := math.Abs(res.Theta[i] - c.Theta[i]); d > 1e-6 {
					t.Errorf("theta[%d] = %.12f, scipy %.12f (|Δ| = %.2g)", i, res.Theta[i], c.Theta[i], d)
				}
				if d := math.Abs(res.Ratings[i] - c.Ratings[i]); d > 1e-6 {
					t.Errorf("rating[%d] = %.12f, scipy %.12f", i, res.Ratings[i], c.Ratings[i])
				}
			}
			if d := math.Abs(res.LogLik - c.LogLik); d > 1e-8 {
				t.Errorf("loglik = %.12f, scipy %.12f", res.LogLik, c.LogLik)
			}
			if d := math.Abs(res.PenalisedLogLik - c.PenalisedLogLik); d > 1e-8 {
				t.Errorf("penalised loglik = %.12f, scipy %.12f", res.PenalisedLogLik, c.PenalisedLogLik)
			}
			t.Logf("%d items, %d games: %d steps (%d CG, %d factorisations); max |θ − θ_scipy| = %.2g", c.N, len(games), res.Iterations, res.CGSteps, res.Factorizations, worst)
		})
	}
}

func TestFitTable(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		games []Comparison
		check func(t *testing.T, r Result)
	}{
		{
			name: "no items",
			n:    0,
			check: func(t *testing.T, r Result) {
				if len(r.Theta) != 0 || len(r.Ratings) != 0 || r.LogLik != 0 {
					t.Errorf("got %+v", r)
				}
			},
		},
		{
			name: "no games: all equal, all rating 0",
			n:    4,
			check: func(t *testing.T, r Result) {
				for i := range 4 {
					if r.Theta[i] != 0 || r.Ratings[i] != 0 {
						t.Errorf("item %d: theta %v rating %v, want 0, 0", i, r.Theta[i], r.Ratings[i])
					}
				}
			},
		},
		{
			name:  "a cycle is a tie: all rating 0",
			n:     3,
			games: []Comparison{{0, 1}, {1, 2}, {2, 0}},
			check: func(t *testing.T, r Result) {
				for i := range 3 {
					if math.Abs(r.Theta[i]) > 1e-12 || r.Ratings[i] != 0 {
						t.Errorf("item %d: theta %v rating %v, want 0, 0", i, r.Theta[i], r.Ratings[i])
					}
				}
			},
		},
		{
			name:  "one game: symmetric, winner 5, loser 0",
			n:     2,
			games: []Comparison{{1, 0}},
			check: func(t *testing.T, r Result) {
				if r.Theta[1] <= 0 || math.Abs(r.Theta[0]+r.Theta[1]) > 1e-12 {
					t.Errorf("theta %v, want (−x, x) with x > 0", r.Theta)
				}
				if r.Ratings[0] != 0 || r.Ratings[1] != 5 {
					t.Errorf("ratings %v, want [0 5]", r.Ratings)
				}
				if r.Games[0] != 1 || r.Games[1] != 1 || r.Wins[0] != 0 || r.Wins[1] != 1 {
					t.Errorf("games %v wins %v", r.Games, r.Wins)
				}
				// Stationarity for one game: 1 − σ(2x) = λx.
				x := r.Theta[1]
				if g := 1/(1+math.Exp(2*x)) - DefaultLambda*x; math.Abs(g) > 1e-12 {
					t.Errorf("gradient %v at x = %v", g, x)
				}
			},
		},
		{
			name:  "never played gets the mean of the played, in the middle",
			n:     4,
			games: []Comparison{{0, 1}, {0, 2}, {1, 2}, {0, 1}},
			check: func(t *testing.T, r Result) {
				mean := (r.Theta[0] + r.Theta[1] + r.Theta[2]) / 3
				if r.Theta[3] != mean {
					t.Errorf("theta[3] = %v, want mean %v", r.Theta[3], mean)
				}
				if !(r.Ratings[2] < r.Ratings[3] && r.Ratings[3] < r.Ratings[0]) {
					t.Errorf("ratings %v: never-played not between worst and best", r.Ratings)
				}
				if r.Games[3] != 0 || r.Wins[0] != 3 || r.Games[0] != 3 {
					t.Errorf("games %v wins %v", r.Games, r.Wins)
				}
			},
		},
		{
			name:  "all-wins item stays finite and on top",
			n:     3,
			games: []Comparison{{0, 1}, {0, 2}, {0, 1}, {0, 2}, {1, 2}, {2, 1}},
			check: func(t *testing.T, r Result) {
				if math.IsInf(r.Theta[0], 0) || math.IsNaN(r.Theta[0]) || r.Ratings[0] != 5 {
					t.Errorf("theta %v ratings %v", r.Theta, r.Ratings)
				}
				if r.PenalisedLogLik >= r.LogLik {
					t.Errorf("penalised %v not below unpenalised %v", r.PenalisedLogLik, r.LogLik)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Fit(tt.n, tt.games, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Lambda != DefaultLambda {
				t.Errorf("lambda %v, want default %v", r.Lambda, DefaultLambda)
			}
			tt.check(t, r)
		})
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		games []Comparison
		opt   Options
		want  string
	}{
		{"negative n", -1, nil, Options{}, "negative count"},
		{"winner out of range", 3, []Comparison{{0, 1}, {3, 1}}, Options{}, "game 1 (winner 3, loser 1): index outside [0, 3)"},
		{"loser negative", 3, []Comparison{{0, -1}}, Options{}, "index outside"},
		{"self comparison", 3, []Comparison{{0, 1}, {2, 2}}, Options{}, "game 1: item 2 against itself"},
		{"negative lambda", 3, nil, Options{Lambda: -1}, "lambda -1 must be positive"},
		{"NaN lambda", 3, nil, Options{Lambda: math.NaN()}, "must be positive"},
		{"negative tol", 3, nil, Options{Tol: -1}, "tol -1"},
		{"no convergence", 2, []Comparison{{0, 1}}, Options{MaxIter: 1}, "did not converge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(tt.n, tt.games, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if tt.name == "no convergence" && !errors.Is(err, ErrNoConvergence) {
				t.Errorf("err = %v, want ErrNoConvergence", err)
			}
		})
	}
}

func TestRescale(t *testing.T) {
	tests := []struct {
		name  string
		theta []float64
		want  []float64
	}{
		{"empty", nil, nil},
		{"one", []float64{3}, []float64{0}},
		{"all equal", []float64{-1, -1, -1}, []float64{0, 0, 0}},
		{"round-off is equal", []float64{1e-12, -1e-12}, []float64{0, 0}},
		{"linear", []float64{-2, 0, 2, 1}, []float64{0, 2.5, 5, 3.75}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]float64, len(tt.theta))
			Rescale(got, tt.theta)
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-15 {
					t.Fatalf("Rescale(%v) = %v, want %v", tt.theta, got, tt.want)
				}
			}
		})
	}
}

// TestFitterReuse checks that a Fitter's work space carries nothing from
// one fit to the next, across sizes.
func TestFitterReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var f Fitter
	for _, n := range []int{150, 10, 150, 3, 40} {
		games := randomGames(rng, n, 5*n)
		got, err := f.Fit(n, games, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Fit(n, games, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if got.Theta[i] != want.Theta[i] {
				t.Fatalf("n = %d: reused Fitter theta[%d] = %v, fresh %v", n, i, got.Theta[i], want.Theta[i])
			}
		}
	}
}

// TestStationary checks the optimality conditions directly — the gradient
// vanishes and the θ sum is 0 (see Fit's comment) — on random data and on
// lopsided data far from θ = 0, where the line search and the switch from
// CG to Newton to chord steps all come into play.
func TestStationary(t *testing.T) {
	type input struct {
		name  string
		n     int
		games []Comparison
	}
	var inputs []input
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		n := 2 + rng.IntN(60)
		inputs = append(inputs, input{fmt.Sprintf("random %d", trial), n, randomGames(rng, n, rng.IntN(10*n))})
	}
	var rout, chain []Comparison
	for range 500 {
		rout = append(rout, Comparison{0, 1})
	}
	for i := range 9 {
		for range 50 {
			chain = append(chain, Comparison{i, i + 1})
		}
	}
	inputs = append(inputs,
		input{"500 wins in one pair", 2, rout},
		input{"a strict chain of 10, 50 games a link", 10, chain},
		input{"one long game list of repeats", 150, append(randomGames(rng, 150, 1500), randomGames(rng, 150, 1500)...)},
	)
	for _, in := range inputs {
		r, err := Fit(in.n, in.games, Options{})
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		g := make([]float64, in.n)
		for i := range in.n {
			g[i] = -DefaultLambda * r.Theta[i]
		}
		sum := 0.0
		for i, x := range r.Theta {
			if r.Games[i] > 0 {
				sum += x
			}
		}
		for _, c := range in.games {
			q := 1 / (1 + math.Exp(r.Theta[c.Winner]-r.Theta[c.Loser]))
			g[c.Winner] += q
			g[c.Loser] -= q
		}
		for i := range in.n {
			if r.Games[i] > 0 && math.Abs(g[i]) > 1e-9 {
				t.Errorf("%s: gradient[%d] = %v", in.name, i, g[i])
			}
		}
		if math.Abs(sum) > 1e-9 {
			t.Errorf("%s: Σθ of played items = %v, want 0", in.name, sum)
		}
		if !strings.HasPrefix(in.name, "random") {
			t.Logf("%s: θ from %.3f to %.3f; %d steps: %d CG, %d factorisations", in.name, slices.Min(r.Theta), slices.Max(r.Theta), r.Iterations, r.CGSteps, r.Factorizations)
		}
	}
}

// randomGames draws m games between distinct uniform pairs, the outcome
// logistic in latent N(0, 1) scores.
func randomGames(rng *rand.Rand, n, m int) []Comparison {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	games := make([]Comparison, 0, m)
	for len(games) < m {
		a, b := rng.IntN(n), rng.IntN(n)
		if a == b {
			continue
		}
		if rng.Float64() < 1/(1+math.Exp(s[b]-s[a])) {
			games = append(games, Comparison{a, b})
		} else {
			games = append(games, Comparison{b, a})
		}
	}
	return games
}
