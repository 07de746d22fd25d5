package evaluate_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
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

// benchmark writes what select and dedup would have given evaluate: a
// corpus of generated problems (two parts), and per domain 3 queries with
// 3 candidates in each category (9 per query, all of the query's domain),
// each dataset with its own completion manifest.
func benchmark(t *testing.T, cfg *config.Config) {
	t.Helper()
	root, err := store.Open(context.Background(), cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	var docs []dataset.Document
	byDomain := map[string][]string{}
	for i := 0; i < n; i++ {
		p := synth.Generate(synth.Config{N: n, Seed: 3}, i)
		docs = append(docs, dataset.Document{ID: p.ID, Source: p.Source, Statement: p.Statement, Solution: p.Solution, Subject: p.Domain, Origin: "synth"})
		byDomain[p.Domain] = append(byDomain[p.Domain], p.ID)
	}
	var qs []dataset.Query
	var cands []dataset.Candidate
	cats := []string{"topic", "summary", "both"}
	for _, d := range synth.Domains() {
		ids := byDomain[d]
		if len(ids) < 3+3*9 {
			t.Fatalf("domain %s has %d documents", d, len(ids))
		}
		for j := 0; j < 3; j++ {
			q := ids[j]
			qs = append(qs, dataset.Query{ID: q, Domain: d, TopicOnly: 3, SummaryOnly: 3, Both: 3, TauTopic: 0.858, TauSumm: 0.211})
			for k, doc := range ids[3+9*j : 3+9*j+9] {
				cands = append(cands, dataset.Candidate{Query: q, Doc: doc, Category: cats[k%3], SimTopic: 0.9, SimSumm: 0.3})
			}
		}
	}
	slices.SortFunc(docs, func(a, b dataset.Document) int { return strings.Compare(a.ID, b.ID) })
	for i := 0; i < 2; i++ {
		spec := shard.Spec{Index: i, Count: 2}
		lo, hi := spec.Range(len(docs))
		stagetest.Put(t, root, cfg.Run, dataset.Corpus, spec, slices.Clone(docs[lo:hi]))
	}
	stagetest.PutOne(t, root, cfg.Run, dataset.Queries, qs)
	stagetest.PutOne(t, root, cfg.Run, dataset.Candidates, cands)
}

func readRuns(ctx context.Context, t *testing.T, cfg *config.Config) []dataset.RunRow {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	out := stagetest.ReadAll(t, root, cfg.Run, dataset.Runs)
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
	mk := func(run string, shards, workers int) *config.Config {
		cfg, err := config.Parse([]byte(fmt.Sprintf(`run: %s
root: %s/data
log: {progress_seconds: 0}
evaluate: {shards: %d, workers: %d, retrievers: [bm25, jaccard-no-tok], settings: [statement-full, statement-statement]}
`, run, dir, shards, workers)))
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
		benchmark(t, cfg)
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
	docs := map[string]*readers.Doc{}
	ms, err := layout.Complete(ctx, root, "one", dataset.Corpus.Name)
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
		var ds []*readers.Doc
		for _, r := range byID {
			ds = append(ds, docs[r.Doc])
		}
		qt, dt, err := readers.SettingTexts(k.s, docs[k.q], ds)
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
	q := &readers.Doc{ID: "q", Statement: "QS", Solution: "QA"}
	d := []*readers.Doc{{ID: "d", Statement: "DS", Solution: "DA"}}
	for _, tt := range []struct{ setting, q, d string }{
		{"statement-full", "QS", "DS\n\nDA"}, {"full-full", "QS\n\nQA", "DS\n\nDA"}, {"statement-statement", "QS", "DS"},
	} {
		qt, dt, err := readers.SettingTexts(tt.setting, q, d)
		if err != nil || qt != tt.q || dt[0] != tt.d {
			t.Errorf("%s: %q %q %v", tt.setting, qt, dt, err)
		}
	}
	if _, _, err := readers.SettingTexts("full-statement", q, d); err == nil {
		t.Error("unknown setting accepted")
	}
}

// TestEvaluateManifests: each shard writes runs and timings, each with its
// own completion manifest (copies of one manifest: same hash, inputs and
// outputs; each its own dataset, format and rows), and is done only when
// both exist: with one missing the shard is redone, to the same bytes.
// The manifests record the systems evaluated (evaluate.retrievers,
// settings, instructions, the retrievers' definitions) but not evaluate's
// shards and workers or a retriever's endpoint, which are operational:
// changing those keeps every done shard current. Inputs are the parts of
// queries, candidates and corpus, each hashed as read.
func TestEvaluateManifests(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mk := func(workers int, baseURL string) *config.Config {
		cfg, err := config.Parse([]byte(fmt.Sprintf(`run: m
root: %s/data
log: {progress_seconds: 0}
retrievers:
  emb: {kind: embedding, base_url: %q, model: m}
evaluate: {shards: 2, workers: %d, retrievers: [bm25, jaccard], settings: [full-full]}
`, dir, baseURL, workers)))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := mk(2, "http://127.0.0.1:9/v1")
	benchmark(t, cfg)
	runStages(ctx, t, cfg, []stage.Stage{evaluate.Stage})
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	step := evaluate.Stage.Steps[0]
	if n := step.Count(cfg); n != 4 {
		t.Fatalf("%d shards, want 2 ranges × 2 retrievers", n)
	}
	written := map[string]string{}
	for _, ds := range []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name} {
		ms, err := layout.Complete(ctx, root, "m", ds)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			for _, o := range m.Objects(ds) {
				written[o.Key] = o.SHA256
			}
		}
	}
	for i := 0; i < 4; i++ {
		spec := shard.Spec{Index: i, Count: 4}
		keys := stage.DoneKeys("m", step, spec)
		if !slices.Equal(keys, []string{layout.DoneKey("m", "runs", spec), layout.DoneKey("m", "timings", spec)}) {
			t.Fatalf("done keys %v", keys)
		}
		var ms []*layout.Manifest
		for _, k := range keys {
			m, err := layout.ReadDone(ctx, root, k)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		for j, ds := range []dataset.Info{dataset.Runs.Info(), dataset.Timings.Info()} {
			m := ms[j]
			objs := m.Objects(ds.Name)
			// A measurement's part is named by its bytes (see layout.MeasurementKey).
			want := func(o layout.Object) string { return layout.DataKey("m", ds.Name, spec) }
			if ds.Measurement {
				want = func(o layout.Object) string { return layout.MeasurementKey("m", ds.Name, spec, o.SHA256) }
			}
			if m.Dataset != ds.Name || m.Format != ds.Version || len(objs) != 1 || objs[0].Key != want(objs[0]) || m.Rows != objs[0].Rows || m.Rows == 0 {
				t.Errorf("shard %s: %s manifest: dataset %q format %d rows %d, parts %+v", spec, ds.Name, m.Dataset, m.Format, m.Rows, objs)
			}
		}
		if ms[0].Hash == "" || ms[0].Hash != ms[1].Hash || !slices.Equal(ms[0].Inputs, ms[1].Inputs) || !slices.Equal(ms[0].Outputs, ms[1].Outputs) {
			t.Errorf("shard %s: the runs and timings manifests are not copies of one", spec)
		}
		m := ms[0]
		for _, k := range []string{"evaluate.retrievers", "evaluate.settings", "evaluate.instructions"} {
			if _, ok := m.Config[k]; !ok {
				t.Errorf("shard %s: manifest config lacks %s: %v", spec, k, m.Config)
			}
		}
		for k := range m.Config {
			// emb is defined but not evaluated: it makes no ranking, so
			// editing it makes no shard stale.
			if strings.HasPrefix(k, "evaluate.shards") || strings.HasPrefix(k, "evaluate.workers") || strings.HasPrefix(k, "retrievers.emb") ||
				!strings.HasPrefix(k, "evaluate.") && !strings.HasPrefix(k, "retrievers.") {
				t.Errorf("shard %s: manifest config holds %s", spec, k)
			}
		}
		read := map[string]string{}
		for _, o := range m.Inputs {
			if o.Unread {
				t.Errorf("shard %s: input %s recorded unread", spec, o.Key)
			}
			read[o.Key] = o.SHA256
		}
		if !maps.Equal(read, written) {
			t.Errorf("shard %s: inputs %v, want every part of queries, candidates and corpus %v", spec, read, written)
		}
	}

	// Operational changes: every shard is served as done.
	other := mk(1, "http://127.0.0.1:10/v1")
	for i := 0; i < 4; i++ {
		res, err := stage.RunShard(ctx, other, evaluate.Stage, step, shard.Spec{Index: i, Count: 4}, root, zerolog.Nop(), stage.Options{})
		if err != nil || !res.Skipped {
			t.Fatalf("shard %d after changing evaluate.workers and an endpoint: skipped %v, err %v; want it served as done", i, res.Skipped, err)
		}
	}

	// Only the runs marker left (a finish interrupted): not done, redone.
	spec := shard.Spec{Index: 1, Count: 4}
	before, _ := layout.ReadDone(ctx, root, layout.DoneKey("m", "runs", spec))
	if err := root.Delete(ctx, layout.DoneKey("m", "timings", spec)); err != nil {
		t.Fatal(err)
	}
	res, err := stage.RunShard(ctx, cfg, evaluate.Stage, step, spec, root, zerolog.Nop(), stage.Options{})
	if err != nil || res.Skipped || res.Manifest == nil || res.Manifest.Dataset != dataset.Runs.Name {
		t.Fatalf("shard with only its runs marker: skipped %v, err %v, manifest %+v; want it redone", res.Skipped, err, res.Manifest)
	}
	for _, k := range stage.DoneKeys("m", step, spec) {
		if done, _ := layout.Done(ctx, root, k); !done {
			t.Errorf("%s missing after the redo", k)
		}
	}
	if got, want := res.Manifest.Objects(dataset.Runs.Name), before.Objects(dataset.Runs.Name); len(got) != 1 || len(want) != 1 || got[0].SHA256 != want[0].SHA256 {
		t.Errorf("the redone runs part differs: %+v, was %+v", got, want)
	}
}
