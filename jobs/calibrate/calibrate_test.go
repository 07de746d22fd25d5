package calibrate

// These tests were in jobs/selection's, which ran calibrate before select;
// a stage package's tests no longer import another stage, so calibrate's
// own checks live here, on the same fabricated pairs.

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/thresholds"
	"github.com/saber-math/saber/shard"
)

var domains = []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}

// fabricate writes `topics` (one part) and `pairs` (pairShards parts, by
// contiguous query ranges, as the pairs stage does), each part with its
// completion manifest, for nDocs documents whose pairs have random
// category sizes around k.
func fabricate(t *testing.T, root store.Store, run string, nDocs, pairShards int) {
	t.Helper()
	fabricateBy(t, root, run, nDocs, pairShards, offlineTag, offlineSumm)
}

// The configs tag and summarize record in their manifests, offline and
// with an LLM.
var (
	offlineTag  = map[string]string{"tag.backend": "lexical"}
	offlineSumm = map[string]string{"summarize.backend": "extractive"}
	llmTag      = map[string]string{"tag.backend": "llm", "tag.llm.model": "tagger-7b", "llm.model": "base-model"}
	llmSumm     = map[string]string{"summarize.backend": "llm", "llm.model": "base-model"}
)

// fabricateBy is fabricate with the manifests of topics and summaries
// recording tagCfg and summCfg, as tag and summarize would.
func fabricateBy(t *testing.T, root store.Store, run string, nDocs, pairShards int, tagCfg, summCfg map[string]string) {
	t.Helper()
	fabricateAs(t, root, run, nDocs, pairShards, tagCfg, summCfg, nil)
}

// fabricateAs is fabricateBy with, when grid is set, the pairs stored as
// pairs does by default: counted per cell of grid in `pair_counts`, with
// `pairs` empty.
func fabricateAs(t *testing.T, root store.Store, run string, nDocs, pairShards int, tagCfg, summCfg map[string]string, grid *thresholds.Grid) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	ids := make([]string, nDocs)
	var topics []dataset.TopicRow
	for i := range ids {
		ids[i] = fmt.Sprintf("d%05d", i)
		topics = append(topics, dataset.TopicRow{ID: ids[i], Domain: domains[i%len(domains)]})
	}
	topics[3].Domain = "" // a document without topics: never a query
	stagetest.PutBy(t, root, run, dataset.Topics, "tag", tagCfg, topics)
	stagetest.PutBy(t, root, run, dataset.Summaries, "summarize", summCfg, []dataset.Summary{{ID: ids[0], CoreIdea: "x"}})
	perQuery := make([][]dataset.Pair, nDocs)
	for q := range ids {
		// Category sizes 0..14 around k = 3, so some queries are eligible
		// at some thresholds and not at others.
		n := rng.IntN(40)
		docs := rng.Perm(nDocs)[:n+1]
		for _, d := range docs {
			if d == q {
				continue
			}
			p := dataset.Pair{Query: ids[q], Doc: ids[d]}
			switch rng.IntN(3) {
			case 0: // topic side
				p.SimTopic, p.SimSumm = 0.858+0.142*rng.Float64(), 0.3*rng.Float64()
			case 1: // summary side
				p.SimTopic, p.SimSumm = 0.9*rng.Float64(), 0.211+0.5*rng.Float64()
			default:
				p.SimTopic, p.SimSumm = 0.858+0.142*rng.Float64(), 0.211+0.5*rng.Float64()
			}
			if rng.IntN(10) == 0 { // exactly on a grid threshold
				p.SimTopic = 0.9
			}
			p.Category = relevance.Category(p.SimTopic, p.SimSumm, 0.858, 0.211)
			perQuery[q] = append(perQuery[q], p)
		}
	}
	for i := 0; i < pairShards; i++ {
		spec := shard.Spec{Index: i, Count: pairShards}
		lo, hi := spec.Range(nDocs)
		var rows []dataset.Pair
		for q := lo; q < hi; q++ {
			rows = append(rows, perQuery[q]...)
		}
		if grid == nil {
			stagetest.Put(t, root, run, dataset.Pairs, spec, rows)
			continue
		}
		var counts []dataset.PairCount
		for q := lo; q < hi; q++ {
			if len(perQuery[q]) == 0 {
				continue
			}
			byCell := map[int32]int32{}
			for _, p := range perQuery[q] {
				byCell[int32(grid.Cell(p.SimTopic, p.SimSumm))]++
			}
			r := dataset.PairCount{Query: ids[q], Edges: grid.String(), Pairs: int64(len(perQuery[q])), HistTopic: make([]int32, 20), HistSumm: make([]int32, 20)}
			for _, c := range slices.Sorted(maps.Keys(byCell)) {
				r.Cells, r.Counts = append(r.Cells, c), append(r.Counts, byCell[c])
			}
			counts = append(counts, r)
		}
		stagetest.Put(t, root, run, dataset.PairCounts, spec, counts)
	}
	// The dataset pairs leaves empty.
	if grid == nil {
		stagetest.PutOne(t, root, run, dataset.PairCounts, nil)
	} else {
		stagetest.PutOne(t, root, run, dataset.Pairs, nil)
	}
}

