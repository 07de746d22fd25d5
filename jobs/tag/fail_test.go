package tag

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/shard"
)

var one = shard.Spec{Index: 0, Count: 1}

// failSetup writes a corpus of n algebra documents to a memory root and
// parses the config with tagYAML as tag's section and llmYAML as llm's.
func failSetup(t *testing.T, n int, llmYAML, tagYAML string) (*config.Config, store.Store) {
	t.Helper()
	y := "run: r\nroot: mem\nlog: {progress_seconds: 0}\n"
	if llmYAML != "" {
		y += "llm: " + llmYAML + "\n"
	}
	y += "tag: " + tagYAML + "\n"
	cfg, err := config.Parse([]byte(y), Section)
	if err != nil {
		t.Fatal(err)
	}
	root := store.NewMem()
	var docs []dataset.Document
	for i := range n {
		docs = append(docs, dataset.Document{ID: fmt.Sprintf("d%02d", i), Source: "s",
			Statement: fmt.Sprintf("Solve the quadratic equation x^2 - %dx + 6 = 0 for the polynomial roots.", i+5),
			Solution:  "Factor the polynomial; the discriminant gives the roots of the equation."})
	}
	stagetest.PutOne(t, root, "r", dataset.Corpus, docs)
	return cfg, root
}

// nothingWritten fails unless the shard left neither a manifest nor a part
// of its outputs.
func nothingWritten(t *testing.T, root store.Store) {
	t.Helper()
	ctx := context.Background()
	for _, k := range stage.DoneKeys("r", Stage.Steps[0], one) {
		if done, err := layout.Done(ctx, root, k); err != nil || done {
			t.Errorf("manifest %s written (%v)", k, err)
		}
	}
	for _, ds := range []string{dataset.Topics.Name, dataset.TagRejects.Name} {
		if left, _ := root.List(ctx, "r/"+ds+"/"); len(left) != 0 {
			t.Errorf("%s: wrote %v", ds, left)
		}
	}
}

// TestTagStopsOnConfigError: a server that refuses the key (401), the
// model (403), does not know it (404), or rejects every request (400)
// stops tag at once with exit 2 naming the setting to check, after about
// one request per worker — not a reject per document and a "done" shard —
// and writes nothing.
func TestTagStopsOnConfigError(t *testing.T) {
	t.Setenv("SABER_TEST_TAG_KEY", "sk-wrong")
	for _, tc := range []struct {
		code    int
		want    string
		maxReqs int64
	}{
		{401, "llm.api_key_env: the key in $SABER_TEST_TAG_KEY was refused", 2},
		{403, `llm.model "m" is forbidden`, 2},
		{404, `llm.model "m" or the chat endpoint is unknown to the server`, 2},
		{400, "llm.max_consecutive_rejects", llm.DefaultMaxConsecutiveRejects + 1},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			var n atomic.Int64
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				http.Error(w, `{"error":{"message":"no"}}`, tc.code)
			}))
			defer hs.Close()
			cfg, root := failSetup(t, 30, fmt.Sprintf("{base_url: %q, model: m, api_key_env: SABER_TEST_TAG_KEY, max_attempts: 4, timeout_seconds: 5}", hs.URL+"/v1"), "{backend: llm, workers: 2}")
			_, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
			if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), tc.want) {
				t.Fatalf("err = %v (exit %d); want exit 2 naming %q", err, stage.ExitCode(err), tc.want)
			}
			if n.Load() > tc.maxReqs {
				t.Errorf("%d requests; want at most %d (stop at once)", n.Load(), tc.maxReqs)
			}
			nothingWritten(t, root)
		})
	}
}

