package evaluate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/lexical"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

func runStages(ctx context.Context, t *testing.T, cfg *config.Config, stages []stage.Stage) {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	for _, st := range stages {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				if _, err := stage.RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
					t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
				}
			}
		}
	}
}

func stagesThrough(t *testing.T, name string) []stage.Stage {
	for i, st := range pipeline.Stages {
		if st.Name == name {
			return pipeline.Stages[:i+1]
		}
	}
	t.Fatalf("no stage %s", name)
	return nil
}

func readRuns(ctx context.Context, t *testing.T, cfg *config.Config) []dataset.RunRow {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	ms, err := layout.Complete(ctx, root, cfg.Run, "runs")
	if err != nil {
		t.Fatal(err)
	}
	var out []dataset.RunRow
	for _, m := range ms {
		for _, o := range m.Outputs {
			if strings.Contains(o.Key, "/runs/") {
				rows, err := dataset.Read[dataset.RunRow](ctx, root, o.Key)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, rows...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return dataset.Runs.Compare(&out[i], &out[j]) < 0 })
	return out
}

// TestEvaluate ranks the benchmark with two retrievers in two settings:
// every score equals the scorer called directly on the setting's texts,
// ranks follow scores with ties by document id, and 1 or 3 query ranges
// give the same rows, whether queries are scored one at a time (each on
// every core) or one per core.
func TestEvaluate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	input := synthInput(t, dir)
	mk := func(run string, shards, workers int) *config.Config {
		cfg, err := config.Parse([]byte(fmt.Sprintf(`run: %s
root: %s/data
log: {progress_seconds: 0}
ingest: {sources: [{name: s, paths: [%s], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]}
calibrate: {min_eligible: 3}
select: {k: 3, per_domain: 3, allow_shortfall: true}
evaluate: {shards: %d, workers: %d, retrievers: [bm25, jaccard-no-tok], settings: [statement-full, statement-statement]}
`, run, dir, input, shards, workers)))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	// workers: 1 leaves the other cores to each query's BM25 index.
	one, three := mk("one", 1, 0), mk("three", 3, 1)
	if three.EvalTasks() != 12 {
		t.Fatalf("EvalTasks = %d, want 3 × 2 × 2", three.EvalTasks())
	}
	for _, cfg := range []*config.Config{one, three} {
		runStages(ctx, t, cfg, stagesThrough(t, "select"))
		runStages(ctx, t, cfg, []stage.Stage{evaluate.Stage})
	}
	a, b := readRuns(ctx, t, one), readRuns(ctx, t, three)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("rows: %d with 1 query range, %d with 3", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d: %+v vs %+v", i, a[i], b[i])
		}
	}
	// Recompute every query's scores directly.
	root, _ := store.Open(ctx, one.RootURI(), store.Options{})
	docs := map[string]*stage.Doc{}
	ms, _ := layout.Complete(ctx, root, "one", "corpus")
	for _, m := range ms {
		for _, o := range m.Outputs {
			if strings.Contains(o.Key, "/corpus/") {
				rows, _ := dataset.Read[stage.Doc](ctx, root, o.Key)
				for i := range rows {
					docs[rows[i].ID] = &rows[i]
				}
			}
		}
	}
	type key struct{ r, s, q string }
	groups := map[key][]dataset.RunRow{}
	for _, r := range a {
		k := key{r.Retriever, r.Setting, r.Query}
		groups[k] = append(groups[k], r)
	}
	if len(groups) == 0 {
		t.Fatal("no runs")
	}
	for k, rows := range groups {
		// The stage hands candidates over in document id order; sums in
		// BM25's statistics depend on that order in the last bits.
		sc, _ := lexical.Lookup(k.r)
		byID := append([]dataset.RunRow(nil), rows...)
		sort.Slice(byID, func(i, j int) bool { return byID[i].Doc < byID[j].Doc })
		var ds []*stage.Doc
		for _, r := range byID {
			ds = append(ds, docs[r.Doc])
		}
		qt, dt, err := evaluate.Texts(k.s, docs[k.q], ds)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := sc.Score(qt, dt)
		for i, r := range byID {
			if r.Score != want[i] {
				t.Fatalf("%v %s: score %v, direct %v", k, r.Doc, r.Score, want[i])
			}
		}
		for i, r := range rows {
			if r.Rank != int32(i+1) {
				t.Fatalf("%v: rank %d at position %d", k, r.Rank, i)
			}
			if i > 0 && (rows[i-1].Score < r.Score || rows[i-1].Score == r.Score && rows[i-1].Doc > r.Doc) {
				t.Fatalf("%v: %+v ranked after %+v", k, r, rows[i-1])
			}
		}
	}
}

func TestTexts(t *testing.T) {
	q := &stage.Doc{ID: "q", Statement: "QS", Solution: "QA"}
	d := []*stage.Doc{{ID: "d", Statement: "DS", Solution: "DA"}}
	for _, tt := range []struct{ setting, q, d string }{
		{"statement-full", "QS", "DS\n\nDA"}, {"full-full", "QS\n\nQA", "DS\n\nDA"}, {"statement-statement", "QS", "DS"},
	} {
		qt, dt, err := evaluate.Texts(tt.setting, q, d)
		if err != nil || qt != tt.q || dt[0] != tt.d {
			t.Errorf("%s: %q %q %v", tt.setting, qt, dt, err)
		}
	}
	if _, _, err := evaluate.Texts("full-statement", q, d); err == nil {
		t.Error("unknown setting accepted")
	}
}

// synthInput writes the generated corpus (1,500 problems, seed 3) that the
// evaluate tests start from into dir and returns its path.
func synthInput(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "synth.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, synth.Config{N: 1500, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