func testConfig(t *testing.T, dir, run string) *config.Config {
	t.Helper()
	y := fmt.Sprintf("run: %s\nroot: %s\nlog: {progress_seconds: 0}\nbenchmark: {k: 3}\n"+
		"calibrate: {min_eligible: 3, topic_grid: {step: 0.02}, summ_grid: {to: 0.4, step: 0.03}}\n", run, dir)
	path := filepath.Join(dir, run+".yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, Section)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runStage runs calibrate and returns its outputs by dataset or report name.
func runStage(t *testing.T, cfg *config.Config, root store.Store) (map[string]string, error) {
	t.Helper()
	res, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, o := range res.Outputs {
		rel := strings.TrimPrefix(o.Key, cfg.Run+"/")
		out[strings.SplitN(rel, "/", 2)[0]+"/"+filepath.Base(rel)] = o.SHA256
	}
	return out, nil
}

// pairsByQuery reads every pair of run, by query.
func pairsByQuery(t *testing.T, ctx context.Context, root store.Store, run string) map[string][]dataset.Pair {
	t.Helper()
	ms, err := layout.Complete(ctx, root, run, dataset.Pairs.Name)
	if err != nil {
		t.Fatal(err)
	}
	byQuery := map[string][]dataset.Pair{}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Pairs.Name) {
			rows, err := dataset.Read[dataset.Pair](ctx, root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rows {
				byQuery[p.Query] = append(byQuery[p.Query], p)
			}
		}
	}
	return byQuery
}

// domainOf is the fabricated documents' domain ("" for d00003).
func domainOf(q string) string {
	var i int
	fmt.Sscanf(q, "d%d", &i)
	if i == 3 {
		return ""
	}
	return domains[i%len(domains)]
}

// naiveEligible counts, per domain, the queries with at least 3 pairs in
// each category at (tt, ts).
func naiveEligible(byQuery map[string][]dataset.Pair, tt, ts float64) map[string]int {
	want := map[string]int{}
	for q, rows := range byQuery {
		var c [3]int
		for _, p := range rows {
			switch relevance.Category(p.SimTopic, p.SimSumm, tt, ts) {
			case relevance.CategoryTopic:
				c[0]++
			case relevance.CategorySummary:
				c[1]++
			case relevance.CategoryBoth:
				c[2]++
			}
		}
		if c[0] >= 3 && c[1] >= 3 && c[2] >= 3 && domainOf(q) != "" {
			want[domainOf(q)]++
		}
	}
	return want
}

func TestCalibrateCountsEveryGridPoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	fabricate(t, root, "c", 400, 2)
	cfg := testConfig(t, dir, "c")
	out, err := runStage(t, cfg, root)
	if err != nil {
		t.Fatal(err)
	}
	// The same pairs stored as counts, over calibrate's grid and over one
	// with thresholds between its points (select's fixed ones), give the
	// same bytes.
	tg, sg := Section.Of(cfg).TopicGrid.Values(), Section.Of(cfg).SummGrid.Values()
	for _, g := range []thresholds.Grid{{Topic: tg, Summ: sg}, thresholds.Grid{Topic: tg, Summ: sg}.Union([]float64{0.9, 0.91}, []float64{0.25})} {
		run := fmt.Sprintf("c%d", len(g.Topic)+len(g.Summ))
		fabricateAs(t, root, run, 400, 2, offlineTag, offlineSumm, &g)
		got, err := runStage(t, testConfig(t, dir, run), root)
		if err != nil {
			t.Fatalf("from counts over %s: %v", g, err)
		}
		for k, h := range out {
			if got[k] != h {
				t.Errorf("%s: from counts over %s %s, from the pairs %s", k, g, got[k], h)
			}
		}
	}
	csv, err := store.ReadAll(ctx, root, "c/reports/"+ReportCSV)
	if err != nil {
		t.Fatal(err)
	}
	// Count eligibility naively from the pairs, point by point.
	byQuery := pairsByQuery(t, ctx, root, "c")
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 1+len(tg)*len(sg) {
		t.Fatalf("csv has %d lines, want %d", len(lines), 1+len(tg)*len(sg))
	}
	nonzero := 0
	for n, line := range lines[1:] {
		tt, ts := tg[n/len(sg)], sg[n%len(sg)]
		want := naiveEligible(byQuery, tt, ts)
		f := strings.Split(line, ",")
		for d, name := range domains {
			if f[2+d] != fmt.Sprint(want[name]) {
				t.Fatalf("(%v, %v) %s: csv says %s, naive count %d", tt, ts, name, f[2+d], want[name])
			}
			if want[name] > 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("no grid point has an eligible query: the test checks nothing")
	}
}

// TestCalibrateDeterministic: the pairs in 1 or 3 parts give the same
// thresholds and reports, byte for byte; the final point is feasible, and
// each domain's row counts its eligible queries at it.
func TestCalibrateDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	hashes := map[string]map[string]string{}
	for _, tc := range []struct {
		run    string
		shards int
	}{{"s1", 1}, {"s3", 3}} {
		fabricate(t, root, tc.run, 600, tc.shards)
		h, err := runStage(t, testConfig(t, dir, tc.run), root)
		if err != nil {
			t.Fatalf("%s calibrate: %v", tc.run, err)
		}
		hashes[tc.run] = h
	}
	for _, k := range []string{"thresholds/part-00000-of-00001.parquet", "reports/" + ReportCSV, "reports/" + ReportMarkdown} {
		if hashes["s1"][k] == "" || hashes["s1"][k] != hashes["s3"][k] {
			t.Errorf("%s: 1 and 3 pairs shards differ (%q vs %q)", k, hashes["s1"][k], hashes["s3"][k])
		}
	}
	th, err := dataset.Read[dataset.Threshold](ctx, root, layout.DataKey("s3", dataset.Thresholds.Name, shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if len(th) != 1+len(domains) || th[0].Scope != dataset.ScopeFinal || !th[0].Feasible {
		t.Fatalf("thresholds %+v: want a feasible final row and one per domain", th)
	}
	want := naiveEligible(pairsByQuery(t, ctx, root, "s3"), th[0].TauTopic, th[0].TauSumm)
	least := int64(-1)
	for _, r := range th[1:] {
		if r.EligibleAtFinal != int64(want[r.Scope]) {
			t.Errorf("%s: %d eligible at the final thresholds, naive count %d", r.Scope, r.EligibleAtFinal, want[r.Scope])
		}
		if least < 0 || r.EligibleAtFinal < least {
			least = r.EligibleAtFinal
		}
	}
	if th[0].Eligible != least || least < 3 {
		t.Errorf("final row's eligible %d, want the least over the domains %d (≥ min_eligible 3)", th[0].Eligible, least)
	}
}

// TestCalibrateProvenance: calibrate.md names the backend and model that
// produced the topics and summaries, as their writers' manifests record
// them (tag.llm.model over llm.model), and says plainly when any was
// offline that the numbers are not model judgments — and only then.
func TestCalibrateProvenance(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	const offline = "These numbers come from offline backends"
	for _, tc := range []struct {
		run           string
		tag, summ     map[string]string
		want, notWant []string
	}{
		{"off", offlineTag, offlineSumm,
			[]string{"topics: tag lexical backend (offline)", "summaries: summarize extractive backend (offline)",
				"**" + offline + " — topics (lexical), summaries (extractive) — and are not model judgments; set tag.backend, summarize.backend: llm"},
			nil},
		{"mixed", llmTag, offlineSumm,
			[]string{"topics: tag llm backend, model tagger-7b", "summaries: summarize extractive backend (offline)", offline + " — summaries (extractive) —"},
			[]string{"base-model"}},
		{"llm", llmTag, llmSumm,
			[]string{"topics: tag llm backend, model tagger-7b", "summaries: summarize llm backend, model base-model"},
			[]string{offline, "offline"}},
	} {
		fabricateBy(t, root, tc.run, 300, 1, tc.tag, tc.summ)
		if _, err := runStage(t, testConfig(t, dir, tc.run), root); err != nil {
			t.Fatalf("%s: %v", tc.run, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, tc.run, "reports", ReportMarkdown))
		if err != nil {
			t.Fatal(err)
		}
		head := strings.SplitN(string(b), "\n\n", 3)[1] // the paragraph under the title
		if !strings.HasPrefix(head, "**Provenance.** Labels from: ") {
			t.Errorf("%s: calibrate.md does not open with the provenance:\n%s", tc.run, b)
		}
		for _, w := range tc.want {
			if !strings.Contains(head, w) {
				t.Errorf("%s: provenance lacks %q:\n%s", tc.run, w, head)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(head, w) {
				t.Errorf("%s: provenance holds %q:\n%s", tc.run, w, head)
			}
		}
	}
}
