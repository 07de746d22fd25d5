package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/ndcg"
)

// The hand-worked trec_eval example of jobs/report's and lib/ndcg's tests:
// q1 scores 0.7066625518407885 in either tie order; q2's tie (d8, d9 at
// 0.5) gives (1 + 2/log2 3)/(2 + 1/log2 3) ascending, 2/(2 + 1/log2 3) in
// trec_eval's descending order.
const (
	cliQrels = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d4 1\nq1 0 d5 2\nq1 0 d6 0\nq2 0 d7 1\nq2 0 d8 2\nq2 0 d9 0\n"
	cliRun   = "q1 Q0 d3 1 0.9 t\nq1 Q0 d1 2 0.8 t\nq1 Q0 d5 3 0.7 t\nq1 Q0 d6 4 0.6 t\nq1 Q0 d2 5 0.5 t\nq1 Q0 d4 6 0.4 t\n" +
		"q2 Q0 d7 1 0.9 t\nq2 Q0 d8 2 0.5 t\nq2 Q0 d9 3 0.5 t\n"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvalRun(t *testing.T) {
	dir := t.TempDir()
	q := write(t, dir, "q.txt", cliQrels)
	r := write(t, dir, "r.run", cliRun)
	bad := write(t, dir, "bad.run", "q1 Q0 d3 1 0.9 t\nq1 Q0 d1 two 0.8 t\n")
	l3 := math.Log2(3)
	q1, ours, theirs := 0.7066625518407885, (1+2/l3)/(2+1/l3), 2/(2+1/l3)
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--help"}, 0, []string{"saber eval-run — score an external TREC run", "trec_eval's ndcg_cut.k", "Exit codes"}},
		{nil, 2, []string{"--run FILE is required"}},
		{[]string{"--run", r}, 2, []string{"--qrels FILE or --ratings-tsv FILE is required"}},
		{[]string{"--run", r, "--qrels", q, "--gain", "log"}, 2, []string{`--gain "log" is not one of exp, linear`}},
		{[]string{"--run", r, "--qrels", q, "--missing", "drop"}, 2, []string{`--missing "drop" is not one of`}},
		{[]string{"--run", bad, "--qrels", q}, 2, []string{bad + `:2: rank "two" is not an integer`}},
		{[]string{"--run", filepath.Join(dir, "nope.run"), "--qrels", q}, 2, []string{"nope.run: no such file"}},
		{[]string{"--run", r, "--qrels", q, "--gain", "linear"}, 0, []string{
			fmt.Sprintf("ndcg@10\tq1\t%.6f\n", q1),
			fmt.Sprintf("ndcg@10\tq2\t%.6f\n", ours),
			fmt.Sprintf("ndcg@10\tall\t%.6f\n", (q1+ours)/2),
			fmt.Sprintf("changes the value of 1 of 2 queries and gives mean %.6f", (q1+theirs)/2),
			"(tag t): 2 queries scored", "linear gain"}},
		{[]string{"--run", r, "--qrels", q, "--k", "3", "--gain", "linear"}, 0, []string{"ndcg@3\tq1\t0.549766\n"}},
	}
	for _, tt := range tests {
		out, code := saber(t, append([]string{"eval-run"}, tt.args...)...)
		for _, w := range tt.want {
			if code != tt.code || !strings.Contains(out, w) {
				t.Errorf("saber eval-run %v: exit %d, want %d and %q; output:\n%s", tt.args, code, tt.code, w, out)
			}
		}
	}
}

