package pairs

// Tests of the stage: what it reads (topics, summaries, the ontology),
// what it writes (pairs, per shard) and what it refuses. The finder
// itself — exactness against brute force, the categories — is tested in
// lib/relevance.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/summary"
	"github.com/saber-math/saber/lib/summtok"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/lib/topics"
	"github.com/saber-math/saber/shard"
)

// doc is what the upstream stages say of one document: its topics (tree
// nodes of the default ontology) in `topics`, its summary in `summaries`.
// A document missing from one of them (tagging or summarising failed) has
// no row there.
type doc struct {
	id           string
	topics       []int
	noCoreIdea   bool
	coreIdea     string
	noTopicRow   bool
	noSummaryRow bool
}

func defaultTree(t testing.TB) *ontology.Tree {
	t.Helper()
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// generated is n documents with the topic and summary distributions of a
// real corpus (lib/synth/corpusdist); a few lack a topics or a summaries
// row, and corpusdist leaves 3% without a core idea.
func generated(t testing.TB, tree *ontology.Tree, n int) []doc {
	t.Helper()
	gen, err := corpusdist.New(tree, 11, corpusdist.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var out []doc
	for i, d := range gen.Docs(n) {
		out = append(out, doc{id: d.ID, topics: d.Topics, noCoreIdea: d.NoCoreIdea, coreIdea: d.CoreIdea,
			noTopicRow: i%97 == 5, noSummaryRow: i%89 == 7})
	}
	return out
}

// mathDocs is the MATH test split tagged and summarised offline as tag
// (lexical scorer, τ 0.85) and summarize (extractive) do.
func mathDocs(t testing.TB, tree *ontology.Tree) []doc {
	t.Helper()
	path, _ := filepath.Abs("../../../shared/data/math/MATH_test.jsonl")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("MATH data not present at %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		ID       string `json:"unique_id"`
		Problem  string `json:"problem"`
		Solution string `json:"solution"`
	}
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	lex := topics.NewLexical(tree)
	out := make([]doc, len(rows))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				r := rows[i]
				a, err := topics.Assign(context.Background(), tree, lex, topics.Text{Statement: r.Problem, Solution: r.Solution}, 0.85, 200)
				if err != nil {
					errs[w] = err
					return
				}
				s := summary.Extractive(r.Problem, r.Solution)
				out[i] = doc{id: r.ID, topics: a.Topics, noCoreIdea: s.NoCoreIdea, coreIdea: s.CoreIdea}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// put writes the documents' `topics` in nt shards and `summaries` in ns
// shards of run, as tag and summarize would, and returns the parts.
func put(t *testing.T, root store.Store, run string, tree *ontology.Tree, docs []doc, nt, ns int) []layout.Object {
	t.Helper()
	var trows []dataset.TopicRow
	var srows []dataset.Summary
	for _, d := range docs {
		if !d.noTopicRow {
			r := dataset.TopicRow{ID: d.id, Backend: "lexical"}
			for _, n := range d.topics {
				r.Topics = append(r.Topics, tree.Path(n))
			}
			trows = append(trows, r)
		}
		if !d.noSummaryRow {
			srows = append(srows, dataset.Summary{ID: d.id, NoCoreIdea: d.noCoreIdea, CoreIdea: d.coreIdea, Backend: "extractive"})
		}
	}
	sort.Slice(trows, func(i, j int) bool { return trows[i].ID < trows[j].ID })
	sort.Slice(srows, func(i, j int) bool { return srows[i].ID < srows[j].ID })
	var parts []layout.Object
	for i := range nt {
		spec := shard.Spec{Index: i, Count: nt}
		lo, hi := spec.Range(len(trows))
		parts = append(parts, stagetest.Put(t, root, run, dataset.Topics, spec, trows[lo:hi]))
	}
	for i := range ns {
		spec := shard.Spec{Index: i, Count: ns}
		lo, hi := spec.Range(len(srows))
		parts = append(parts, stagetest.Put(t, root, run, dataset.Summaries, spec, srows[lo:hi]))
	}
	return parts
}

// bruteForce scores every ordered pair of the documents from their topics
// and core ideas, without the stage or the finder: the rows `pairs` must
// hold, sorted by query then document.
func bruteForce(tree *ontology.Tree, docs []doc, tauT, tauS float64) []dataset.Pair {
	var ids []string
	tops, toks := map[string][]int{}, map[string][]string{}
	for _, d := range docs {
		if !d.noTopicRow {
			tops[d.id] = d.topics
		}
		if !d.noSummaryRow && !d.noCoreIdea {
			toks[d.id] = summtok.Set(d.coreIdea)
		}
		if !d.noTopicRow || !d.noSummaryRow {
			ids = append(ids, d.id)
		}
	}
	sort.Strings(ids)
	all := make([][]int, len(ids))
	for i, id := range ids {
		all[i] = tops[id]
	}
	ic := ontology.InformationContent(tree, all)
	found := make([][]dataset.Pair, len(ids))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := w; q < len(ids); q += workers {
				for d := range ids {
					if d == q {
						continue
					}
					st := ontology.BMA(tree, ic, tops[ids[q]], tops[ids[d]])
					ss := summtok.Jaccard(toks[ids[q]], toks[ids[d]])
					if cat := relevance.Category(st, ss, tauT, tauS); cat != "" {
						found[q] = append(found[q], dataset.Pair{Query: ids[q], Doc: ids[d], SimTopic: st, SimSumm: ss, Category: cat})
					}
				}
			}
		}()
	}
	wg.Wait()
	var out []dataset.Pair
	for _, f := range found {
		out = append(out, f...)
	}
	return out
}

func samePairs(want, got []dataset.Pair) error {
	if len(want) != len(got) {
		return fmt.Errorf("pairs has %d rows, brute force %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Query != g.Query || w.Doc != g.Doc || w.Category != g.Category ||
			math.Abs(w.SimTopic-g.SimTopic) > 1e-12 || math.Abs(w.SimSumm-g.SimSumm) > 1e-12 {
			return fmt.Errorf("row %d: pairs %+v, brute force %+v", i, g, w)
		}
	}
	return nil
}

func parse(t *testing.T, y string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(y), Section, calibrate.Section, selection.Section)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runPairs runs every pairs shard and returns the rows of all parts in
// shard order.
func runPairs(t *testing.T, cfg *config.Config, root store.Store) []dataset.Pair {
	t.Helper()
	ctx := context.Background()
	// These tests check the pairs themselves; TestCountsMatchPairs checks
	// the counts against them.
	Section.Of(cfg).KeepAll = true
	step := Stage.Steps[0]
	n := step.Count(cfg)
	var out []dataset.Pair
	for i := range n {
		spec := shard.Spec{Index: i, Count: n}
		if _, err := stage.RunShard(ctx, cfg, Stage, step, spec, root, zerolog.Nop(), stage.Options{}); err != nil {
			t.Fatalf("pairs %s: %v", spec, err)
		}
		rows, err := dataset.Read[dataset.Pair](ctx, root, layout.DataKey(cfg.Run, "pairs", spec))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}

// TestStageEqualsBruteForce: pairs over topics (2 shards) and summaries (3
// shards) holds exactly the pairs over either floor that scoring every
// pair of documents gives — topic paths read back into the configured
// ontology's nodes, core ideas into token sets, a document without a
// core idea or without one of the rows still a query — with both
// similarities equal to 1e-12, each shard its contiguous range of
// queries; 1 and 3 shards give the same rows. Each shard records every
// part it read.
func TestStageEqualsBruteForce(t *testing.T) {
	tree := defaultTree(t)
	for _, tt := range []struct {
		name string
		docs func(t *testing.T) []doc
	}{
		{"generated", func(t *testing.T) []doc { return generated(t, tree, 1500) }},
		{"MATH test split", func(t *testing.T) []doc { return mathDocs(t, tree) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			docs := tt.docs(t)
			ctx := context.Background()
			root := store.NewMem()
			parts := put(t, root, "p", tree, docs, 2, 3)
			cfg := parse(t, "run: p\nroot: mem\nlog: {progress_seconds: 0}\npairs: {shards: 3}\n")
			got := runPairs(t, cfg, root)
			want := bruteForce(tree, docs, cfg.Benchmark.TopicFloor, cfg.Benchmark.SummFloor)
			if len(want) == 0 {
				t.Fatal("brute force found no pairs; the test would prove nothing")
			}
			if err := samePairs(want, got); err != nil {
				t.Fatal(err)
			}
			cats := map[string]int{}
			for _, p := range got {
				cats[p.Category]++
			}
			for _, cat := range []string{relevance.CategoryTopic, relevance.CategorySummary, relevance.CategoryBoth} {
				if cats[cat] == 0 {
					t.Errorf("no %s pairs: the test would prove little", cat)
				}
			}
			t.Logf("%d documents, %d pairs %v: brute force agrees", len(docs), len(got), cats)

			for i := range 3 {
				m, err := layout.ReadDone(ctx, root, layout.DoneKey("p", "pairs", shard.Spec{Index: i, Count: 3}))
				if err != nil {
					t.Fatal(err)
				}
				read := map[string]layout.Object{}
				for _, o := range m.Inputs {
					read[o.Key] = o
				}
				for _, p := range parts {
					if o, ok := read[p.Key]; !ok || o.Unread || o.SHA256 != p.SHA256 || o.Dataset != p.Dataset {
						t.Errorf("shard %d: input %s recorded as %+v", i, p.Key, o)
					}
				}
				if len(m.Inputs) != len(parts) {
					t.Errorf("shard %d: %d inputs recorded, want the %d parts (the default ontology is no file)", i, len(m.Inputs), len(parts))
				}
				if m.Config["benchmark.topic_floor"] != "0.858" || m.Config["benchmark.summ_floor"] != "0.211" || m.Config["benchmark.ontology.file"] != `""` {
					t.Errorf("shard %d: config %v", i, m.Config)
				}
				if _, ok := m.Config["pairs.shards"]; ok {
					t.Errorf("shard %d: config records the shard count: %v", i, m.Config)
				}
			}

			// One shard gives the same rows as three (same run: the
			// inputs are read again, the three parts left alone).
			one := runPairs(t, parse(t, "run: p\nroot: mem\nlog: {progress_seconds: 0}\n"), root)
			if err := samePairs(got, one); err != nil {
				t.Errorf("1 shard and 3 shards differ: %v", err)
			}
		})
	}
}

// TestFloorsAreBenchmarkKeys: the floors come from benchmark.topic_floor
// and benchmark.summ_floor; every pair passes one strictly, and a done
// shard under other floors is stale. The old pairs.* keys say where they
// went.
func TestFloorsAreBenchmarkKeys(t *testing.T) {
	tree := defaultTree(t)
	docs := generated(t, tree, 400)
	root := store.NewMem()
	put(t, root, "f", tree, docs, 1, 1)
	y := "run: f\nroot: mem\nlog: {progress_seconds: 0}\nbenchmark: {topic_floor: 0.95, summ_floor: 0.4}\n"
	got := runPairs(t, parse(t, y), root)
	if err := samePairs(bruteForce(tree, docs, 0.95, 0.4), got); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no pairs over the raised floors")
	}
	for _, p := range got {
		if p.SimTopic <= 0.95 && p.SimSumm <= 0.4 {
			t.Fatalf("pair %+v passes neither floor", p)
		}
	}
	_, err := stage.RunShard(context.Background(), parse(t, strings.Replace(y, "0.95", "0.9", 1)), Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	var stale *stage.StaleError
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "benchmark.topic_floor: 0.95 → 0.9") {
		t.Errorf("other topic floor: %v; want stale", err)
	}
	for _, key := range []string{"topic_floor", "summ_floor"} {
		_, err := config.Parse([]byte("run: f\nroot: d\npairs: {"+key+": 0.5}\n"), Section)
		if err == nil || !strings.Contains(err.Error(), "pairs."+key+" has moved to benchmark."+key) {
			t.Errorf("pairs.%s: %v", key, err)
		}
	}
}

// TestOntologyMismatchIsBadInput: topics made with another ontology than
// the configured one are refused (exit 2), naming the document and the
// topic; so is a missing input dataset.
func TestOntologyMismatchIsBadInput(t *testing.T) {
	tree := defaultTree(t)
	docs := generated(t, tree, 50)
	dir := t.TempDir()
	csv := filepath.Join(dir, "o.csv")
	if err := os.WriteFile(csv, []byte("parent,child,label\n,alg,Algebra\nalg,quad,Quadratics\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var restricted string
	for _, d := range tree.Children(tree.Root())[:1] {
		restricted = tree.ID(d)
	}
	for _, tt := range []struct {
		name, yaml string
	}{
		{"another ontology file", "benchmark: {ontology: {file: " + csv + "}}\n"},
		{"other roots", "benchmark: {ontology: {roots: [" + restricted + "]}}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := store.NewMem()
			put(t, root, "m", tree, docs, 1, 1)
			cfg := parse(t, "run: m\nroot: mem\nlog: {progress_seconds: 0}\n"+tt.yaml)
			_, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "is not in the configured ontology") {
				t.Fatalf("err = %v (exit %d), want bad input naming the ontology", err, stage.ExitCode(err))
			}
			if ok, _ := layout.Done(context.Background(), root, layout.DoneKey("m", "pairs", shard.Spec{Index: 0, Count: 1})); ok {
				t.Error("a refused shard is marked done")
			}
		})
	}
	// Without summaries the stage cannot start.
	root := store.NewMem()
	put(t, root, "s", tree, docs, 1, 0)
	_, err := stage.RunShard(context.Background(), parse(t, "run: s\nroot: mem\n"), Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	var inc *layout.IncompleteError
	if !errors.As(err, &inc) || inc.Dataset != "summaries" || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("no summaries: %v", err)
	}
}

func TestConfig(t *testing.T) {
	c := Section.Of(parse(t, "run: r\nroot: d\n"))
	if c.Shards != 1 || c.Workers != 0 {
		t.Errorf("defaults: %+v", c)
	}
	for _, y := range []string{"pairs: {shards: -1}", "pairs: {workers: -2}"} {
		_, err := config.Parse([]byte("run: r\nroot: d\n"+y+"\n"), Section)
		if err == nil || !strings.Contains(err.Error(), "pairs: shards must be ≥ 1, workers ≥ 0") || stage.ExitCode(err) != stage.ExitBadInput {
			t.Errorf("%s: %v", y, err)
		}
	}
	if _, err := config.Parse([]byte("run: r\nroot: d\npairs: {shard: 2}\n"), Section); err == nil || !strings.Contains(err.Error(), "unknown key pairs.shard (valid here: keep_all, shards, workers)") {
		t.Errorf("typo: %v", err)
	}
}

// TestCountsMatchPairs: by default pairs writes no pair but, per query
// with pairs, the count in each cell of the grid of calibrate's
// thresholds and select's fixed ones that the pairs keep_all lists fall
// in (counted here by comparing each similarity with each threshold), the
// pairs, and their histograms; keep_all writes no counts. Only counts
// depend on the grid, so only they make the stage stale when it changes.
func TestCountsMatchPairs(t *testing.T) {
	tree := defaultTree(t)
	docs := generated(t, tree, 1500)
	root := store.NewMem()
	put(t, root, "p", tree, docs, 2, 1)
	y := "run: p\nroot: mem\nlog: {progress_seconds: 0}\npairs: {shards: 2}\nselect: {thresholds: fixed, tau_topic: 0.9, tau_summ: 0.25}\n"
	all := runPairs(t, parse(t, y), root)
	cfg := parse(t, y)
	ctx := context.Background()
	var counts []dataset.PairCount
	for i := range 2 {
		spec := shard.Spec{Index: i, Count: 2}
		if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], spec, root, zerolog.Nop(), stage.Options{Force: true}); err != nil {
			t.Fatal(err)
		}
		rows, err := dataset.Read[dataset.PairCount](ctx, root, layout.DataKey("p", dataset.PairCounts.Name, spec))
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, rows...)
		if ps, err := dataset.Read[dataset.Pair](ctx, root, layout.DataKey("p", dataset.Pairs.Name, spec)); err != nil || len(ps) != 0 {
			t.Fatalf("pairs of shard %s by default: %d rows, %v", spec, len(ps), err)
		}
	}
	topicEdges := append(calibrate.Section.Of(cfg).TopicGrid.Values(), 0.9)
	summEdges := append(calibrate.Section.Of(cfg).SummGrid.Values(), 0.25)
	sort.Float64s(topicEdges)
	sort.Float64s(summEdges)
	passes := func(edges []float64, v float64) (n int32) {
		for _, e := range edges {
			if v > e {
				n++
			}
		}
		return n
	}
	type want struct {
		cells        map[int32]int32
		pairs        int64
		htopic, hsum [20]int32
	}
	byQuery := map[string]*want{}
	var order []string
	for _, p := range all {
		w := byQuery[p.Query]
		if w == nil {
			w = &want{cells: map[int32]int32{}}
			byQuery[p.Query] = w
			order = append(order, p.Query)
		}
		w.cells[passes(topicEdges, p.SimTopic)*int32(len(summEdges)+1)+passes(summEdges, p.SimSumm)]++
		w.pairs++
		w.htopic[min(19, int(p.SimTopic*20))]++
		w.hsum[min(19, int(p.SimSumm*20))]++
	}
	if len(counts) != len(order) {
		t.Fatalf("%d pair_counts rows, %d queries with pairs", len(counts), len(order))
	}
	for i, r := range counts {
		w := byQuery[r.Query]
		if r.Query != order[i] || w == nil {
			t.Fatalf("row %d is query %s, want %s", i, r.Query, order[i])
		}
		got := map[int32]int32{}
		for j, c := range r.Cells {
			if j > 0 && c <= r.Cells[j-1] {
				t.Fatalf("query %s: cells not ascending: %v", r.Query, r.Cells)
			}
			got[c] = r.Counts[j]
		}
		if fmt.Sprint(got) != fmt.Sprint(w.cells) || r.Pairs != w.pairs || fmt.Sprint(r.HistTopic) != fmt.Sprint(w.htopic[:]) || fmt.Sprint(r.HistSumm) != fmt.Sprint(w.hsum[:]) {
			t.Fatalf("query %s: cells %v pairs %d hists %v %v; from its pairs %v %d %v %v", r.Query, got, r.Pairs, r.HistTopic, r.HistSumm, w.cells, w.pairs, w.htopic, w.hsum)
		}
	}
	if len(counts) == 0 {
		t.Fatal("no query has pairs: the test checks nothing")
	}
	uses := func(keepAll bool) string {
		c := parse(t, y)
		Section.Of(c).KeepAll = keepAll
		return strings.Join(Stage.Uses(c), " ")
	}
	if u := uses(false); !strings.Contains(u, "calibrate.topic_grid") || !strings.Contains(u, "select.tau_topic") {
		t.Errorf("counts: Uses %s leaves out the thresholds counted over", u)
	}
	if u := uses(true); strings.Contains(u, "calibrate") {
		t.Errorf("keep_all: Uses %s names calibrate's grid", u)
	}
}
