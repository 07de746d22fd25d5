package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/lib/ndcg"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// trecExample is lib/ndcg's TestTrecEval worked by hand, as files:
//
//	qrels: q1 0 d1 3 / d2 2 / d3 0 / d4 1 / d5 2 / d6 0; q2 0 d7 1 / d8 2 / d9 0
//	run:   q1: d3 0.9, d1 0.8, d5 0.7, d6 0.6, d2 0.5, d4 0.4
//	       q2: d7 0.9, d8 0.5, d9 0.5 (d8 and d9 tied)
//
// trec_eval -m ndcg_cut.10 ranks q1 as 0 3 2 0 2 1:
// DCG = 3/log2 3 + 2/2 + 2/log2 6 + 1/log2 7 = 4.0227020622914775 and IDCG
// = 3 + 2/log2 3 + 2/2 + 1/log2 5 = 5.692536065216308, so 0.7066625518407885.
// On q2 it breaks the tie by docno descending (d9 before d8): relevances
// 1 0 2, DCG = 1 + 2/2 = 2, IDCG = 2 + 1/log2 3, so 0.76018; we break it
// ascending (d8 before d9): 1 2 0, (1 + 2/log2 3)/(2 + 1/log2 3) = 0.85973.
const (
	trecQrels = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d4 1\nq1 0 d5 2\nq1 0 d6 0\nq2 0 d7 1\nq2 0 d8 2\nq2 0 d9 0\n"
	trecRun   = "q1 Q0 d3 1 0.9 t\nq1 Q0 d1 2 0.8 t\nq1 Q0 d5 3 0.7 t\nq1 Q0 d6 4 0.6 t\nq1 Q0 d2 5 0.5 t\nq1 Q0 d4 6 0.4 t\n" +
		"q2 Q0 d7 1 0.9 t\nq2 Q0 d8 2 0.5 t\nq2 Q0 d9 3 0.5 t\n"
)

