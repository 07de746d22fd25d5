package bench

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/synth/corpusdist"
)

// TestFinderEqualsBruteForce: on a generated corpus of 2,000 documents the
// pairs stage's finder (lib/relevance) returns, for every query, exactly what scoring every
// document gives.
func TestFinderEqualsBruteForce(t *testing.T) {
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := corpusdist.New(tree, 3, corpusdist.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	c := Generate(gen, tree, 2000)
	f := relevance.NewFinder(c, 0.858, 0.211)
	ids := tokenIDs(c.Tokens)
	cats := map[string]int{}
	for q := range c.IDs {
		want := BruteQuery(c, ids, q, 0.858, 0.211)
		if err := SamePairs(want, f.Query(q)); err != nil {
			t.Fatalf("query %d: %v", q, err)
		}
		for _, p := range want {
			cats[p.Category]++
		}
	}
	for _, cat := range []string{"topic", "summary", "both"} {
		if cats[cat] == 0 {
			t.Errorf("no %s pairs: the test would prove little", cat)
		}
	}
	t.Logf("pairs by category: %v", cats)
}

func TestRunPairsSmall(t *testing.T) {
	var out bytes.Buffer
	rep, err := RunPairs(context.Background(), PairsOptions{Sizes: []int{800, 400}, Seed: 1, BruteQueries: 100, ShardQueries: 300, Dir: t.TempDir()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].N != 400 || rep.Brute == nil || rep.Brute.Queries != 100 || rep.Brute.N != 400 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Rows {
		if r.Pairs == 0 || r.Bytes == 0 || r.Pairs != r.Topic+r.Summ+r.Both {
			t.Errorf("row %+v", r)
		}
	}
	s := out.String()
	for _, want := range []string{"machine:", "brute force at N = 400 (a uniform sample of 100 of 400 queries", "growth, least squares", "extrapolated to N = 283000"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestFitPower(t *testing.T) {
	f := FitPower([]int{10, 20, 40}, []float64{300, 1200, 4800})
	if math.Abs(f.Exp-2) > 1e-9 || math.Abs(f.Coef-3) > 1e-9 || math.Abs(f.At(100)-30000) > 1e-6 {
		t.Errorf("fit %+v", f)
	}
	if f := FitPower([]int{10}, []float64{1}); !math.IsNaN(f.Exp) {
		t.Errorf("one point: %+v", f)
	}
}

func TestBruteQueries(t *testing.T) {
	if q := BruteQueries(5, 0, 1); len(q) != 5 {
		t.Errorf("all: %v", q)
	}
	if q := BruteQueries(BruteAllUpTo, 0, 1); len(q) != BruteAllUpTo {
		t.Errorf("default at %d documents: %d queries, want all", BruteAllUpTo, len(q))
	}
	if q := BruteQueries(283000, 0, 1); len(q) != BruteSample {
		t.Errorf("default at 283000 documents: %d queries, want a sample of %d", len(q), BruteSample)
	}
	q := BruteQueries(1000, 10, 1)
	if len(q) != 10 || q[0] < 0 || q[9] >= 1000 {
		t.Errorf("sample: %v", q)
	}
	for i := 1; i < len(q); i++ {
		if q[i] <= q[i-1] {
			t.Errorf("sample not ascending and distinct: %v", q)
		}
	}
}
