package evaluate_test

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// neuralConfig is a small benchmark (benchmark: 3 candidates per category)
// evaluated by an embedding retriever and a reranker on the fake server,
// both with 8 texts in flight as 2 requests of 4, and (when python3 is
// there) the example plugin.
func neuralConfig(t *testing.T, dir, run, url string, plugin bool) *config.Config {
	t.Helper()
	root, _ := filepath.Abs("../..")
	names := "[emb, rr]"
	extra := ""
	if plugin {
		names = "[emb, rr, overlap]"
		extra = fmt.Sprintf(`  overlap:
    kind: plugin
    command: [python3, %s/examples/plugins/overlap.py, --threads, "{threads}"]
    threads: 2
`, root)
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`run: %s
root: %s/data
log: {progress_seconds: 0}
retrievers:
  emb:
    kind: embedding
    base_url: %s
    model: fake-embed
    in_flight: 8
    batch_size: 4
    timeout_seconds: 0.5
  rr:
    kind: rerank
    base_url: %s
    model: fake-rerank
    in_flight: 8
    batch_size: 4
    timeout_seconds: 0.5
%sevaluate: {retrievers: %s, settings: [statement-full, statement-statement]}
`, run, dir, url, url, extra, names)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestNeuralEvaluate runs the evaluate stage with an embedding retriever and
// a reranker against the fake server (and the example plugin): every stored
// score equals the one computed directly from the fake's vectors for the
// setting's texts; the timings measure the batching (80 ms a request, 4
// texts a request, 2 requests at a time); and with 10% injected faults the
// run completes with the same rows and the manifests count one retry per
// fault.
func TestNeuralEvaluate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the pipeline three times")
	}
	ctx := context.Background()
	dir := t.TempDir()
	_, err := exec.LookPath("python3")
	plugin := err == nil
	srv := llmtest.NewServer(t, nil)

	// 1. Clean run, with a fixed delay per request.
	// Long enough that a loaded 2-core CI machine's overhead per round
	// (≈10 ms seen) stays well inside the bound checkTimings allows.
	const delay = 80 * time.Millisecond
	srv.SetDelay(delay)
	clean := neuralConfig(t, dir, "clean", srv.URL, plugin)
	benchmark(t, clean)
	runStages(ctx, t, clean, []stage.Stage{evaluate.Stage})
	rows := readRuns(ctx, t, clean)
	checkScores(ctx, t, clean, rows, plugin)
	checkTimings(ctx, t, clean, delay)
	for _, m := range manifests(ctx, t, clean) {
		if m.Stats["llm_calls"] == 0 && m.Stats["plugin_requests"] == 0 {
			t.Errorf("shard %d: no llm or plugin statistics in the manifest: %v", m.Shard, m.Stats)
		}
	}

	// 2. The same with 10% faults of every transient kind.
	srv.SetDelay(0)
	srv.SetFaults(llmtest.Faults{Rate: 0.1, Seed: 11, SlowDelay: time.Second})
	faulty := neuralConfig(t, dir, "faulty", srv.URL, false)
	benchmark(t, faulty)
	runStages(ctx, t, faulty, []stage.Stage{evaluate.Stage})
	got := readRuns(ctx, t, faulty)
	want := slices.DeleteFunc(slices.Clone(rows), func(r dataset.RunRow) bool { return r.Retriever == "overlap" })
	if len(got) != len(want) {
		t.Fatalf("%d rows with faults, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d differs with faults: %+v vs %+v", i, got[i], want[i])
		}
	}
	var retries, faults int64
	for _, m := range manifests(ctx, t, faulty) {
		retries += m.Stats["llm_retries"]
		if m.Stats["llm_failures"] != 0 {
			t.Errorf("shard %d: %d failed calls", m.Shard, m.Stats["llm_failures"])
		}
	}
	for _, n := range srv.Faulted() {
		faults += n
	}
	t.Logf("%d faults injected (%v), %d retries in the manifests", faults, srv.Faulted(), retries)
	if faults == 0 || retries != faults {
		t.Errorf("%d faults injected, %d retries counted in the manifests; want equal and > 0", faults, retries)
	}
}

