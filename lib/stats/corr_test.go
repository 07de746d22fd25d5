package stats

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// corrCase is one "corr" entry of golden.json (see testdata/golden.py): a
// nil Pearson or Spearman is SciPy's NaN, written as null.
type corrCase struct {
	Name              string
	X, Y              []float64
	Pearson, Spearman *float64
	RankX             []float64 `json:"rank_x"`
	RankY             []float64 `json:"rank_y"`
}

func loadCorr(t *testing.T) []corrCase {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ Corr []corrCase }
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Corr) == 0 {
		t.Fatal("no corr cases in the golden file")
	}
	return g.Corr
}

// want reports whether got is SciPy's value: NaN for null, else within
// 1e-12 relative.
func want(got float64, scipy *float64) bool {
	if scipy == nil {
		return math.IsNaN(got)
	}
	return close(got, *scipy, 1e-12)
}

func TestCorrGolden(t *testing.T) {
	for _, c := range loadCorr(t) {
		t.Run(c.Name, func(t *testing.T) {
			if got := Pearson(c.X, c.Y); !want(got, c.Pearson) {
				t.Errorf("Pearson = %.17g, SciPy %v", got, fmtp(c.Pearson))
			}
			if got := Spearman(c.X, c.Y); !want(got, c.Spearman) {
				t.Errorf("Spearman = %.17g, SciPy %v", got, fmtp(c.Spearman))
			}
			// Ranks are multiples of 1/2: exact.
			if got := Ranks(c.X, 0); !slices.Equal(got, c.RankX) {
				t.Errorf("Ranks(x) = %v, rankdata %v", got, c.RankX)
			}
			if got := Ranks(c.Y, 0); !slices.Equal(got, c.RankY) {
				t.Errorf("Ranks(y) = %v, rankdata %v", got, c.RankY)
			}
		})
	}
}

func fmtp(p *float64) any {
	if p == nil {
		return "NaN"
	}
	return *p
}

// Hand-worked cases (formerly jobs/report's).
func TestCorrByHand(t *testing.T) {
	// x − x̄ = (−1.5, −0.5, 0.5, 1.5), y − ȳ = (−1.5, 0.5, −0.5, 1.5):
	// Σ = 4, Σx² = Σy² = 5, r = 0.8; the ranks are the values.
	x, y := []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}
	if p, s := Pearson(x, y), Spearman(x, y); math.Abs(p-0.8) > 1e-15 || math.Abs(s-0.8) > 1e-15 {
		t.Errorf("Pearson %v, Spearman %v; want 0.8, 0.8", p, s)
	}
	// Ties share their mean rank: ranks of (1, 2, 2, 3) are (1, 2.5, 2.5,
	// 4), Spearman = 4.5 / √(4.5 · 5) = 3/√10.
	if s := Spearman([]float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}); math.Abs(s-3/math.Sqrt(10)) > 1e-15 {
		t.Errorf("Spearman with ties %v, want %v", s, 3/math.Sqrt(10))
	}
	// x ranks (1.5, 1.5, 3), y (1, 2, 3): ρ = 1.5/√(1.5·2) = √3/2.
	if s := Spearman([]float64{1, 1, 2}, []float64{1, 2, 3}); math.Abs(s-math.Sqrt(3)/2) > 1e-15 {
		t.Errorf("Spearman of (1, 1, 2) = %v, want √3/2", s)
	}
	// x − x̄ = (0.3, 0, −0.3), y − ȳ = (0.2, 0.1, −0.3): 0.15/√(0.18·0.14).
	if p := Pearson([]float64{0.9, 0.6, 0.3}, []float64{0.8, 0.7, 0.3}); math.Abs(p-0.15/math.Sqrt(0.18*0.14)) > 1e-12 {
		t.Errorf("Pearson = %v, want %v", p, 0.15/math.Sqrt(0.18*0.14))
	}
	if s := Spearman([]float64{4, 3, 2, 1}, []float64{1, 2, 3, 4}); s != -1 {
		t.Errorf("Spearman reversed = %v, want -1", s)
	}
}

func TestCorrUndefined(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		x, y []float64
	}{
		{"empty", nil, nil},
		{"n = 1", []float64{1}, []float64{2}},
		{"constant x", []float64{1, 1}, []float64{1, 2}},
		{"constant y", []float64{1, 2, 3}, []float64{5, 5, 5}},
		{"NaN in x", []float64{1, nan, 3}, []float64{1, 2, 3}},
		{"NaN in y", []float64{1, 2, 3}, []float64{nan, 2, 3}},
	} {
		if p := Pearson(c.x, c.y); !math.IsNaN(p) {
			t.Errorf("%s: Pearson = %v, want NaN", c.name, p)
		}
		if s := Spearman(c.x, c.y); !math.IsNaN(s) {
			t.Errorf("%s: Spearman = %v, want NaN", c.name, s)
		}
	}
}

func TestCorrUnequalLengths(t *testing.T) {
	for name, f := range map[string]func(x, y []float64) float64{"Pearson": Pearson, "Spearman": Spearman} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, name+" of 2 and 3 values") {
					t.Errorf("%s of unequal lengths: panic %q", name, msg)
				}
			}()
			f([]float64{1, 2}, []float64{1, 2, 3})
		}()
	}
}

func TestRanks(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		x    []float64
		tol  float64
		want []float64
	}{
		{"empty", nil, 0, []float64{}},
		{"one", []float64{7}, 0, []float64{1}},
		{"distinct", []float64{3, 1, 2}, 0, []float64{3, 1, 2}},
		{"exact tie", []float64{2, 1, 2}, 0, []float64{2.5, 1, 2.5}},
		{"round-off not tied at 0", []float64{1, 1 + 5e-10, 2}, 0, []float64{1, 2, 3}},
		{"round-off tied", []float64{1, 1 + 5e-10, 2}, 1e-9, []float64{1.5, 1.5, 3}},
		{"round-off tied, either order", []float64{2, 1 + 5e-10, 1}, 1e-9, []float64{3, 1.5, 1.5}},
		// Each within tol of the one before, 1.2e-9 from first to last:
		// one run of three, average rank 2.
		{"chained run", []float64{5, 1.2e-9, 0, 0.6e-9}, 1e-9, []float64{4, 2, 2, 2}},
		{"gap breaks a run", []float64{0, 0.6e-9, 2e-9, 2.5e-9}, 1e-9, []float64{1.5, 1.5, 3.5, 3.5}},
		{"infinities", []float64{inf, -inf, 0, inf, -inf}, 0, []float64{4.5, 1.5, 3, 4.5, 1.5}},
		{"tolerance ties infinities", []float64{inf, 1, inf}, 1e-9, []float64{2.5, 1, 2.5}},
	} {
		if got := Ranks(c.x, c.tol); !slices.Equal(got, c.want) {
			t.Errorf("%s: Ranks(%v, %v) = %v, want %v", c.name, c.x, c.tol, got, c.want)
		}
	}
	if r := Ranks([]float64{1, math.NaN(), 0}, 0); len(r) != 3 || !math.IsNaN(r[0]) || !math.IsNaN(r[1]) || !math.IsNaN(r[2]) {
		t.Errorf("Ranks with a NaN = %v, want all NaN (rankdata's nan_policy=propagate)", r)
	}
	// Ranks do not change x.
	x := []float64{3, 1, 2}
	Ranks(x, 0)
	if !slices.Equal(x, []float64{3, 1, 2}) {
		t.Errorf("Ranks changed its input: %v", x)
	}
}