// fakeRun writes a run's ratings and one retriever's runs, each with its
// completion manifest, as rate and evaluate would.
func fakeRun(t *testing.T, dir string) (cfg string, want float64) {
	t.Helper()
	ctx := context.Background()
	root, err := store.Open(ctx, filepath.Join(dir, "data"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ratings := []dataset.Rating{
		{Query: "q1", Doc: "a", Rating: 5}, {Query: "q1", Doc: "b", Rating: 2.5}, {Query: "q1", Doc: "c", Rating: 0.4999},
		{Query: "q2", Doc: "a", Rating: 1}, {Query: "q2", Doc: "d", Rating: 3.25},
	}
	runs := []dataset.RunRow{
		{Retriever: "bm25", Setting: "statement-full", Query: "q1", Doc: "b", Score: 2, Rank: 1},
		{Retriever: "bm25", Setting: "statement-full", Query: "q1", Doc: "a", Score: 1, Rank: 2},
		{Retriever: "bm25", Setting: "statement-full", Query: "q1", Doc: "c", Score: 1, Rank: 3},
		{Retriever: "bm25", Setting: "statement-full", Query: "q2", Doc: "a", Score: 0.5, Rank: 1},
		{Retriever: "bm25", Setting: "statement-full", Query: "q2", Doc: "d", Score: 0.25, Rank: 2},
	}
	// Each part with its own completion manifest, as rate and evaluate write them.
	stagetest.PutOne(t, root, "r", dataset.Ratings, ratings)
	stagetest.PutOne(t, root, "r", dataset.Runs, runs)
	a, _ := ndcg.NDCG([]string{"a", "b", "c"}, []float64{1, 2, 1}, []float64{5, 2.5, 0.4999}, ndcg.Options{})
	b, _ := ndcg.NDCG([]string{"a", "d"}, []float64{0.5, 0.25}, []float64{1, 3.25}, ndcg.Options{})
	return write(t, dir, "run.yaml", "run: r\nroot: data\n"), (a + b) / 2
}

func TestExport(t *testing.T) {
	dir := t.TempDir()
	cfg, want := fakeRun(t, dir)
	empty := write(t, dir, "empty.yaml", "run: other\nroot: data\n")
	out := filepath.Join(dir, "trec")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "saber export — write a run's labels"},
		{[]string{"--help"}, 0, "DIR/qrels.txt"},
		{[]string{"csv"}, 2, `unknown format "csv"`},
		{[]string{"--config", cfg}, 2, `unknown format "--config"`},
		{[]string{"trec", "--config", cfg}, 2, "--out DIR is required"},
		{[]string{"trec", "--out", out}, 2, "--config FILE is required"},
		{[]string{"trec", "--config", empty, "--out", out}, 2, "no completed shards"},
		{[]string{"trec", "--config", cfg, "--out", out}, 0, "5 ratings of 2 queries"},
	}
	for _, tt := range tests {
		got, code := saber(t, append([]string{"export"}, tt.args...)...)
		if code != tt.code || !strings.Contains(got, tt.want) {
			t.Errorf("saber export %v: exit %d, want %d and %q; output:\n%s", tt.args, code, tt.code, tt.want, got)
		}
	}
	qrels, err := os.ReadFile(filepath.Join(out, "qrels.txt"))
	if err != nil || string(qrels) != "q1 0 a 5\nq1 0 b 3\nq1 0 c 0\nq2 0 a 1\nq2 0 d 3\n" {
		t.Errorf("qrels.txt: %q, %v", qrels, err)
	}
	run, err := os.ReadFile(filepath.Join(out, "runs", "bm25.statement-full.run"))
	if err != nil || !strings.HasPrefix(string(run), "q1 Q0 b 1 2 bm25/statement-full\nq1 Q0 a 2 1 bm25/statement-full\n") {
		t.Errorf("run file: %q, %v", run, err)
	}
	// The exported files score back to lib/ndcg's value.
	got, code := saber(t, "eval-run", "--qrels", filepath.Join(out, "qrels.txt"), "--ratings-tsv", filepath.Join(out, "ratings.tsv"),
		"--run", filepath.Join(out, "runs", "bm25.statement-full.run"))
	if code != 0 || !strings.Contains(got, fmt.Sprintf("ndcg@10\tall\t%.6f\n", want)) {
		t.Errorf("eval-run on the export: exit %d, want mean %.6f:\n%s", code, want, got)
	}
}

func TestHelpListsEvalRunAndExport(t *testing.T) {
	out, code := saber(t, "--help")
	if code != 0 || !strings.Contains(out, "eval-run") || !strings.Contains(out, "export   write a run's ratings") {
		t.Errorf("saber --help: exit %d\n%s", code, out)
	}
}
