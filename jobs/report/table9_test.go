package report

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// TestInstructionsTable: evaluate.instructions expands an embedding
// retriever into one variant per instruction (not the lexical one), and
// report's Table 9 puts each variant's overall nDCG beside the default.
func TestInstructionsTable(t *testing.T) {
	dir := t.TempDir()
	y := fmt.Sprintf(`run: r
root: %s
log: {progress_seconds: 0}
retrievers:
  emb: {kind: embedding, base_url: "http://127.0.0.1:9/v1", model: m}
evaluate: {retrievers: [bm25, emb], instructions: [I1, I3], settings: [%s]}
report: {resamples: 50, k: 5}
`, dir, strings.Join(testSettings, ", "))
	path := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, Section)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bm25", "emb", "emb.I1", "emb.I3"}
	if !slices.Equal(cfg.Evaluate.Retrievers, want) || cfg.Retrievers["emb.I3"].Instruction != "I3" {
		t.Fatalf("expanded retrievers %v (emb.I3 %+v), want %v", cfg.Evaluate.Retrievers, cfg.Retrievers["emb.I3"], want)
	}
	// Expansion is idempotent: the printed config loads to the same.
	out, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	again, err := config.Parse(out, Section)
	if err != nil || !slices.Equal(again.Evaluate.Retrievers, want) {
		t.Fatalf("reloaded: %v, %v", again.Evaluate.Retrievers, err)
	}

	ctx := context.Background()
	root, _ := store.Open(ctx, dir, store.Options{})
	fabricate(t, root, "r", fabOptions{queries: 12, docs: 8, ranges: 1, retrievers: want})
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	b, err := store.ReadAll(ctx, root, "r/reports/"+Table9+".csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !slices.Equal(rows[0], []string{"retriever", "default", "I1", "I3"}) || rows[1][0] != "emb" {
		t.Fatalf("table9.csv:\n%s", b)
	}
	results, err := dataset.Read[dataset.Result](ctx, root, layout.DataKey("r", dataset.Results.Name, shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	overall := map[string]float64{}
	for _, r := range results {
		if r.Setting == testSettings[0] && r.Gain == "exponential" && r.Scope == ScopeOverall {
			overall[r.Retriever] = r.NDCG
		}
	}
	for i, name := range []string{"emb", "emb.I1", "emb.I3"} {
		got, err := strconv.ParseFloat(rows[1][1+i], 64)
		if err != nil || got != overall[name] {
			t.Errorf("table9 %s = %q, results say %v", name, rows[1][1+i], overall[name])
		}
	}
}
