package study

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/stats"
)

// The tiny case of the tests, worked by hand.
//
// Items (A < B by id) and the humans' verdicts:
//
//	1  q1 d1 d2  alice: d1 (label 1)   bob: d1 (label 2, order swapped)
//	2  q1 d3 d4  alice: tie            bob: d4
//	3  q1 d5 d6  alice: d6
//	4  q2 d1 d7  bob: d1
//	5  q1 d2 d4  alice: d2
//
// Inter-annotator: item 1 scores 1, item 2 scores 0.5: n 2, mean 0.75.
//
// Judge (judgments): d1 beats d2 → item 1: 1 and 1 → 1; d4 beats d3 →
// item 2: 0.5 (vs tie) and 1 → 0.75; d5 beats d6 → item 3: 0; item 4's
// only judgment is invalid → excluded; item 5 not judged → excluded.
// n 3, sum 1.75, mean 0.5833, k 2.
//
// Swiss ratings, q1: d1 3, d2 2, d3 1, d4 1, d6 0.7, d5 0.5; q2: d1 only.
// Item 1: d1 → 1; item 2: tie → 1 (alice) and 0.5 (bob) → 0.75; item 3:
// d6 → 1; item 4: d7 unrated → excluded; item 5: d2 → 1. n 4, sum 3.75,
// mean 0.9375, k 4.
//
// Ranks in q1 (θ descending, ties by id): d1 1, d2 2, d3 3, d4 4, d6 5,
// d5 6. Δ: item 1: 1, item 2: 1, item 3: 1, item 5: 2; item 4: none.
const tinyLabels = "\ufeffTarget,candidate1,candidate2,label,annotator,notes\n" +
	"q1,d1,d2,1,alice,\n" +
	"q1,d2,d1,2,bob,swapped\n" +
	"q1,d3,d4,tie,alice,\n" +
	"q1,d3,d4,2,bob,\n" +
	"q1,d5,d6,2,alice,\n" +
	"\n" +
	"q2,d1,d7,1,bob,\n" +
	"q1,d2,d4,TIE,alice,\n"