// TestTagInvalidShare: a model that never answers the JSON asked for gets
// every document rejected: above tag.max_invalid_share the shard fails
// (exit 2) naming the share, the key and a sample reason, and writes
// nothing; with the threshold at 1 the same shard completes, and its
// manifest counts the share `saber stats` shows.
func TestTagInvalidShare(t *testing.T) {
	srv := llmtest.NewServer(t, func(llmtest.ChatRequest) string { return "I would rather not score these tags." })
	lcfg := fmt.Sprintf("{base_url: %q, model: m, api_key_env: SABER_TEST_UNSET_KEY, timeout_seconds: 5}", srv.URL)
	t.Setenv("SABER_TEST_UNSET_KEY", "")

	cfg, root := failSetup(t, 6, lcfg, "{backend: llm, workers: 2, parse_retries: 1}")
	_, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	for _, w := range []string{"6 of 6 documents rejected (100.0%)", "tag.max_invalid_share = 0.5", "unparseable_answer"} {
		if !strings.Contains(fmt.Sprint(err), w) {
			t.Errorf("err = %v; want it to say %q", err, w)
		}
	}
	if stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("exit %d, want 2", stage.ExitCode(err))
	}
	nothingWritten(t, root)

	cfg, root = failSetup(t, 6, lcfg, "{backend: llm, workers: 2, parse_retries: 1, max_invalid_share: 1}")
	res, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if err != nil {
		t.Fatalf("max_invalid_share 1: %v", err)
	}
	if st := res.Manifest.Stats; st[llmcall.StatInvalidShareCount] != 6 || st[llmcall.StatInvalidShareOf] != 6 {
		t.Errorf("stats %v; want invalid share 6 of 6", st)
	}
}

// TestTagCallBudgetRejects: a document that needs more scorer calls than
// tag.max_calls is a reject naming the key to raise, not the end of the
// shard (exit 1 before); most documents over the budget fail the shard as
// any other invalid share does.
func TestTagCallBudgetRejects(t *testing.T) {
	ctx := context.Background()
	cfg, root := failSetup(t, 4, "", "{max_calls: 1, max_invalid_share: 1}")
	if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{}); err != nil {
		t.Fatalf("exhausted budgets stopped the shard: %v (exit %d)", err, stage.ExitCode(err))
	}
	rejs, err := dataset.Read[dataset.Reject](ctx, root, layout.DataKey("r", dataset.TagRejects.Name, one))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := dataset.Read[dataset.TopicRow](ctx, root, layout.DataKey("r", dataset.Topics.Name, one))
	if err != nil {
		t.Fatal(err)
	}
	if len(rejs) != 4 || len(rows) != 0 {
		t.Fatalf("%d rejects, %d rows; want all 4 documents over a budget of 1 call", len(rejs), len(rows))
	}
	for _, r := range rejs {
		if r.Reason != ReasonCallBudget || !strings.Contains(r.Detail, "raise tag.max_calls (now 1)") {
			t.Errorf("reject %+v; want %s naming tag.max_calls", r, ReasonCallBudget)
		}
	}

	cfg, root = failSetup(t, 4, "", "{max_calls: 1}")
	_, err = stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), "tag.max_invalid_share") || !strings.Contains(fmt.Sprint(err), "raise tag.max_calls") {
		t.Errorf("err = %v (exit %d); want exit 2 naming tag.max_invalid_share and, in the sample, tag.max_calls", err, stage.ExitCode(err))
	}
	nothingWritten(t, root)
}

// TestInsecureKeyIsAConfigError: tag refuses (exit 2, naming
// llm.allow_insecure_key) to send a key over plain http to a host that is
// not loopback: at config load, and at the shard when the base URL comes
// from $SABER_LLM_BASE_URL.
func TestInsecureKeyIsAConfigError(t *testing.T) {
	t.Setenv("SABER_TEST_TAG_KEY", "sk-secret")
	_, err := config.Parse([]byte("run: r\nroot: mem\nllm: {base_url: \"http://10.0.0.7:8000/v1\", model: m, api_key_env: SABER_TEST_TAG_KEY}\ntag: {backend: llm}\n"), Section)
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), "llm.allow_insecure_key") {
		t.Errorf("config: err = %v (exit %d); want exit 2 naming llm.allow_insecure_key", err, stage.ExitCode(err))
	}
	if _, err := config.Parse([]byte("run: r\nroot: mem\nllm: {base_url: \"http://10.0.0.7:8000/v1\", model: m, allow_insecure_key: true}\ntag: {backend: llm}\n"), Section); err != nil {
		t.Errorf("allow_insecure_key: true: %v", err)
	}

	t.Setenv(llm.BaseURLEnv, "http://10.0.0.7:8000/v1")
	cfg, root := failSetup(t, 2, "{model: m, api_key_env: SABER_TEST_TAG_KEY}", "{backend: llm}")
	_, err = stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), "llm.allow_insecure_key") {
		t.Errorf("shard: err = %v (exit %d); want exit 2 naming llm.allow_insecure_key", err, stage.ExitCode(err))
	}
	nothingWritten(t, root)
}
