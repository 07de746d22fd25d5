package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/dedup"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/llm/llamatest"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

// Goals of issue 41 on CI's llama-server (4 slots, prefix cache on, its
// default): the share of the prompt tokens sent that the server served
// from its cache rather than evaluated.
const (
	judgeCachedGoal = 0.50
	tagCachedGoal   = 0.60
)

// deepOntology has the three labels tag.gbnf allows (.ci/llm/ontology.json's)
// at two levels, each domain's children the other two: a document's
// descent is several F.1 calls in sequence, as on the demo's ontology,
// where .ci/llm/ontology.json's flat one makes it a single call.
const deepOntology = `{"nodes": [
  {"id": "alg", "label": "Algebra"}, {"id": "geo", "label": "Geometry"}, {"id": "nt", "label": "Number Theory"},
  {"id": "alg.geo", "label": "Geometry"}, {"id": "alg.nt", "label": "Number Theory"},
  {"id": "geo.alg", "label": "Algebra"}, {"id": "geo.nt", "label": "Number Theory"},
  {"id": "nt.alg", "label": "Algebra"}, {"id": "nt.geo", "label": "Geometry"}
], "edges": [
  {"parent": "alg", "child": "alg.geo"}, {"parent": "alg", "child": "alg.nt"},
  {"parent": "geo", "child": "geo.alg"}, {"parent": "geo", "child": "geo.nt"},
  {"parent": "nt", "child": "nt.alg"}, {"parent": "nt", "child": "nt.geo"}
]}`

// TestRealServerPromptCacheShare runs the demo's tag and judge stages
// (the demo's benchmark.k and two shards each, fewer problems, queries
// and rounds; judge.prompt_order: shared_first) with backend llm on
// .ci/llm-start.sh's servers (4 slots each, llama-server's prefix cache on
// by default), and reads from the shards' manifests the prompt tokens each
// stage's server evaluated and served from its cache: every answer
// reports them, they add up to the prompt tokens, and the cached share
// meets issue 41's goal.
func TestRealServerPromptCacheShare(t *testing.T) {
	if testing.Short() {
		t.Skip("tag and judge against real servers")
	}
	tagURL, sumURL, judgeURL := llamatest.URL(t, "tag"), llamatest.URL(t, "summarize"), llamatest.URL(t, "judge")
	ctx := context.Background()
	dir := t.TempDir()
	writeSynth(t, filepath.Join(dir, "synth.jsonl"), synth.Config{N: 300, Seed: 5})
	onto := filepath.Join(dir, "ontology.json")
	if err := os.WriteFile(onto, []byte(deepOntology), 0o644); err != nil {
		t.Fatal(err)
	}
	y := fmt.Sprintf(`run: prefix
root: %[1]s/data
seed: 7
log: {progress_seconds: 0}
llm: {model: tiny, temperature: 0, max_tokens: 64, timeout_seconds: 60, max_attempts: 2, concurrency: 4}
ingest:
  shards: 2
  sources: [{name: s, paths: [%[1]s/synth.jsonl], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]
dedup: {shards: 2}
benchmark:
  k: 5
  ontology: {file: %[2]s}
tag: {shards: 2, backend: llm, llm: {base_url: %[3]q, temperature: 1, seed: 7}, max_invalid_share: 0.9}
summarize: {shards: 2, backend: llm, llm: {base_url: %[4]q, max_tokens: 160, temperature: 1, seed: 7}, max_invalid_share: 0.9}
pairs: {shards: 2}
calibrate: {min_eligible: 2}
select: {per_domain: 2, allow_shortfall: true}
judge: {shards: 2, backend: llm, rounds: 4, prompt_order: shared_first, llm: {base_url: %[5]q}}
`, dir, onto, tagURL, sumURL, judgeURL)
	cfg, err := ParseConfig([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Select gives the declarations: the stages' code runs in process.
	for _, st := range []stage.Stage{ingest.Stage, dedup.Stage, tag.Stage, summarize.Stage, pairs.Stage, calibrate.Stage, selection.Stage, judge.Stage} {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := range n {
				if _, err := stage.RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
					t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
				}
			}
		}
	}
	for _, c := range []struct {
		stage, dataset string
		goal           float64
	}{{"tag", "topics", tagCachedGoal}, {"judge", "judgments", judgeCachedGoal}} {
		ms, err := layout.Complete(ctx, root, "prefix", c.dataset)
		if err != nil {
			t.Fatal(err)
		}
		sum := map[string]int64{}
		for _, m := range ms {
			for k, v := range m.Stats {
				sum[k] += v
			}
		}
		ev, ca, reports := sum[llmcall.StatPromptEvaluated], sum[llmcall.StatPromptCached], sum[llmcall.StatPromptCacheReports]
		answers := sum["llm_calls"] - sum["llm_cached"] - sum["llm_failures"]
		if answers == 0 || reports != answers {
			t.Errorf("%s: %d of %d server answers reported their prompt cache", c.stage, reports, answers)
			continue
		}
		if ev+ca != sum["llm_prompt_tokens"] {
			t.Errorf("%s: %d evaluated + %d cached prompt tokens, but usage says %d", c.stage, ev, ca, sum["llm_prompt_tokens"])
		}
		share := float64(ca) / float64(ev+ca)
		t.Logf("%s: %d requests, %d prompt tokens, %d served from the server's cache (%.1f%%), %d evaluated", c.stage, answers, ev+ca, ca, 100*share, ev)
		if share < c.goal {
			t.Errorf("%s: %.1f%% of the prompt tokens served from the server's cache, want at least %.0f%%", c.stage, 100*share, 100*c.goal)
		}
	}
}
