package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
)

func TestMteb(t *testing.T) {
	dir := t.TempDir()
	lb := write(t, dir, "leaderboard.json", `{"entries": [{"retriever": "a", "ndcg": 0.70}, {"retriever": "b", "ndcg": 0.74},
		{"retriever": "c", "ndcg": 0.60}, {"retriever": "d", "ndcg": 0.66}, {"retriever": "e", "ndcg": 0.50},
		{"retriever": "f", "ndcg": 0.72}, {"retriever": "g", "ndcg": 0.41}, {"retriever": "h", "ndcg": 0.45}]}`)
	m := write(t, dir, "mteb.csv", "retriever,mteb_score,release_date\na,70.1,2025-06-01\nb,68.5,2025-03-10\nc,65.0,2024-11-01\nd,65.0,2025-01-01\n"+
		"e,60.2,2023-05-05\nf,58.0,2025-02-02\ng,55.5,2022-01-01\nh,50.0,\nzz,40,2020-01-01\n")
	outPath := filepath.Join(dir, "mteb.md")
	out, code := saber(t, "mteb", "--results", lb, "--mteb", m, "--since", "2025-01-01", "--out", outPath)
	// Values from scipy (jobs/report's TestMTEBCorrelation).
	for _, want := range []string{"| all | 8 | 0.7476 | 0.6826 |", "| released from 2025-01-01 | 4 | -0.0145 | 0.0000 |",
		"| without the 1 largest rank gap | 7 | 0.9165 | 0.9190 | f |", "| without the 2 largest rank gaps | 6 | 0.8997 | 0.9276 | f, a |",
		"8 retrievers with both scores; 1 with an MTEB score not in the results: zz"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	if b, err := os.ReadFile(outPath); err != nil || !strings.Contains(string(b), "| all | 8 | 0.7476 |") {
		t.Errorf("--out: %v\n%s", err, b)
	}

	// The same from `results` parquet, main setting statement-full.
	resDir := filepath.Join(dir, "results")
	st, err := store.Open(context.Background(), resDir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []dataset.Result
	for name, v := range map[string]float64{"a": 0.70, "b": 0.74, "c": 0.60, "d": 0.66, "e": 0.50, "f": 0.72, "g": 0.41, "h": 0.45} {
		rows = append(rows, dataset.Result{Retriever: name, Setting: "statement-full", Gain: "exponential", Scope: "overall", NDCG: v},
			dataset.Result{Retriever: name, Setting: "full-full", Gain: "exponential", Scope: "overall", NDCG: 1 - v},
			dataset.Result{Retriever: name, Setting: "statement-full", Gain: "linear", Scope: "overall", NDCG: 1 - v})
	}
	if _, err := dataset.Results.Write(context.Background(), st, "part-00000-of-00001.parquet", rows); err != nil {
		t.Fatal(err)
	}
	out, code = saber(t, "mteb", "--results", resDir, "--mteb", m)
	if code != 0 || !strings.Contains(out, "| all | 8 | 0.7476 | 0.6826 |") || strings.Contains(out, "released from") || !strings.Contains(out, "statement-full") {
		t.Errorf("from parquet: exit %d\n%s", code, out)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mteb", "--help"}, "release_date   YYYY-MM-DD"},
		{[]string{"mteb"}, "--results and --mteb are required"},
		{[]string{"mteb", "--results", lb, "--mteb", m, "--since", "2025"}, `--since "2025" is not YYYY-MM-DD`},
		{[]string{"mteb", "--results", lb, "--mteb", write(t, dir, "bad.csv", "retriever,mteb_score\n")}, `no column "release_date"`},
	} {
		out, code := saber(t, tt.args...)
		wantCode := 2
		if tt.args[len(tt.args)-1] == "--help" {
			wantCode = 0
		}
		if code != wantCode || !strings.Contains(out, tt.want) {
			t.Errorf("saber %v: exit %d, want %d and %q:\n%s", tt.args, code, wantCode, tt.want, out)
		}
	}
}