func manifests(ctx context.Context, t *testing.T, cfg *config.Config) []*layout.Manifest {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	ms, err := layout.Complete(ctx, root, cfg.Run, "runs")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != cfg.EvalTasks() {
		t.Fatalf("%d manifests, want %d", len(ms), cfg.EvalTasks())
	}
	return ms
}

func corpus(ctx context.Context, t *testing.T, cfg *config.Config) map[string]*readers.Doc {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	docs := map[string]*readers.Doc{}
	ms, err := layout.Complete(ctx, root, cfg.Run, dataset.Corpus.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Corpus.Name) {
			rows, err := dataset.Read[readers.Doc](ctx, root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				docs[rows[i].ID] = &rows[i]
			}
		}
	}
	return docs
}

// checkScores recomputes every row's score from the fake's definitions.
func checkScores(ctx context.Context, t *testing.T, cfg *config.Config, rows []dataset.RunRow, plugin bool) {
	t.Helper()
	docs := corpus(ctx, t, cfg)
	seen := map[string]int{}
	for _, r := range rows {
		seen[r.Retriever]++
		qt, dt, err := readers.SettingTexts(r.Setting, docs[r.Query], []*readers.Doc{docs[r.Doc]})
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		switch r.Retriever {
		case "emb":
			want = llmtest.Cosine(llmtest.EmbedVector(qt), llmtest.EmbedVector(dt[0]))
		case "rr":
			want = llmtest.RelevanceScore(qt, dt[0])
		case "overlap":
			want = jaccard(qt, dt[0])
		}
		if math.Abs(r.Score-want) > 1e-12 {
			t.Fatalf("%s %s %s %s: stored %v, direct %v", r.Retriever, r.Setting, r.Query, r.Doc, r.Score, want)
		}
	}
	if seen["emb"] == 0 || seen["emb"] != seen["rr"] || plugin && seen["overlap"] != seen["emb"] {
		t.Fatalf("rows per retriever: %v", seen)
	}
}

// jaccard is the example plugin's score for ASCII texts: Jaccard of the
// sets of lower-cased \w+ tokens.
func jaccard(q, d string) float64 {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127)
		}) {
			m[w] = true
		}
		return m
	}
	a, b := set(q), set(d)
	inter, union := 0, len(a)
	for w := range b {
		if a[w] {
			inter++
		} else {
			union++
		}
	}
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// checkTimings: a query with n candidates takes ⌈(1+n)/4⌉ embedding
// requests (the query rides with the documents) or ⌈n/4⌉ rerank requests,
// 2 at a time, each delay long at the fake: ⌈requests/2⌉ rounds of delay (for
// the usual n = 9: 3 requests, 2 rounds). The median ratio of
// measured to expected time must lie in [0.8, 1.4].
func checkTimings(ctx context.Context, t *testing.T, cfg *config.Config, delay time.Duration) {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	ms, err := layout.Complete(ctx, root, cfg.Run, dataset.Timings.Name)
	if err != nil {
		t.Fatal(err)
	}
	ratios := map[string][]float64{}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Timings.Name) {
			ts, err := dataset.Read[dataset.Timing](ctx, root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range ts {
				n := int(x.Candidates)
				var requests int
				switch x.Retriever {
				case "emb":
					requests = (1 + n + 3) / 4
				case "rr":
					requests = (n + 3) / 4
				default:
					continue
				}
				rounds := (requests + 1) / 2
				ratios[x.Retriever] = append(ratios[x.Retriever], x.Seconds/(float64(rounds)*delay.Seconds()))
			}
		}
	}
	for r, xs := range ratios {
		slices.Sort(xs)
		med := xs[len(xs)/2]
		t.Logf("%s: median measured/expected time %.3f over %d queries", r, med, len(xs))
		// Below 1.4: requests sent one at a time would take 1.5× the
		// expected time or more (3 requests for 2 rounds at n = 9).
		if med < 0.8 || med > 1.4 {
			t.Errorf("%s: median measured/expected time %.3f, want in [0.8, 1.4] (1.5 or more: requests not sent 2 at a time)", r, med)
		}
	}
	if len(ratios) != 2 {
		t.Errorf("timings for %d retrievers, want 2", len(ratios))
	}
}
