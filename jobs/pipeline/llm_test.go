package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
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
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

const canaryKey = "sk-test-CANARY-7f3e9a"

// fakeModel answers F.1 with label-overlap scores and F.2 with the start of
// the solution, and answers garbage, always, for about 1 text in 20, so
// that some documents must end in rejects.
func fakeModel(req llmtest.ChatRequest) string {
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	sum := sha256.Sum256([]byte(user))
	if strings.Contains(user, "Solution:") && !strings.Contains(user, "JSON:") {
		// F.2
		if sum[0]%20 == 0 {
			return "Sorry, I can't summarise this."
		}
		words := strings.Fields(user[strings.LastIndex(user, "Solution:")+len("Solution:"):])
		if len(words) > 8 {
			words = words[:8]
		}
		b, _ := json.Marshal(map[string]any{"noCoreIdea": false, "coreIdea": strings.Join(words, " "), "supportingIdeas": []string{"x"}, "keywords": []string{"y"}, "confidence": 0.8})
		return "```json\n" + string(b) + "\n```"
	}
	i := strings.LastIndex(user, "JSON:")
	if i < 0 {
		return "no tags?"
	}
	if sum[1]%25 == 0 {
		return "{not json"
	}
	text := strings.ToLower(user[:i])
	scores := map[string]float64{}
	for _, tag := range strings.Split(user[i+len("JSON:"):], ",") {
		tag = strings.TrimSpace(tag)
		s := 0.01
		for _, w := range strings.Fields(strings.ToLower(tag)) {
			if len(w) > 3 && strings.Contains(text, w) {
				s++
			}
		}
		scores[tag] = s
	}
	b, _ := json.Marshal(scores)
	return string(b)
}

// TestLLMStagesUnderFaults runs tag and summarize with the llm backend
// against the fake server injecting 10% faults of every kind: both stages
// complete, every document is in exactly one of rows or rejects, a rerun
// makes zero calls and gives the same bytes, and the API key is nowhere.
// A tag traversal makes dozens of calls, so fakeModel's 1-in-25 garbage
// rejects about 60% of documents: tag.max_invalid_share is raised to 0.9.
func TestLLMStagesUnderFaults(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.NewServer(t, fakeModel)
	srv.SetFaults(llmtest.Faults{Rate: 0.10, Seed: 3, RetryAfterSeconds: 1})
	t.Setenv("SABER_TEST_LLM_KEY", canaryKey)
	dir := t.TempDir()
	writeSynth(t, filepath.Join(dir, "synth.jsonl"), synth.Config{N: 120, Seed: 9})
	y := fmt.Sprintf(`run: llm
root: %s/data
log: {progress_seconds: 0}
llm: {base_url: %q, model: fake-oss, api_key_env: SABER_TEST_LLM_KEY, timeout_seconds: 2, max_attempts: 8, concurrency: 8}
ingest:
  sources: [{name: s, paths: [%s/synth.jsonl], fields: {id: id, statement: statement, solution: solution, source: source}}]
tag: {shards: 2, backend: llm, max_invalid_share: 0.9}
summarize: {shards: 2, backend: llm}
`, dir, srv.URL, dir)
	cfg, err := ParseConfig([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	var logs bytes.Buffer
	log := zerolog.New(&logs).Level(zerolog.DebugLevel)
	upToLLM, err := Select(cfg, "ingest,dedup,tag,summarize") // through summarize: the LLM stages
	if err != nil {
		t.Fatal(err)
	}
	runAll := func(force bool) {
		for _, st := range upToLLM {
			for _, step := range st.Steps {
				n := step.Count(cfg)
				for i := 0; i < n; i++ {
					if _, err := stage.RunShard(ctx, cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, log, stage.Options{Force: force && (st.Name == "tag" || st.Name == "summarize")}); err != nil {
						t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
					}
				}
			}
		}
	}
	runAll(false)
	if srv.Faulted() == nil || len(srv.Faulted()) < 4 {
		t.Errorf("too few fault kinds injected: %v", srv.Faulted())
	}
	corpus := readAll[dataset.Document](t, root, "llm", "corpus")
	ids := map[string]bool{}
	for _, d := range corpus {
		ids[d.ID] = true
	}
	check := func(rowsDS, rejDS string, rowIDs []string) {
		rejs := readAll[dataset.Reject](t, root, "llm", rejDS)
		seen := map[string]string{}
		for _, id := range rowIDs {
			seen[id] = rowsDS
		}
		for _, r := range rejs {
			if where, dup := seen[r.ID]; dup {
				t.Errorf("%s in both %s and %s", r.ID, where, rejDS)
			}
			seen[r.ID] = rejDS
			if r.Reason != dataset.ReasonUnparseable || !strings.Contains(r.Detail, "answer sha256 ") {
				t.Errorf("reject %+v", r)
			}
		}
		for id := range ids {
			if _, ok := seen[id]; !ok {
				t.Errorf("%s lost: in neither %s nor %s", id, rowsDS, rejDS)
			}
		}
		if len(seen) != len(ids) || len(rejs) == 0 || len(rejs) == len(ids) {
			t.Errorf("%s: %d rows + %d rejects for %d documents", rowsDS, len(rowIDs), len(rejs), len(ids))
		}
	}
	var tagIDs, sumIDs []string
	for _, r := range readAll[dataset.TopicRow](t, root, "llm", "topics") {
		tagIDs = append(tagIDs, r.ID)
	}
	for _, r := range readAll[dataset.Summary](t, root, "llm", "summaries") {
		sumIDs = append(sumIDs, r.ID)
	}
	check("topics", "tag_rejects", tagIDs)
	check("summaries", "summary_rejects", sumIDs)

	before := srv.Requests()
	hashes := manifestHashes(t, root, "llm", "topics", "summaries")
	runAll(true)
	if after := srv.Requests(); after != before {
		t.Errorf("rerun made %d calls, want 0", after-before)
	}
	if got := manifestHashes(t, root, "llm", "topics", "summaries"); fmt.Sprint(got) != fmt.Sprint(hashes) {
		t.Errorf("rerun changed outputs")
	}
	// The key appears in no log line, manifest or cache entry.
	if strings.Contains(logs.String(), canaryKey) {
		t.Error("API key in the logs")
	}
	filepath.Walk(filepath.Join(dir, "data"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(canaryKey)) {
				t.Errorf("API key in %s", p)
			}
		}
		return nil
	})
	ms, _ := layout.Complete(ctx, root, "llm", "topics")
	if ms[0].Stats["llm_calls"]+ms[0].Stats["llm_cached"] == 0 {
		t.Errorf("no llm statistics in the manifest: %v", ms[0].Stats)
	}
	_ = llm.ErrPermanent
}

func readAll[T any](t *testing.T, st store.Store, run, ds string) []T {
	t.Helper()
	// Every dataset has its own manifests, reject datasets included.
	ms, err := layout.Complete(context.Background(), st, run, ds)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, m := range ms {
		if m.Dataset != ds {
			t.Fatalf("manifest of shard %s under %s says dataset %q", m.Spec(), ds, m.Dataset)
		}
		for _, o := range m.Objects(ds) {
			rows, err := dataset.Read[T](context.Background(), st, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rows...)
		}
	}
	return out
}

func manifestHashes(t *testing.T, st store.Store, run string, datasets ...string) map[string]string {
	return outputHashes(t, st, run, datasets...)
}
