package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/lib/llm/llamatest"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

// realServerConfig is a small benchmark whose every model is a real
// llama-server of .ci/llm-start.sh: tag, summarize, judge and audit on the
// chat model, each server with a grammar that forces its stage's answer
// format (a model of random weights says nothing parseable by itself; the
// grammar files are in .ci/llm/), and evaluate with bm25, an embedding
// retriever, a reranker (both with max_input), and two chat rerankers:
// yes/no by log-probabilities (no grammar: the model's output layer favours
// " yes" and " no") and a number. Tag and summarize sample (temperature
// 1, a seed per request): greedy, a random model gives every document the
// same labels and core idea, every pair is similar on both signals, and no
// query has topic-only or summary-only candidates. The ontology is .ci/llm/ontology.json,
// whose three labels tag.gbnf lists.
func realServerConfig(t *testing.T, dir, judgeRole string) string {
	t.Helper()
	u := func(role string) string { return llamatest.URL(t, role) }
	onto, err := filepath.Abs("../../.ci/llm/ontology.json")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`run: real
root: %[1]s/data
seed: 7
log: {progress_seconds: 0}
llm: {model: tiny, temperature: 0, max_tokens: 64, timeout_seconds: 60, max_attempts: 2, concurrency: 4}
ingest:
  sources: [{name: s, paths: [%[1]s/synth.jsonl], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]
benchmark:
  k: 3
  ontology: {file: %[2]s}
tag: {backend: llm, llm: {base_url: %[3]q, temperature: 1, seed: 7}, max_invalid_share: 0.9}
summarize: {backend: llm, llm: {base_url: %[4]q, max_tokens: 160, temperature: 1, seed: 7}, max_invalid_share: 0.9}
calibrate: {min_eligible: 2}
select: {per_domain: 2, allow_shortfall: true}
judge: {backend: llm, rounds: 3, llm: {base_url: %[5]q, reasoning_effort: low}}
audit: {backend: llm, top: 2, llm: {base_url: %[6]q}, max_invalid_share: 0.9}
retrievers:
  emb: {kind: embedding, base_url: %[7]q, model: tiny-embed, max_input: 150, in_flight: 4}
  rr: {kind: rerank, base_url: %[8]q, model: tiny-rerank, max_input: 150, in_flight: 4}
  yn:
    kind: chat
    base_url: %[9]q
    model: tiny
    prompt: "Query: {query}\nDocument: {doc}\nIs the document relevant to the query? Answer yes or no."
    parser: yes_no
    in_flight: 4
  num:
    kind: chat
    base_url: %[10]q
    model: tiny
    prompt: "Query: {query}\nDocument: {doc}\nRate the document's relevance from 0 to 9."
    parser: number
    max_tokens: 4
    in_flight: 4
evaluate: {retrievers: [bm25, emb, rr, yn, num], settings: [statement-full]}
report: {resamples: 20}
`, dir, onto, u("tag"), u("summarize"), u(judgeRole), u("audit"), u("embed"), u("rerank"), u("chat"), u("number"))
}

// runMain runs every stage of the main line in process, shard by shard.
func runMain(ctx context.Context, t *testing.T, y string, root store.Store) {
	t.Helper()
	cfg, err := ParseConfig([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sel {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				if _, err := stage.RunShard(ctx, cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
					t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
				}
			}
		}
	}
}

// TestRealServerPipeline runs the whole main line, ingest to report,
// with every LLM stage and three kinds of neural retriever on real
// llama-servers (realServerConfig), the judge once on the ChatML model
// and once on the gpt-oss chat template (whose analysis channel the
// server returns as reasoning_content, apart from the verdict): report
// writes Table 1 with every retriever, and the manifests say which model
// each server answered with.
func TestRealServerPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole pipeline against real servers")
	}
	for _, judgeRole := range []string{"judge", "gptoss"} {
		t.Run(judgeRole, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			writeSynth(t, filepath.Join(dir, "synth.jsonl"), synth.Config{N: 150, Seed: 5})
			y := realServerConfig(t, dir, judgeRole)
			cfg, err := ParseConfig([]byte(y))
			if err != nil {
				t.Fatal(err)
			}
			root, err := store.Open(ctx, cfg.RootURI(), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			runMain(ctx, t, y, root)
			if judgeRole == "judge" {
				checkExit2(ctx, t, y, root)
			}

			md, err := os.ReadFile(filepath.Join(dir, "data", "real", "reports", "table1.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []string{"bm25", "emb", "rr", "yn", "num"} {
				if !strings.Contains(string(md), r) {
					t.Errorf("Table 1 has no row for %s:\n%s", r, md)
				}
			}
			for _, ds := range []string{"topics", "summaries", "judgments", "runs"} {
				ms, err := layout.Complete(ctx, root, "real", ds)
				if err != nil {
					t.Fatal(err)
				}
				var described bool
				for _, m := range ms {
					for _, s := range m.LLM {
						if len(s.Models) == 1 && s.Models[0].Meta["n_params"] > 0 {
							described = true
						}
					}
				}
				if !described {
					t.Errorf("%s: no manifest describes its server's model (GET /models)", ds)
				}
			}
			judgments := readAll[dataset.Judgment](t, root, "real", "judgments")
			var valid int
			for _, j := range judgments {
				if !j.Invalid && j.Winner != "" {
					valid++
				}
			}
			if len(judgments) == 0 || valid != len(judgments) {
				t.Errorf("%d of %d judgments have a winner; the grammar forces one in every answer", valid, len(judgments))
			}
		})
	}
}

// checkExit2: an evaluate shard whose retriever's server repeats the same
// failure on every attempt ends with exit 2 after one request, with the
// server's message: 501 from an embedding retriever pointed at a chat
// server (no --embeddings), and 500 "input too large" from one without
// max_input given a text longer than the server's batch.
func checkExit2(ctx context.Context, t *testing.T, y string, root store.Store) {
	t.Helper()
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 80)
	for _, tc := range []struct {
		name, spec, want string
	}{
		{"501", fmt.Sprintf("{kind: embedding, base_url: %q, model: tiny}", llamatest.URL(t, "chat")), "does not support embeddings"},
		{"500", fmt.Sprintf("{kind: embedding, base_url: %q, model: tiny, query_template: %q}", llamatest.URL(t, "embed"), long+"{text}"), "too large to process"},
	} {
		bad := strings.Replace(y, "retrievers:\n", "retrievers:\n  bad: "+tc.spec+"\n", 1)
		bad = strings.Replace(bad, "evaluate: {retrievers: [bm25, emb, rr, yn, num]", "evaluate: {retrievers: [bad]", 1)
		cfg, err := ParseConfig([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		st, err := Select(cfg, "evaluate")
		if err != nil {
			t.Fatal(err)
		}
		step := st[0].Steps[0]
		_, err = stage.RunShard(ctx, cfg, stages.Of(st[0]), step, shard.Spec{Index: 0, Count: step.Count(cfg)}, root, zerolog.Nop(), stage.Options{Force: true})
		if code := stage.ExitCode(err); code != stage.ExitBadInput || err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "giving up after") {
			t.Errorf("%s: exit %d, %v; want exit 2 after one attempt with %q", tc.name, code, err, tc.want)
		}
	}
}
