package ndcg

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// TestTrecEval works trec_eval's ndcg_cut measure (trec_eval 9.x,
// m_ndcg_cut.c) by hand. It sorts a run by score (ties by docno,
// descending), takes gain = the qrels relevance at 0-based position i with
// discount log2(i + 2), i.e. log2(rank + 1), sums the first k, and divides
// by the same sum over the query's qrels relevances sorted descending. For
//
//	qrels: q1 0 d1 3 / d2 2 / d3 0 / d4 1 / d5 2 / d6 0
//	run:   d3 0.9, d1 0.8, d5 0.7, d6 0.6, d2 0.5, d4 0.4
//
// the ranked relevances are 0 3 2 0 2 1, so
//
//	DCG  = 0/1 + 3/log2 3 + 2/2 + 0/log2 5 + 2/log2 6 + 1/log2 7 = 4.0227020622914775
//	IDCG = 3/1 + 2/log2 3 + 2/2 + 1/log2 5                      = 5.692536065216308
//
// and ndcg_cut.10 = 0.7066625518407885 (6 < 10 candidates: the cut takes
// them all). ndcg_cut.3 = (3/log2 3 + 1)/(3 + 2/log2 3 + 1) =
// 0.5497655832101642. With exponential gain (not trec_eval's) the same run
// gives 0.6867739047975651.
//
// Ties are where we differ: for d7 (rel 1) at 0.9 and d8 (rel 2), d9 (rel
// 0) tied at 0.5, trec_eval ranks d9 before d8 (docno descending) and gets
// 2/(2 + 1/log2 3) = 0.76018; we rank d8 before d9 (ascending, SPEC §3)
// and get (1 + 2/log2 3)/(2 + 1/log2 3) = 0.85973.
func TestTrecEval(t *testing.T) {
	ids := []string{"d1", "d2", "d3", "d4", "d5", "d6"}
	scores := []float64{0.8, 0.5, 0.9, 0.4, 0.7, 0.6}
	rels := []float64{3, 2, 0, 1, 2, 0}
	tieIDs := []string{"d7", "d8", "d9"}
	tieScores := []float64{0.9, 0.5, 0.5}
	tieRels := []float64{1, 2, 0}
	tests := []struct {
		name           string
		ids            []string
		scores, rels   []float64
		opt            Options
		want           float64
		dcg, idcg      float64
		dcgFromRanking bool
	}{
		{"ndcg_cut.10", ids, scores, rels, Options{K: 10, Gain: Linear}, 0.7066625518407885, 4.0227020622914775, 5.692536065216308, true},
		{"ndcg_cut.3", ids, scores, rels, Options{K: 3, Gain: Linear}, 0.5497655832101642, 0, 0, false},
		{"exponential gain", ids, scores, rels, Options{}, 0.6867739047975651, 0, 0, false},
		{"ties by id ascending", tieIDs, tieScores, tieRels, Options{Gain: Linear}, (1 + 2/math.Log2(3)) / (2 + 1/math.Log2(3)), 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NDCG(tt.ids, tt.scores, tt.rels, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got, tt.want) {
				t.Errorf("nDCG = %.17g, want %.17g", got, tt.want)
			}
			if tt.dcgFromRanking {
				order, _ := Ranking(tt.ids, tt.scores)
				ranked := make([]float64, len(order))
				for r, i := range order {
					ranked[r] = tt.rels[i]
				}
				if d := DCG(ranked, 10, Linear); !near(d, tt.dcg) {
					t.Errorf("DCG = %.17g, want %.17g", d, tt.dcg)
				}
				if d := IdealDCG(tt.rels, 10, Linear); !near(d, tt.idcg) {
					t.Errorf("IdealDCG = %.17g, want %.17g", d, tt.idcg)
				}
			}
		})
	}
	// trec_eval's own tie order (docno descending) would give 0.76018.
	if trecTie := 2 / (2 + 1/math.Log2(3)); math.Abs(trecTie-0.76018) > 1e-5 {
		t.Errorf("the worked tie example is wrong: %v", trecTie)
	}
}

