package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// golden.json is made by testdata/golden.py:
//
//	/usr/bin/python3 lib/stats/testdata/golden.py > lib/stats/testdata/golden.json
type golden struct {
	Z95       float64
	Binomtest []struct {
		K, N   int
		P      float64
		Pvalue float64
	}
	Wilson []struct {
		P      float64
		N      int
		Lo, Hi float64
	}
}

func load(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Binomtest) == 0 || len(g.Wilson) == 0 {
		t.Fatal("empty golden file")
	}
	return g
}

func close(a, b, rel float64) bool {
	return a == b || math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func TestZ95(t *testing.T) {
	if g := load(t); g.Z95 != Z95 {
		t.Errorf("Z95 = %v, SciPy norm.ppf(0.975) = %v", Z95, g.Z95)
	}
}

func TestBinomTestGolden(t *testing.T) {
	for _, c := range load(t).Binomtest {
		got := BinomTest(c.K, c.N, c.P)
		if !close(got, c.Pvalue, 1e-9) {
			t.Errorf("BinomTest(%d, %d, %v) = %.17g, SciPy %.17g", c.K, c.N, c.P, got, c.Pvalue)
		}
	}
}

func TestWilsonGolden(t *testing.T) {
	for _, c := range load(t).Wilson {
		lo, hi := Wilson(c.P, c.N, Z95)
		if !close(lo, c.Lo, 1e-12) && math.Abs(lo-c.Lo) > 1e-15 || !close(hi, c.Hi, 1e-12) {
			t.Errorf("Wilson(%v, %d) = [%.17g, %.17g], want [%.17g, %.17g]", c.P, c.N, lo, hi, c.Lo, c.Hi)
		}
	}
}

// The paper's Table 6 intervals, to three places. Its 0.777 is 155.5/200
// shown to three places: Wilson(0.777) would be [0.714, 0.829].
func TestWilsonTable6(t *testing.T) {
	for _, c := range []struct{ p, lo, hi float64 }{
		{0.780, 0.718, 0.832}, {0.790, 0.728, 0.841}, {0.775, 0.712, 0.827}, {0.7775, 0.715, 0.830}, {0.750, 0.686, 0.805},
	} {
		lo, hi := Wilson(c.p, 200, Z95)
		if math.Round(lo*1000)/1000 != c.lo || math.Round(hi*1000)/1000 != c.hi {
			t.Errorf("Wilson(%v, 200) = [%.3f, %.3f], Table 6 [%.3f, %.3f]", c.p, lo, hi, c.lo, c.hi)
		}
	}
}

func TestEdges(t *testing.T) {
	if lo, hi := Wilson(0.5, 0, Z95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Wilson n=0: %v %v", lo, hi)
	}
	for _, c := range []struct {
		k, n int
		p    float64
	}{{1, 0, 0.5}, {-1, 3, 0.5}, {4, 3, 0.5}, {1, 3, 1.5}, {1, 3, math.NaN()}} {
		if v := BinomTest(c.k, c.n, c.p); !math.IsNaN(v) {
			t.Errorf("BinomTest(%d, %d, %v) = %v, want NaN", c.k, c.n, c.p, v)
		}
	}
	if v := BinomTest(10, 20, 0.5); v != 1 {
		t.Errorf("BinomTest at the mean = %v", v)
	}
	// By hand: 3 of 4 at p = 0.5: outcomes 0, 1, 3, 4 are no likelier
	// than 3: (1 + 4 + 4 + 1)/16.
	if v := BinomTest(3, 4, 0.5); math.Abs(v-10.0/16) > 1e-15 {
		t.Errorf("BinomTest(3, 4) = %v, want 0.625", v)
	}
	if v := BinomTest(0, 3, 0); v != 1 {
		t.Errorf("BinomTest(0, 3, 0) = %v", v)
	}
	if v := BinomTest(1, 3, 0); v != 0 {
		t.Errorf("BinomTest(1, 3, 0) = %v", v)
	}
}
