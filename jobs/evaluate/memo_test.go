package evaluate_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/readers"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/shard"
)

// TestEvaluateComputesEachThingOnce (issue 41): an embedding retriever
// and a cross-encoder evaluated in all three settings, over two query
// ranges, send the server each distinct text (each distinct query–document
// pair) once — plus, apart, the latency sample's texts, which App. C.5
// times cold in the main setting, and which join the memo after — and
// only the sample gets timings. A
// forced rerun sends the sample's texts again (the latency is measured
// anew) and nothing else; with the sample measured, the same rows.
func TestEvaluateComputesEachThingOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv := llmtest.NewServer(t, nil)
	const sampleSize = 2
	cfg, err := config.Parse([]byte(fmt.Sprintf(`run: memo
root: %s/data
log: {progress_seconds: 0}
retrievers:
  emb: {kind: embedding, base_url: %s, model: fake-embed, in_flight: 8, batch_size: 4}
  rr: {kind: rerank, base_url: %s, model: fake-rerank, in_flight: 8, batch_size: 4}
evaluate: {retrievers: [emb, rr], settings: [statement-full, full-full, statement-statement], shards: 2}
report: {latency_queries: %d}
`, dir, srv.URL, srv.URL, sampleSize)), reportdecl.Section)
	if err != nil {
		t.Fatal(err)
	}
	benchmark(t, cfg)
	root, err := store.Open(ctx, cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}

	// What each (query, setting) needs, from the benchmark's own texts.
	docs := corpus(ctx, t, cfg)
	qs, cands := queriesAndCandidates(t, root, cfg.Run)
	var ids []string
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	sample := reportdecl.LatencySample(cfg.Seed, ids, sampleSize)
	var coldTexts, coldPairs []string
	warmTexts, warmPairs := map[string]bool{}, map[string]bool{}
	for _, setting := range cfg.Evaluate.Settings {
		for _, q := range qs {
			var ds []*readers.Doc
			for _, id := range cands[q.ID] {
				ds = append(ds, docs[id])
			}
			qt, dt, err := readers.SettingTexts(setting, docs[q.ID], ds)
			if err != nil {
				t.Fatal(err)
			}
			cold := setting == cfg.MainSetting() && slices.Contains(sample, q.ID)
			if cold {
				coldTexts = append(coldTexts, qt)
			} else {
				warmTexts[qt] = true
			}
			for _, d := range dt {
				if cold {
					coldTexts = append(coldTexts, d)
					coldPairs = append(coldPairs, qt+"\x00"+d)
				} else {
					warmTexts[d], warmPairs[qt+"\x00"+d] = true, true
				}
			}
		}
	}

	run := func(force bool) {
		t.Helper()
		for _, step := range evaluate.Stage.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				if _, err := stage.RunShard(ctx, cfg, evaluate.Stage, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{Force: force}); err != nil {
					t.Fatalf("evaluate %d/%d: %v", i, n, err)
				}
			}
		}
	}
	run(false)
	rows := readRuns(ctx, t, cfg)
	checkScores(ctx, t, cfg, rows, false)
	checkSentOnce(t, "embedded texts", srv.Embedded(), coldTexts, warmTexts)
	checkSentOnce(t, "scored pairs", srv.Scored(), coldPairs, warmPairs)

	// Timings: the sample's queries in the main setting, per retriever.
	timed := map[string][]string{}
	for _, x := range stagetest.ReadAll(t, root, cfg.Run, dataset.Timings) {
		if x.Setting != cfg.MainSetting() {
			t.Errorf("%s timed in %s, which is not the main setting", x.Retriever, x.Setting)
		}
		timed[x.Retriever] = append(timed[x.Retriever], x.Query)
	}
	for _, r := range cfg.Evaluate.Retrievers {
		slices.Sort(timed[r])
		if want := slices.Sorted(slices.Values(sample)); !slices.Equal(timed[r], want) {
			t.Errorf("%s timed on %v, want the latency sample %v", r, timed[r], want)
		}
	}

	// A forced rerun: only the sample is asked again.
	embedded, scored := len(srv.Embedded()), len(srv.Scored())
	run(true)
	if got := len(srv.Embedded()) - embedded; got != len(coldTexts) {
		t.Errorf("the rerun embedded %d texts, want the latency sample's %d", got, len(coldTexts))
	}
	if got := len(srv.Scored()) - scored; got != len(coldPairs) {
		t.Errorf("the rerun scored %d pairs, want the latency sample's %d", got, len(coldPairs))
	}
	if again := readRuns(ctx, t, cfg); !slices.Equal(again, rows) {
		t.Error("the rerun's rows differ from the first run's")
	}
}

// checkSentOnce checks that sent is cold (the latency sample's texts, sent
// as often as the sample asks: its queries read nothing from the memo)
// plus each text of warm at most once: exactly once when no cold query
// needs it, at most once more when one does (not at all when the cold
// query came first and kept it).
func checkSentOnce(t *testing.T, what string, sent, cold []string, warm map[string]bool) {
	t.Helper()
	extra := map[string]int{}
	for _, s := range sent {
		extra[s]++
	}
	inCold := map[string]bool{}
	for _, s := range cold {
		extra[s]--
		inCold[s] = true
	}
	onlyWarm := 0
	for s := range warm {
		if !inCold[s] {
			onlyWarm++
		}
	}
	for s, n := range extra {
		switch {
		case n < 0:
			t.Errorf("%s: a text of the latency sample was sent %d times too few", what, -n)
		case n > 1:
			t.Errorf("%s: %q sent %d times beside the latency sample, want at most once", what, preview(s), n)
		case n == 1 && !warm[s]:
			t.Errorf("%s: %q sent again but needed only by the latency sample", what, preview(s))
		case n == 0 && warm[s] && !inCold[s]:
			t.Errorf("%s: %q needed but never sent", what, preview(s))
		}
	}
	t.Logf("%s: %d sent, %d for the latency sample (cold), %d others (%d needed only by other queries, %d by both)",
		what, len(sent), len(cold), len(sent)-len(cold), onlyWarm, len(warm)-onlyWarm)
	if len(sent) < len(cold)+onlyWarm || len(sent) > len(cold)+len(warm) {
		t.Errorf("%s: %d sent, want the sample's %d + between %d and %d", what, len(sent), len(cold), onlyWarm, len(warm))
	}
}

func preview(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// queriesAndCandidates reads the benchmark's queries and their candidates.
func queriesAndCandidates(t *testing.T, root store.Store, run string) ([]dataset.Query, map[string][]string) {
	t.Helper()
	cands := map[string][]string{}
	for _, r := range stagetest.ReadAll(t, root, run, dataset.Candidates) {
		cands[r.Query] = append(cands[r.Query], r.Doc)
	}
	for q := range cands {
		slices.Sort(cands[q])
	}
	return stagetest.ReadAll(t, root, run, dataset.Queries), cands
}