func judgedFromText(t *testing.T, qrels string) Judged {
	t.Helper()
	q, err := trec.ReadQrels(strings.NewReader(qrels), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	j, err := JudgedFrom(q, "qrels", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func runFromText(t *testing.T, run string) []trec.RunLine {
	t.Helper()
	l, err := trec.ReadRun(strings.NewReader(run), "run")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestEvalRunTrecEvalByHand(t *testing.T) {
	j := judgedFromText(t, trecQrels)
	res, err := EvalRun(j, runFromText(t, trecRun), "run", EvalOptions{K: 10, Gain: ndcg.Linear})
	if err != nil {
		t.Fatal(err)
	}
	l3 := math.Log2(3)
	q1 := 0.7066625518407885
	ours, theirs := (1+2/l3)/(2+1/l3), 2/(2+1/l3)
	if len(res.Queries) != 2 || !near(res.Queries[0].NDCG, q1) || !near(res.Queries[0].TrecTies, q1) ||
		!near(res.Queries[1].NDCG, ours) || !near(res.Queries[1].TrecTies, theirs) {
		t.Fatalf("per query %+v; want q1 %v (both tie orders), q2 %v ours, %v trec_eval's", res.Queries, q1, ours, theirs)
	}
	if !near(res.Mean, (q1+ours)/2) || !near(res.MeanTrecTies, (q1+theirs)/2) || res.TieDiffers != 1 || res.Tag != "t" {
		t.Errorf("result %+v", res)
	}
	// ndcg_cut.3 of q1: (3/log2 3 + 1)/(3 + 2/log2 3 + 1) = 0.5497655832101642.
	res, err = EvalRun(j, runFromText(t, trecRun), "run", EvalOptions{K: 3, Gain: ndcg.Linear})
	if err != nil || !near(res.Queries[0].NDCG, 0.5497655832101642) {
		t.Errorf("ndcg_cut.3: %+v, %v", res, err)
	}
	// Exponential gain, the report's default: 0.6867739047975651 (lib/ndcg).
	res, err = EvalRun(j, runFromText(t, trecRun), "run", EvalOptions{})
	if err != nil || !near(res.Queries[0].NDCG, 0.6867739047975651) {
		t.Errorf("exponential: %+v, %v", res, err)
	}
}

func TestEvalRunPolicies(t *testing.T) {
	j := judgedFromText(t, trecQrels)
	l3 := math.Log2(3)
	idcg := 5.692536065216308
	// Only q1, and an unjudged dx on top: an error by default, gain 0 with
	// --unjudged zero (ranked 0 0 3 2 0 2 1 → DCG = 3/2 + 2/log2 5 +
	// 2/log2 7 + 1/log2 8).
	partial := "q1 Q0 dx 1 0.95 t\n" + trecRun[:strings.Index(trecRun, "q2")]
	if _, err := EvalRun(j, runFromText(t, partial), "run", EvalOptions{Gain: ndcg.Linear, Missing: PolicySkip}); err == nil ||
		!strings.Contains(err.Error(), "run:1: query q1 retrieves doc dx, which is not judged") {
		t.Errorf("unjudged: %v", err)
	}
	if _, err := EvalRun(j, runFromText(t, trecRun[:strings.Index(trecRun, "q2")]), "run", EvalOptions{}); err == nil ||
		!strings.Contains(err.Error(), "1 judged queries have no run line (first: q2)") {
		t.Errorf("missing: %v", err)
	}
	want := (3.0/2 + 2/math.Log2(5) + 2/math.Log2(7) + 1/3.0) / idcg
	res, err := EvalRun(j, runFromText(t, partial), "run", EvalOptions{Gain: ndcg.Linear, Unjudged: PolicyZero, Missing: PolicySkip})
	if err != nil || len(res.Queries) != 1 || !near(res.Queries[0].NDCG, want) || res.Queries[0].Unjudged != 1 || len(res.Skipped) != 1 || !near(res.Mean, want) {
		t.Errorf("skip: %+v, %v; want %v", res, err, want)
	}
	res, err = EvalRun(j, runFromText(t, partial), "run", EvalOptions{Gain: ndcg.Linear, Unjudged: PolicyZero, Missing: PolicyZero})
	if err != nil || len(res.Queries) != 2 || !res.Queries[1].Missing || !near(res.Mean, want/2) {
		t.Errorf("zero: %+v, %v", res, err)
	}
	// A run of only the top 3 is measured against the ideal of all six.
	top3 := "q1 Q0 d3 1 0.9 t\nq1 Q0 d1 2 0.8 t\nq1 Q0 d5 3 0.7 t\n"
	res, err = EvalRun(j, runFromText(t, top3), "run", EvalOptions{Gain: ndcg.Linear, Missing: PolicySkip})
	if err != nil || !near(res.Mean, (3/l3+1)/idcg) {
		t.Errorf("top 3: %+v, %v", res, err)
	}
	for _, tt := range []struct{ run, want string }{
		{"q1 Q0 d1 1 0.5 a\nq1 Q0 d2 2 0.4 b\n", "run:2: tag \"b\", but line 1 has \"a\": one run per file"},
		{"q9 Q0 d1 1 0.5 a\n", "run:1: query q9 is not judged"},
	} {
		if _, err := EvalRun(j, runFromText(t, tt.run), "run", EvalOptions{Missing: PolicySkip}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.run, err, tt.want)
		}
	}
}

func TestJudgedFrom(t *testing.T) {
	q, _ := trec.ReadQrels(strings.NewReader("q1 0 d1 3\nq1 0 d2 0\n"), "q")
	r, _ := trec.ReadRatings(strings.NewReader(trec.RatingsHeader+"\nq1\td1\t2.5\nq1\td2\t0.25\n"), "r")
	j, err := JudgedFrom(q, "q", r, "r")
	if err != nil || j["q1"]["d1"] != 2.5 || j["q1"]["d2"] != 0.25 {
		t.Errorf("both: %v, %v", j, err)
	}
	bad, _ := trec.ReadQrels(strings.NewReader("q1 0 d1 2\nq1 0 d2 0\n"), "q")
	if _, err := JudgedFrom(bad, "q", r, "r"); err == nil || !strings.Contains(err.Error(), "q:1: query q1 doc d1 has level 2 but its rating in r is 2.5 (level 3)") {
		t.Errorf("disagreeing: %v", err)
	}
	short, _ := trec.ReadQrels(strings.NewReader("q1 0 d1 3\n"), "q")
	if _, err := JudgedFrom(short, "q", r, "r"); err == nil || !strings.Contains(err.Error(), "r rates 2 documents but q judges 1") {
		t.Errorf("short: %v", err)
	}
	neg, _ := trec.ReadQrels(strings.NewReader("q1 0 d1 -1\n"), "q")
	if _, err := JudgedFrom(neg, "q", nil, ""); err == nil || !strings.Contains(err.Error(), "q:1: query q1 doc d1 has relevance -1") {
		t.Errorf("negative: %v", err)
	}
}

// The report's per-query values come back bit for bit from the exported
// ratings TSV and run files through EvalRun, and the qrels are the ratings
// rounded half up.
func TestExportThenEvalRunMatchesReport(t *testing.T) {
	cfg, root, f, dir := setup(t, fabOptions{queries: 11, docs: 8, ranges: 2}, 5)
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "trec")
	sum, err := ExportTREC(context.Background(), root, "r", out, true)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ratings != 11*8 || sum.Queries != 11 || len(sum.RunFiles) != 6 || sum.RunLines != 6*11*8 {
		t.Errorf("summary %+v", sum)
	}
	rf, _ := os.Open(filepath.Join(out, ExportRatings))
	ratings, err := trec.ReadRatings(rf, ExportRatings)
	rf.Close()
	if err != nil {
		t.Fatal(err)
	}
	qf, _ := os.Open(filepath.Join(out, ExportQrels))
	qrels, err := trec.ReadQrels(qf, ExportQrels)
	qf.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range ratings {
		if r.Rating != f.ratings[r.Query][r.Doc] {
			t.Fatalf("ratings.tsv line %d: %v, want %v", r.Line, r.Rating, f.ratings[r.Query][r.Doc])
		}
		if l, _ := trec.Level(r.Rating); qrels[i].Level != l || qrels[i].Doc != r.Doc {
			t.Fatalf("qrels line %d: %+v for rating %v", i+1, qrels[i], r.Rating)
		}
	}
	j, err := JudgedFrom(qrels, ExportQrels, ratings, ExportRatings)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(readReport(t, dir, ReportPerQuery))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []System{{"bm25", "statement-full"}, {"jaccard", "full-full"}} {
		b, err := os.ReadFile(filepath.Join(out, ExportRuns, RunFile(s)))
		if err != nil {
			t.Fatal(err)
		}
		lines, err := trec.ReadRun(bytes.NewReader(b), RunFile(s))
		if err != nil {
			t.Fatal(err)
		}
		res, err := EvalRun(j, lines, RunFile(s), EvalOptions{K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Tag != s.Retriever+"/"+s.Setting {
			t.Errorf("tag %q", res.Tag)
		}
		i := 0
		for _, r := range rows[1:] {
			if r[0] != s.Retriever || r[1] != s.Setting {
				continue
			}
			want, _ := strconv.ParseFloat(r[4], 64)
			if q := res.Queries[i]; q.Query != r[2] || q.NDCG != want {
				t.Errorf("%s %s: eval-run %v, report %v", s, r[2], q.NDCG, want)
			}
			i++
		}
		if i != 11 {
			t.Errorf("%s: %d report rows", s, i)
		}
	}
	readme, _ := os.ReadFile(filepath.Join(out, ExportReadme))
	if !strings.Contains(string(readme), "rounded half up") {
		t.Errorf("README:\n%s", readme)
	}
}

func TestRunFile(t *testing.T) {
	if got := RunFile(System{"org/model v2", "full-full"}); got != "org_model_v2.full-full.run" {
		t.Errorf("RunFile = %q", got)
	}
}