func TestNDCGCases(t *testing.T) {
	tests := []struct {
		name   string
		ids    []int
		scores []float64
		rels   []float64
		opt    Options
		want   float64
	}{
		{"perfect ranking", []int{1, 2, 3}, []float64{3, 2, 1}, []float64{5, 3, 0}, Options{}, 1},
		{"ideal DCG 0 gives 0", []int{1, 2}, []float64{1, 2}, []float64{0, 0}, Options{}, 0},
		{"one candidate", []int{7}, []float64{0}, []float64{2}, Options{}, 1},
		{"all tied: ids decide", []int{3, 1, 2}, []float64{0, 0, 0}, []float64{0, 1, 0}, Options{Gain: Linear}, 1},
		{"all tied, relevant last", []int{3, 1, 2}, []float64{0, 0, 0}, []float64{1, 0, 0}, Options{Gain: Linear}, 1 / 2.0},
		{"beyond the cutoff counts nothing", []int{1, 2, 3}, []float64{3, 2, 1}, []float64{0, 0, 4}, Options{K: 2}, 0},
		{"k = 1", []int{1, 2}, []float64{1, 2}, []float64{3, 1}, Options{K: 1, Gain: Linear}, 1 / 3.0},
		{"infinite scores order", []int{1, 2}, []float64{math.Inf(-1), math.Inf(1)}, []float64{1, 0}, Options{Gain: Linear}, 1 / math.Log2(3)},
		{"real ratings", []int{1, 2}, []float64{2, 1}, []float64{0.5, 2.5}, Options{},
			(math.Exp2(0.5) - 1 + (math.Exp2(2.5)-1)/math.Log2(3)) / (math.Exp2(2.5) - 1 + (math.Exp2(0.5)-1)/math.Log2(3))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NDCG(tt.ids, tt.scores, tt.rels, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got, tt.want) {
				t.Errorf("nDCG = %.17g, want %.17g", got, tt.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		ids    []string
		scores []float64
		rels   []float64
		opt    Options
		want   string
	}{
		{"lengths", []string{"a"}, []float64{1, 2}, []float64{1}, Options{}, "1 ids but 2 scores"},
		{"rating lengths", []string{"a"}, []float64{1}, nil, Options{}, "1 ids but 0 ratings"},
		{"NaN score", []string{"a", "b"}, []float64{1, math.NaN()}, []float64{1, 1}, Options{}, "score of document b is NaN"},
		{"NaN rating", []string{"a"}, []float64{1}, []float64{math.NaN()}, Options{}, "rating of document a is NaN"},
		{"duplicate id", []string{"a", "b", "a"}, []float64{1, 2, 3}, []float64{1, 1, 1}, Options{}, "document id a appears twice"},
		{"negative k", []string{"a"}, []float64{1}, []float64{1}, Options{K: -1}, "cutoff k = -1"},
		{"bad gain", []string{"a"}, []float64{1}, []float64{1}, Options{Gain: 9}, "unknown Gain(9)"},
	}
	for _, tt := range tests {
		_, err := NDCG(tt.ids, tt.scores, tt.rels, tt.opt)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "ndcg: ") {
			t.Errorf("%s: error %v, want one with %q", tt.name, err, tt.want)
		}
	}
	if _, err := ParseGain("log"); err == nil {
		t.Error("ParseGain accepted an unknown gain")
	}
	for _, g := range []Gain{Exponential, Linear} {
		if back, err := ParseGain(g.String()); err != nil || back != g {
			t.Errorf("ParseGain(%q) = %v, %v", g.String(), back, err)
		}
	}
	if _, err := Mean(nil); err == nil {
		t.Error("Mean(nil) succeeded")
	}
	if _, err := GroupMeans([]float64{1}, []string{}); err == nil {
		t.Error("GroupMeans with mismatched lengths succeeded")
	}
}

// naiveNDCG is the definition written out independently: the ranking by
// repeatedly picking the best remaining document, gains and discounts by
// the textbook formula, the ideal by sort.Float64s.
func naiveNDCG(ids []int, scores, rels []float64, k int, linear bool) float64 {
	gain := func(r float64) float64 {
		if linear {
			return r
		}
		return math.Pow(2, r) - 1
	}
	used := make([]bool, len(ids))
	dcg := 0.0
	for rank := 1; rank <= k && rank <= len(ids); rank++ {
		best := -1
		for i := range ids {
			if used[i] {
				continue
			}
			if best < 0 || scores[i] > scores[best] || scores[i] == scores[best] && ids[i] < ids[best] {
				best = i
			}
		}
		used[best] = true
		dcg += gain(rels[best]) / (math.Log(float64(rank+1)) / math.Log(2))
	}
	sorted := slices.Clone(rels)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	ideal := 0.0
	for rank := 1; rank <= k && rank <= len(sorted); rank++ {
		ideal += gain(sorted[rank-1]) / (math.Log(float64(rank+1)) / math.Log(2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// TestAgainstNaive compares with naiveNDCG on random queries with many ties
// in scores and ratings, fewer and more than k candidates, integer and real
// ratings.
func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 5000 {
		n := 1 + rng.IntN(30)
		ids := rng.Perm(10 * n)[:n]
		scores := make([]float64, n)
		rels := make([]float64, n)
		for i := range n {
			scores[i] = float64(rng.IntN(4)) // ties galore
			if c%2 == 0 {
				rels[i] = float64(rng.IntN(6))
			} else {
				rels[i] = 5 * rng.Float64()
			}
		}
		k := []int{1, 3, 10, 20}[c%4]
		for _, g := range []Gain{Exponential, Linear} {
			got, err := NDCG(ids, scores, rels, Options{K: k, Gain: g})
			if err != nil {
				t.Fatal(err)
			}
			if want := naiveNDCG(ids, scores, rels, k, g == Linear); math.Abs(got-want) > 1e-12 {
				t.Fatalf("case %d (k=%d, %v): nDCG = %.17g, naive %.17g\nids %v\nscores %v\nrels %v", c, k, g, got, want, ids, scores, rels)
			}
			if got < 0 || got > 1+1e-12 {
				t.Fatalf("case %d: nDCG %v outside [0, 1]", c, got)
			}
		}
	}
}

// TestInputOrderIrrelevant: permuting the candidates changes nothing, ties
// included, because ties are broken by id.
func TestInputOrderIrrelevant(t *testing.T) {
	ids := []string{"q1/d3", "q1/d1", "q1/d10", "q1/d2", "q1/d4"}
	scores := []float64{1, 1, 1, 0.5, 1}
	rels := []float64{3, 0, 2, 5, 1}
	want, _ := NDCG(ids, scores, rels, Options{K: 3})
	rng := rand.New(rand.NewPCG(1, 1))
	for range 50 {
		p := rng.Perm(len(ids))
		pi, ps, pr := make([]string, len(p)), make([]float64, len(p)), make([]float64, len(p))
		for j, i := range p {
			pi[j], ps[j], pr[j] = ids[i], scores[i], rels[i]
		}
		if got, _ := NDCG(pi, ps, pr, Options{K: 3}); got != want {
			t.Fatalf("permutation %v: %v, want %v", p, got, want)
		}
	}
}

func TestMeanAndGroupMeans(t *testing.T) {
	m, err := Mean([]float64{0.5, 1, 0})
	if err != nil || m != 0.5 {
		t.Errorf("Mean = %v, %v", m, err)
	}
	g, err := GroupMeans([]float64{1, 0, 0.5, 0.25}, []string{"Algebra", "Geometry", "Algebra", "Geometry"})
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 2 || g["Algebra"] != 0.75 || g["Geometry"] != 0.125 {
		t.Errorf("GroupMeans = %v", g)
	}
}

// TestPercentileGolden compares Percentile with numpy.percentile
// (testdata/percentile.golden.json, made by testdata/gen.py), bit for bit.
func TestPercentileGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/percentile.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct{ Values, Percentiles, Want []float64 }
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 40 {
		t.Fatalf("only %d golden cases", len(g.Cases))
	}
	for _, c := range g.Cases {
		sorted := slices.Clone(c.Values)
		slices.Sort(sorted)
		for i, p := range c.Percentiles {
			if got := Percentile(sorted, p); got != c.Want[i] {
				t.Errorf("Percentile(%d values, %v) = %.17g, numpy %.17g", len(sorted), p, got, c.Want[i])
			}
		}
	}
}

func TestBootstrap(t *testing.T) {
	draw := func(n int, seed uint64) []float64 {
		rng := rand.New(rand.NewPCG(seed, 99))
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.Float64() // nDCG-like values in [0, 1)
		}
		return v
	}
	values := draw(200, 1)
	a, err := Bootstrap(values, BootstrapOptions{}, rand.New(rand.NewPCG(42, 0)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Bootstrap(values, BootstrapOptions{}, rand.New(rand.NewPCG(42, 0)))
	if a != b {
		t.Errorf("same seed, different intervals: %+v and %+v", a, b)
	}
	c, _ := Bootstrap(values, BootstrapOptions{}, rand.New(rand.NewPCG(43, 0)))
	if a == c {
		t.Errorf("different seeds, same interval %+v", a)
	}
	m, _ := Mean(values)
	if a.Mean != m || !(a.Lo < a.Mean && a.Mean < a.Hi) {
		t.Errorf("interval %+v does not hold the mean %v", a, m)
	}
	// A 95% interval of a mean of n uniform values is about ±1.96·0.289/√n.
	if w, want := a.Hi-a.Lo, 2*1.96*math.Sqrt(1.0/12/200); math.Abs(w-want) > 0.25*want {
		t.Errorf("interval width %v, expected about %v", w, want)
	}

	// The interval shrinks as the number of queries grows (by √16 = 4 here).
	width := func(n int) float64 {
		iv, err := Bootstrap(draw(n, uint64(n)), BootstrapOptions{}, rand.New(rand.NewPCG(7, 7)))
		if err != nil {
			t.Fatal(err)
		}
		return iv.Hi - iv.Lo
	}
	w50, w200, w800 := width(50), width(200), width(800)
	if !(w800 < w200 && w200 < w50) || w50/w800 < 3 || w50/w800 > 5.5 {
		t.Errorf("widths for 50, 200, 800 queries: %v, %v, %v; want shrinking about 4× overall", w50, w200, w800)
	}

	// A wider level gives a wider interval from the same draws.
	n99, _ := Bootstrap(values, BootstrapOptions{Level: 0.99}, rand.New(rand.NewPCG(42, 0)))
	if !(n99.Lo < a.Lo && n99.Hi > a.Hi) {
		t.Errorf("99%% interval %+v is not wider than the 95%% %+v", n99, a)
	}

	// One value: every resample is that value.
	one, _ := Bootstrap([]float64{0.3}, BootstrapOptions{Resamples: 10}, rand.New(rand.NewPCG(1, 1)))
	if one != (Interval{0.3, 0.3, 0.3}) {
		t.Errorf("bootstrap of one value = %+v", one)
	}

	for _, bad := range []struct {
		v   []float64
		opt BootstrapOptions
		rng *rand.Rand
	}{
		{nil, BootstrapOptions{}, rand.New(rand.NewPCG(1, 1))},
		{[]float64{1}, BootstrapOptions{Level: 1}, rand.New(rand.NewPCG(1, 1))},
		{[]float64{1}, BootstrapOptions{Resamples: -1}, rand.New(rand.NewPCG(1, 1))},
		{[]float64{math.NaN()}, BootstrapOptions{}, rand.New(rand.NewPCG(1, 1))},
		{[]float64{1}, BootstrapOptions{}, nil},
	} {
		if _, err := Bootstrap(bad.v, bad.opt, bad.rng); err == nil || !strings.HasPrefix(err.Error(), "ndcg: ") {
			t.Errorf("Bootstrap(%v, %+v) error = %v", bad.v, bad.opt, err)
		}
	}
}

// TestDefaultPercentiles checks that the default level gives exactly the
// percentiles 2.5 and 97.5 that numpy is called with.
func TestDefaultPercentiles(t *testing.T) {
	level := 0.95
	if tail := (100 - 100*level) / 2; tail != 2.5 || 100-tail != 97.5 {
		t.Errorf("95%% gives percentiles %v and %v", tail, 100-tail)
	}
}