func tinyFiles(t *testing.T) (judgments, ratings string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	js := []dataset.Judgment{
		{Query: "q1", Round: 1, Match: 0, Sample1: "d2", Sample2: "d1", Winner: "d1"},
		{Query: "q1", Round: 1, Match: 1, Sample1: "d4", Sample2: "d3", Winner: "d4"},
		{Query: "q1", Round: 1, Match: 2, Sample1: "d5", Sample2: "d6", Winner: "d5"},
		{Query: "q2", Round: 1, Match: 0, Sample1: "d7", Sample2: "d1", Invalid: true, Reason: "unparseable"},
		{Query: "q9", Round: 1, Match: 0, Sample1: "d2", Sample2: "d4", Winner: "d4"}, // another query
	}
	if _, err := dataset.Judgments.Write(ctx, st, "judgments.parquet", js); err != nil {
		t.Fatal(err)
	}
	rs := []dataset.Rating{
		{Query: "q1", Doc: "d1", Theta: 3, Rating: 5}, {Query: "q1", Doc: "d2", Theta: 2},
		{Query: "q1", Doc: "d3", Theta: 1}, {Query: "q1", Doc: "d4", Theta: 1},
		{Query: "q1", Doc: "d5", Theta: 0.5}, {Query: "q1", Doc: "d6", Theta: 0.7},
		{Query: "q2", Doc: "d1", Theta: 0.2},
	}
	if _, err := dataset.Ratings.Write(ctx, st, "ratings.parquet", rs); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "judgments.parquet"), filepath.Join(dir, "ratings.parquet")
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestAgreementTiny(t *testing.T) {
	// The last label row is a tie in upper case; change it to 1 for the
	// worked case (item 5: alice prefers d2).
	labels, err := ReadLabels(strings.NewReader(strings.Replace(tinyLabels, "d4,TIE,alice", "d4,1,alice", 1)), "tiny.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) != 7 || labels[1].Line != 3 || labels[5].Line != 8 {
		t.Fatalf("labels %+v", labels)
	}
	jp, rp := tinyFiles(t)
	ctx := context.Background()
	jrows, err := ReadParquet[JudgmentRow](ctx, jp, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	judge, err := JudgeSystem(jp, jrows)
	if err != nil {
		t.Fatal(err)
	}
	judge.Name = "Pairwise judge"
	rrows, err := ReadParquet[RatingRow](ctx, rp, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rank, err := NewRanking(rp, rrows)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Agreements(labels, []System{judge, rank.System("Swiss ranking")},
		AgreementConfig{Deltas: []int{0, 2}, DeltaRanking: rank, DeltaFrom: "Swiss"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Labels != 7 || res.Items != 5 || res.MultiItems != 2 || res.NoDelta != 1 || strings.Join(res.Annotators, ",") != "alice,bob" {
		t.Errorf("counts: %+v", res)
	}

	in := res.Inter
	if in.N != 2 || !near(in.Mean, 0.75) || in.K != 1 || in.Half != 1 || in.P != 1 {
		t.Errorf("inter-annotator %+v", in)
	}
	if in.ByDelta[0].N != 2 || !near(in.ByDelta[0].Mean, 0.75) || in.ByDelta[1].N != 0 || !math.IsNaN(in.ByDelta[1].Mean) {
		t.Errorf("inter-annotator by Δ %+v", in.ByDelta)
	}

	j := res.Systems[0]
	if j.N != 3 || !near(j.Sum, 1.75) || !near(j.Mean, 1.75/3) || j.K != 2 || j.Half != 1 {
		t.Errorf("judge %+v", j)
	}
	if j.Excluded[ReasonInvalid] != 1 || j.Excluded[ReasonNotJudged] != 1 {
		t.Errorf("judge excluded %v", j.Excluded)
	}
	if lo, hi := stats.Wilson(1.75/3, 3, stats.Z95); j.Lo != lo || j.Hi != hi || j.P != stats.BinomTest(2, 3, 0.5) || j.P != 1 {
		t.Errorf("judge interval [%v, %v] p %v", j.Lo, j.Hi, j.P)
	}
	if j.ByDelta[0].N != 3 || !near(j.ByDelta[0].Mean, 1.75/3) || j.ByDelta[1].N != 0 {
		t.Errorf("judge by Δ %+v", j.ByDelta)
	}

	s := res.Systems[1]
	if s.N != 4 || !near(s.Mean, 0.9375) || s.K != 4 || s.Half != 1 || s.Excluded[ReasonNotRated] != 1 {
		t.Errorf("swiss %+v", s)
	}
	// 4 of 4 at p = 0.5, two-sided: 2/16.
	if !near(s.P, 0.125) {
		t.Errorf("swiss p %v, want 0.125", s.P)
	}
	if s.ByDelta[0].N != 4 || !near(s.ByDelta[0].Mean, 0.9375) || s.ByDelta[1].N != 1 || s.ByDelta[1].Mean != 1 {
		t.Errorf("swiss by Δ %+v", s.ByDelta)
	}

	md := res.Markdown()
	for _, want := range []string{
		"7 labels by 2 annotators (alice, bob) on 5 items; 2 items labelled by ≥ 2 annotators",
		"| Inter-annotator | 2 | 0.750 |",
		"| Pairwise judge | 3 | 0.583 |",
		"2 (judgment invalid: 1; pair not judged: 1)",
		"| Swiss ranking | 4 | 0.938 |",
		"| Method | Δ ≥ 0 | Δ ≥ 2 |",
		"| Swiss ranking | 93.8% (n=4) | 100.0% (n=1) |",
		"1 items have no Δ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	t6 := string(res.Table6CSV())
	if !strings.Contains(t6, "Pairwise judge,3,0.583333,1.75,2,") || !strings.Contains(t6, "Swiss ranking,4,0.937500,3.75,4,") {
		t.Errorf("agreement.csv:\n%s", t6)
	}
	t5 := string(res.Table5CSV())
	if !strings.Contains(t5, "Swiss ranking,Swiss,2,1,1.000000") || !strings.Contains(t5, "Pairwise judge,Swiss,2,0,\n") {
		t.Errorf("agreement_delta.csv:\n%s", t5)
	}
	items := string(res.ItemsCSV())
	for _, want := range []string{
		"q1,d1,d2,alice=d1; bob=d1,1,d1,1.000,d1,1.000",
		"q1,d3,d4,alice=tie; bob=d4,1,d4,0.750,tie,0.750",
		"q2,d1,d7,bob=d1,,none: judgment invalid,,none: candidate not rated,",
	} {
		if !strings.Contains(items, want) {
			t.Errorf("agreement_items.csv lacks %q:\n%s", want, items)
		}
	}
	if len(res.Files()) != 4 {
		t.Error("files")
	}
}

func TestScore(t *testing.T) {
	for _, c := range []struct {
		x, y string
		want float64
	}{{"a", "a", 1}, {Tie, Tie, 1}, {"a", Tie, 0.5}, {Tie, "b", 0.5}, {"a", "b", 0}} {
		if got := Score(c.x, c.y); got != c.want {
			t.Errorf("Score(%q, %q) = %v", c.x, c.y, got)
		}
	}
}

// TestRoundTowardHalf pins the binomial test's treatment of half-points:
// nearest integer, an exact half toward n/2.
func TestRoundTowardHalf(t *testing.T) {
	for _, c := range []struct {
		sum  float64
		n, k int
	}{
		{3, 5, 3}, {1.75, 3, 2}, {1.25, 3, 1}, {1.5, 2, 1}, {2.5, 2, 2},
		{3.5, 10, 4}, {3.5, 4, 3}, {155.5, 200, 155}, {44.5, 200, 45}, {0.5, 1, 0}, {0.5, 4, 1},
		{0.1 + 0.2 + 0.2, 2, 1}, // 0.5 up to round-off, toward n/2 = 1
	} {
		if got := RoundTowardHalf(c.sum, c.n); got != c.k {
			t.Errorf("RoundTowardHalf(%v, %d) = %d, want %d", c.sum, c.n, got, c.k)
		}
	}
	// The consequence: 155.5 of 200 (the paper's 0.7775) is tested as 155.
	if p := stats.BinomTest(RoundTowardHalf(155.5, 200), 200, 0.5); p != stats.BinomTest(155, 200, 0.5) {
		t.Error("155.5 not tested as 155")
	}
}

func TestJudgeSystemMajority(t *testing.T) {
	rows := []JudgmentRow{
		{Query: "q", Sample1: "a", Sample2: "b", Winner: "a"},
		{Query: "q", Sample1: "b", Sample2: "a", Winner: "a"},
		{Query: "q", Sample1: "a", Sample2: "b", Winner: "b"},
		{Query: "q", Sample1: "c", Sample2: "d", Winner: "c"},
		{Query: "q", Sample1: "d", Sample2: "c", Winner: "c"},
		{Query: "q", Sample1: "c", Sample2: "d", Winner: "d"},
		{Query: "q", Sample1: "d", Sample2: "c", Winner: "d"},
		{Query: "q", Sample1: "e", Sample2: "f", Invalid: true},
		{Query: "q", Sample1: "f", Sample2: "e", Winner: "e"},
	}
	sys, err := JudgeSystem("votes", rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b string
		want Verdict
		ok   bool
	}{{"b", "a", "a", true}, {"c", "d", Tie, true}, {"e", "f", "e", true}, {"a", "c", Tie, false}} {
		v, ok, _ := sys.Answer("q", c.a, c.b)
		if v != c.want || ok != c.ok {
			t.Errorf("%s vs %s: %q %v, want %q %v", c.a, c.b, v, ok, c.want, c.ok)
		}
	}
	if _, err := JudgeSystem("bad", []JudgmentRow{{Query: "q", Sample1: "a", Sample2: "b", Winner: "z"}}); err == nil || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("bad winner: %v", err)
	}
}

func TestRankingErrors(t *testing.T) {
	if _, err := NewRanking("r", []RatingRow{{Query: "q", Doc: "a"}, {Query: "q", Doc: "a", Theta: 1}}); err == nil || !strings.Contains(err.Error(), "rates a twice") {
		t.Errorf("duplicate: %v", err)
	}
}

func TestReadLabelsErrors(t *testing.T) {
	for name, tc := range map[string]struct{ csv, want string }{
		"empty":     {"", "empty file"},
		"columns":   {"target,candidate1,label\nq,a,1\n", "missing column(s) candidate2, annotator"},
		"label":     {"target,candidate1,candidate2,label,annotator\nq,a,b,1,x\nq,a,c,3,x\n", `tiny.csv line 3: label "3": want 1`},
		"same":      {"target,candidate1,candidate2,label,annotator\nq,a,a,1,x\n", "candidate1 and candidate2 are both"},
		"blank":     {"target,candidate1,candidate2,label,annotator\nq,a,b,1,\n", "line 2: empty annotator"},
		"no rows":   {"target,candidate1,candidate2,label,annotator\n", "no label rows"},
		"quote":     {"target,candidate1,candidate2,label,annotator\nq,\"a,b,1,x\n", "tiny.csv"},
		"dup col":   {"target,Target,candidate1,candidate2,label,annotator\n", `column "target" twice`},
		"short row": {"target,candidate1,candidate2,label,annotator\nq,a,b\n", "line 2: empty label"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadLabels(strings.NewReader(tc.csv), "tiny.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) || stage.ExitCode(err) != stage.ExitBadInput {
				t.Errorf("err %v, want bad input with %q", err, tc.want)
			}
		})
	}
	labels, _ := ReadLabels(strings.NewReader(tinyLabels), "tiny.csv")
	dup := append(labels, Label{Target: "q1", Candidate1: "d2", Candidate2: "d1", Label: "1", Annotator: "alice", Line: 99})
	if _, err := Agreements(dup, nil, AgreementConfig{}); err == nil || !strings.Contains(err.Error(), "twice (lines 2 and 99)") {
		t.Errorf("duplicate annotation: %v", err)
	}
}
