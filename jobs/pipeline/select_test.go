package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

// TestBenchmarkIndependentOfShards runs every stage, ingest to select, on a
// generated corpus with 1 shard per stage and with 3, in process: queries
// and candidates (and every report) must be byte-identical; a different
// seed must change them.
func TestBenchmarkIndependentOfShards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	input := filepath.Join(dir, "synth.jsonl")
	writeSynth(t, input, synth.Config{N: 3000, Seed: 11, DupFrac: 0.05})
	root, _ := store.Open(ctx, filepath.Join(dir, "data"), store.Options{})
	run := func(name string, shards int, seed uint64) map[string]string {
		cfg, err := ParseConfig([]byte(fmt.Sprintf(`run: %s
root: %s
seed: %d
log: {progress_seconds: 0}
ingest: {shards: %[4]d, sources: [{name: s, paths: [%[5]s], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]}
dedup: {shards: %[4]d}
tag: {shards: %[4]d}
summarize: {shards: %[4]d}
pairs: {shards: %[4]d}
benchmark: {k: 3}
calibrate: {min_eligible: 5}
select: {per_domain: 5, allow_shortfall: true}
`, name, filepath.Join(dir, "data"), seed, shards, input)))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		// Every step in the graph's order: a step after the writers of its inputs.
		for _, node := range Default().Nodes() {
			st, step := node.Stage, node.Step
			if st.Optional && (st.Enabled == nil || !st.Enabled(cfg)) {
				continue // the release: this config names no date
			}
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				res, err := stage.RunShard(ctx, cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
				if err != nil {
					t.Fatalf("%s: %s %s %d/%d: %v", name, st.Name, step.Name, i, n, err)
				}
				for _, o := range res.Outputs {
					out[o.Key[len(name)+1:]] = o.SHA256
				}
			}
		}
		return out
	}
	one, three, reseeded := run("one", 1, 42), run("three", 3, 42), run("seed", 3, 43)
	keys := []string{
		layout.DataKey("", dataset.Thresholds.Name, shard.Spec{Index: 0, Count: 1})[1:],
		layout.DataKey("", dataset.Queries.Name, shard.Spec{Index: 0, Count: 1})[1:],
		layout.DataKey("", dataset.Candidates.Name, shard.Spec{Index: 0, Count: 1})[1:],
		"reports/calibrate.csv", "reports/calibrate.md", "reports/select.md", "reports/select.json",
	}
	for _, k := range keys {
		if one[k] == "" || one[k] != three[k] {
			t.Errorf("%s: 1 shard %q, 3 shards %q", k, one[k], three[k])
		}
	}
	for _, k := range keys[1:3] {
		if three[k] == reseeded[k] {
			t.Errorf("%s: seed 43 gives the same bytes as seed 42", k)
		}
	}
	qs, err := dataset.Read[dataset.Query](ctx, root, "one/"+keys[1])
	if err != nil || len(qs) == 0 {
		t.Fatalf("queries: %d rows, %v (the test would check nothing)", len(qs), err)
	}
	t.Logf("%d queries selected; queries sha256 %s", len(qs), one[keys[1]])
}
