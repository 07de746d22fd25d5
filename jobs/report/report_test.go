package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/shard"
)

var (
	testDomains    = []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}
	testRetrievers = []string{"bm25", "tfidf", "jaccard"}
	testSettings   = []string{"statement-full", "full-full"}
)

// fake is a fabricated small benchmark: what the upstream stages would
// have written, kept in memory too so tests can recompute every number.
type fake struct {
	queries []dataset.Query
	// ratings[q][doc] and runs[system][q] as written.
	ratings map[string]map[string]float64
	runs    map[System]map[string][]dataset.RunRow
}

type fabOptions struct {
	queries, docs int
	// ranges is evaluate's query ranges per (retriever, setting).
	ranges int
	// mutate edits the run rows before they are written.
	mutate func([]dataset.RunRow) []dataset.RunRow
	// retrievers overrides testRetrievers.
	retrievers []string
	// timing edits each timing before it is written; false drops it.
	timing func(*dataset.Timing) bool
	// domains overrides testDomains: the queries' domain labels, in turn.
	domains []string
	// tag, summarize and judge are the configs the manifests of topics,
	// summaries and judgments record (default: the offline backends).
	tag, summarize, judge map[string]string
}

// fabricate writes queries and candidates (select's), ratings (rate's)
// and runs and timings (evaluate's, sharded by query range × retriever ×
// setting), each dataset with its own completion manifest, for retrievers
// of decreasing quality.
func fabricate(t *testing.T, root store.Store, run string, o fabOptions) *fake {
	t.Helper()
	if o.retrievers == nil {
		o.retrievers = testRetrievers
	}
	if o.domains == nil {
		o.domains = testDomains
	}
	rng := rand.New(rand.NewPCG(3, 9))
	f := &fake{ratings: map[string]map[string]float64{}, runs: map[System]map[string][]dataset.RunRow{}}
	var cands []dataset.Candidate
	var ratings []dataset.Rating
	for i := 0; i < o.queries; i++ {
		q := dataset.Query{ID: fmt.Sprintf("q%03d", i), Domain: o.domains[i%len(o.domains)]}
		f.queries = append(f.queries, q)
		f.ratings[q.ID] = map[string]float64{}
		for j := 0; j < o.docs; j++ {
			d := fmt.Sprintf("d%03d", (i*3+j*7)%997) // distinct per query: 997 is prime
			r := math.Round(rng.Float64()*50) / 10   // ties among ratings too
			switch {
			case i == 3:
				r = 0 // a query whose ideal DCG is 0: nDCG 0 for everyone
			case j == 0:
				r = trec.MaxRating
			}
			f.ratings[q.ID][d] = r
			cands = append(cands, dataset.Candidate{Query: q.ID, Doc: d, Category: "both"})
			ratings = append(ratings, dataset.Rating{Query: q.ID, Doc: d, Rating: r})
		}
	}
	// Each dataset with its own completion manifest, as select, rate and
	// evaluate write them.
	stagetest.PutOne(t, root, run, dataset.Queries, slices.Clone(f.queries))
	stagetest.PutOne(t, root, run, dataset.Candidates, cands)
	stagetest.PutOne(t, root, run, dataset.Ratings, ratings)
	putSiteInputs(t, root, run, o.domains)
	// The labels the benchmark rests on: report reads only their
	// writers' manifests.
	or := func(m, d map[string]string) map[string]string {
		if m == nil {
			return d
		}
		return m
	}
	stagetest.PutBy(t, root, run, dataset.Topics, "tag", or(o.tag, map[string]string{"tag.backend": "lexical"}), []dataset.TopicRow{{ID: "d000"}})
	stagetest.PutBy(t, root, run, dataset.Summaries, "summarize", or(o.summarize, map[string]string{"summarize.backend": "extractive"}), []dataset.Summary{{ID: "d000"}})
	stagetest.PutBy(t, root, run, dataset.Judgments, "judge", or(o.judge, map[string]string{"judge.backend": "lexical"}), []dataset.Judgment{{Query: "q000"}})

	n := o.ranges * len(o.retrievers) * len(testSettings)
	for ri, r := range o.retrievers {
		for si, s := range testSettings {
			sys := System{r, s}
			f.runs[sys] = map[string][]dataset.RunRow{}
			for qr := 0; qr < o.ranges; qr++ {
				spec := shard.Spec{Index: (ri*len(testSettings)+si)*o.ranges + qr, Count: n}
				lo, hi := shard.Spec{Index: qr, Count: o.ranges}.Range(len(f.queries))
				var rows []dataset.RunRow
				var timings []dataset.Timing
				for _, q := range f.queries[lo:hi] {
					ids := slices.Sorted(maps.Keys(f.ratings[q.ID]))
					var scores []float64
					for _, d := range ids {
						rel := f.ratings[q.ID][d]
						// Better retrievers see more of the rating; one
						// decimal, so scores tie now and then.
						noise := rng.Float64() * 5 * float64(ri+1)
						scores = append(scores, math.Round((rel+noise)*10)/10)
					}
					order, err := ndcg.Ranking(ids, scores)
					if err != nil {
						t.Fatal(err)
					}
					for rank, k := range order {
						rows = append(rows, dataset.RunRow{Retriever: r, Setting: s, Query: q.ID, Doc: ids[k], Score: scores[k], Rank: int32(rank + 1)})
					}
					timings = append(timings, dataset.Timing{Retriever: r, Setting: s, Query: q.ID, Candidates: int32(len(ids)), Seconds: 0.001 * float64(ri+1) * float64(1+len(q.ID)%3)})
				}
				if o.mutate != nil {
					rows = o.mutate(rows)
				}
				if o.timing != nil {
					var kept []dataset.Timing
					for _, tm := range timings {
						if o.timing(&tm) {
							kept = append(kept, tm)
						}
					}
					timings = kept
				}
				for _, row := range rows {
					f.runs[sys][row.Query] = append(f.runs[sys][row.Query], row)
				}
				stagetest.Put(t, root, run, dataset.Timings, spec, timings)
				stagetest.Put(t, root, run, dataset.Runs, spec, rows)
			}
		}
	}
	return f
}

func testConfig(t *testing.T, dir, run string, seedV uint64, retrievers []string) *config.Config {
	t.Helper()
	if retrievers == nil {
		retrievers = testRetrievers
	}
	y := fmt.Sprintf("run: %s\nroot: %s\nseed: %d\nlog: {progress_seconds: 0}\n"+
		"evaluate: {retrievers: [%s], settings: [%s]}\nreport: {resamples: 200, k: 5}\n",
		run, dir, seedV, strings.Join(retrievers, ", "), strings.Join(testSettings, ", "))
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

// runReport runs the stage and returns its outputs' SHA-256 by name
// relative to the run.
func runReport(t *testing.T, cfg *config.Config, root store.Store, force bool) (map[string]string, error) {
	t.Helper()
	res, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{Force: force})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, o := range res.Outputs {
		out[strings.TrimPrefix(o.Key, cfg.Run+"/")] = o.SHA256
	}
	return out, nil
}

func setup(t *testing.T, o fabOptions, seedV uint64) (*config.Config, store.Store, *fake, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := fabricate(t, root, "r", o)
	return testConfig(t, dir, "r", seedV, o.retrievers), root, f, dir
}

func readReport(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "r", "reports", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// direct recomputes one system's per-query nDCG with lib/ndcg alone.
func (f *fake) direct(t *testing.T, s System, v Variant, k int) []float64 {
	t.Helper()
	var out []float64
	for _, q := range f.queries {
		var ids []string
		var scores, rels []float64
		for _, r := range f.runs[s][q.ID] {
			ids = append(ids, r.Doc)
			scores = append(scores, r.Score)
			rels = append(rels, f.ratings[q.ID][r.Doc]*float64(v.Scale)/trec.MaxRating)
		}
		x, err := ndcg.NDCG(ids, scores, rels, ndcg.Options{K: k, Gain: v.Gain})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	return out
}

func TestReportMatchesLibNDCG(t *testing.T) {
	cfg, root, f, dir := setup(t, fabOptions{queries: 23, docs: 12, ranges: 2}, 42)
	outs, err := runReport(t, cfg, root, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range expectedFiles() {
		if outs[name] == "" {
			t.Errorf("no output %s (have %v)", name, keys(outs))
		}
	}
	// Per-query values, every variant, against lib/ndcg on the raw data.
	rows, err := csv.NewReader(bytes.NewReader(readReport(t, dir, ReportPerQuery))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + len(testRetrievers)*len(testSettings)*len(f.queries); len(rows) != want {
		t.Fatalf("per-query CSV has %d rows, want %d", len(rows), want)
	}
	got := map[System][][]float64{}
	for _, r := range rows[1:] {
		s := System{r[0], r[1]}
		if got[s] == nil {
			got[s] = make([][]float64, len(Variants))
		}
		for v := range Variants {
			x, err := strconv.ParseFloat(r[4+v], 64)
			if err != nil {
				t.Fatal(err)
			}
			got[s][v] = append(got[s][v], x)
		}
	}
	for s := range f.runs {
		for v, vr := range Variants {
			want := f.direct(t, s, vr, 5)
			if !slices.Equal(got[s][v], want) {
				t.Errorf("%s %s: per-query nDCG\n got %v\nwant %v", s, vr, got[s][v], want)
			}
		}
	}
	if got[System{"bm25", "statement-full"}][vExp][3] != 0 {
		t.Error("a query whose ratings are all 0 should score 0")
	}

	// results: means per domain and overall, and reproducible intervals.
	res, err := dataset.Read[dataset.Result](context.Background(), root, layout.DataKey("r", "results", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(testRetrievers) * len(testSettings) * 2 * (1 + len(testDomains)); len(res) != want {
		t.Fatalf("%d results, want %d", len(res), want)
	}
	groups := make([]string, len(f.queries))
	for i, q := range f.queries {
		groups[i] = q.Domain
	}
	for _, r := range res {
		s := System{r.Retriever, r.Setting}
		v := vExp
		if r.Gain == "linear" {
			v = vLin
		}
		vals := f.direct(t, s, Variants[v], 5)
		var want float64
		var sub []float64
		if r.Scope == ScopeOverall {
			want, _ = ndcg.Mean(vals)
			sub = vals
		} else {
			gm, _ := ndcg.GroupMeans(vals, groups)
			want = gm[r.Scope]
			for i, g := range groups {
				if g == r.Scope {
					sub = append(sub, vals[i])
				}
			}
		}
		if math.Abs(r.NDCG-want) > 1e-12 || int(r.Queries) != len(sub) {
			t.Errorf("%+v: want nDCG %v over %d queries", r, want, len(sub))
		}
		iv, err := ndcg.Bootstrap(sub, ndcg.BootstrapOptions{Resamples: 200},
			seed.Rand(42, "report", BootstrapKey(Key{r.Retriever, r.Setting, r.Gain, r.Scope})))
		if err != nil {
			t.Fatal(err)
		}
		if r.Lo != iv.Lo || r.Hi != iv.Hi || !(r.Lo <= r.NDCG && r.NDCG <= r.Hi) && len(sub) > 1 {
			t.Errorf("%+v: interval, want [%v, %v]", r, iv.Lo, iv.Hi)
		}
	}

	// Table 1 in Markdown: rows by overall nDCG, the best bold, timings.
	md := string(readReport(t, dir, Table1+".md"))
	for _, want := range []string{"| Retriever | Overall | Algebra | Geometry | Number Theory | Combinatorics | Calculus and Analysis | full-full | Med. s/query | Frontier |",
		"| bm25 | **", "23 queries (Algebra 5, Geometry 5, Number Theory 5, Combinatorics 4, Calculus and Analysis 4)"} {
		if !strings.Contains(md, want) {
			t.Errorf("table1.md lacks %q:\n%s", want, md)
		}
	}
	lb := struct {
		Entries []struct {
			Retriever     string
			NDCG          float64
			MedianSeconds *float64 `json:"median_seconds_per_query"`
			Domains       []struct{ Domain string }
		}
	}{}
	if err := json.Unmarshal(readReport(t, dir, ReportLeaderboard), &lb); err != nil {
		t.Fatal(err)
	}
	if len(lb.Entries) != 3 || lb.Entries[0].Retriever != "bm25" || lb.Entries[0].NDCG < lb.Entries[1].NDCG ||
		lb.Entries[1].NDCG < lb.Entries[2].NDCG || lb.Entries[0].MedianSeconds == nil || len(lb.Entries[0].Domains) != 5 {
		t.Errorf("leaderboard: %+v", lb)
	}
	// bm25's timings are 0.001 s × (1 + len("qNNN") % 3) = 0.002 s.
	if lb.Entries[0].MedianSeconds != nil && *lb.Entries[0].MedianSeconds != 0.002 {
		t.Errorf("bm25 median seconds %v, want 0.002", *lb.Entries[0].MedianSeconds)
	}
	tex := string(readReport(t, dir, Table7+".tex"))
	if !strings.Contains(tex, `^{+`) {
		t.Errorf("table7.tex has no intervals:\n%s", tex)
	}
	t8 := string(readReport(t, dir, Table8+".tex"))
	if !strings.Contains(t8, `\multicolumn{6}{c}{statement-full} & \multicolumn{6}{c}{full-full}`) {
		t.Errorf("table8.tex lacks the setting groups:\n%s", t8)
	}
	png := readReport(t, dir, ReportChart+".png")
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("the chart is not a PNG")
	}
}

func expectedFiles() []string {
	var out []string
	for _, t := range []string{Table1, Table7, Table8, TableSensitivity} {
		for _, e := range TableExts {
			out = append(out, "reports/"+t+e)
		}
	}
	return append(out, "reports/"+ReportIndex, "reports/"+ReportLatencyQueries, "reports/"+ReportFrontier+".png", "reports/"+ReportFrontier+".svg", "reports/"+ReportPerQuery, "reports/"+ReportChart+".png",
		"reports/"+ReportChart+".svg", "reports/"+ReportLeaderboard, "reports/"+ReportHTML, "reports/judge_audit.md", "results/part-00000-of-00001.parquet")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The same benchmark with evaluate run as 1 or 3 query ranges gives the
// same bytes, and so does a forced rerun; another seed changes only the
// intervals.
func TestReportDeterministic(t *testing.T) {
	o := fabOptions{queries: 17, docs: 9, ranges: 1}
	cfg1, root1, _, _ := setup(t, o, 7)
	h1, err := runReport(t, cfg1, root1, false)
	if err != nil {
		t.Fatal(err)
	}
	o.ranges = 3
	cfg3, root3, _, _ := setup(t, o, 7)
	h3, err := runReport(t, cfg3, root3, false)
	if err != nil {
		t.Fatal(err)
	}
	again, err := runReport(t, cfg3, root3, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range expectedFiles() {
		if h1[name] == "" || h1[name] != h3[name] || h3[name] != again[name] {
			t.Errorf("%s: 1 range %q, 3 ranges %q, rerun %q", name, h1[name], h3[name], again[name])
		}
	}
	cfgS, rootS, _, _ := setup(t, o, 8)
	hs, err := runReport(t, cfgS, rootS, false)
	if err != nil {
		t.Fatal(err)
	}
	if hs["results/part-00000-of-00001.parquet"] == h3["results/part-00000-of-00001.parquet"] {
		t.Error("another seed gave the same intervals")
	}
	for _, name := range []string{"reports/table1.md", "reports/table8.md", "reports/sensitivity.md", "reports/ndcg_per_query.csv"} {
		if hs[name] != h3[name] {
			t.Errorf("%s changed with the seed; only intervals should", name)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	tests := []struct {
		name   string
		mutate func([]dataset.RunRow) []dataset.RunRow
		retr   []string // config's retrievers (default: all fabricated)
		want   string
	}{
		{"query missing", func(rows []dataset.RunRow) []dataset.RunRow {
			return slices.DeleteFunc(rows, func(r dataset.RunRow) bool { return r.Retriever == "tfidf" && r.Query == "q004" })
		}, nil, "retriever tfidf in setting statement-full ranked 9 of 10 queries; missing q004"},
		{"unknown doc", func(rows []dataset.RunRow) []dataset.RunRow {
			for i := range rows {
				if rows[i].Query == "q002" && rows[i].Rank == 2 && rows[i].Retriever == "jaccard" {
					rows[i].Doc = "zzz"
				}
			}
			return rows
		}, nil, "doc zzz is not among the query's rated candidates"},
		{"rank against scores", func(rows []dataset.RunRow) []dataset.RunRow {
			for i := range rows {
				if rows[i].Query == "q001" && rows[i].Rank == 1 && rows[i].Retriever == "bm25" {
					rows[i].Score = -100
				}
			}
			return rows
		}, nil, "but by score, descending with ties by doc id ascending, rank 1 is doc"},
		{"retriever not configured", nil, []string{"bm25", "tfidf"}, "retriever jaccard in setting statement-full is not in the config's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			root, _ := store.Open(context.Background(), dir, store.Options{})
			fabricate(t, root, "r", fabOptions{queries: 10, docs: 6, ranges: 2, mutate: tt.mutate})
			cfg := testConfig(t, dir, "r", 1, tt.retr)
			_, err := runReport(t, cfg, root, false)
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v (exit %d), want exit 2 with %q", err, stage.ExitCode(err), tt.want)
			}
			if strings.Contains(tt.want, "doc") && !strings.Contains(err.Error(), "runs/part-") {
				t.Errorf("error %q does not name the part", err)
			}
		})
	}
}

func TestSensitivityOneRetriever(t *testing.T) {
	cfg, root, _, dir := setup(t, fabOptions{queries: 6, docs: 5, ranges: 1, retrievers: []string{"bm25"}}, 1)
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	md := string(readReport(t, dir, TableSensitivity+".md"))
	if !strings.Contains(md, "**Not defined for this run:** it scores 1 retriever") || !strings.Contains(md, "| n/a | n/a | 0 / 0 |") {
		t.Errorf("sensitivity.md with one retriever:\n%s", md)
	}
}

// A hand-made model: three retrievers, one setting, one query each, so
// the overall values are the per-query values.
func TestSensitivityHandMade(t *testing.T) {
	m := &model{k: 10, main: "statement-full", settings: []string{"statement-full"}, retrievers: []string{"a", "b", "c"}, scores: map[System]*scored{}}
	// Per variant (exp, lin, exp[0,3], lin[0,3]) the retrievers' values:
	vals := map[string][4]float64{
		"a": {0.9, 0.5, 0.8, 0.5},
		"b": {0.6, 0.6, 0.7, 0.6},
		"c": {0.3, 0.4, 0.3, 0.4},
	}
	for r, v := range vals {
		sc := &scored{perQuery: make([][]float64, 4)}
		for i := range v {
			sc.perQuery[i] = []float64{v[i]}
		}
		m.scores[System{r, "statement-full"}] = sc
	}
	m.sensitivity()
	rows := m.sens[0].rows
	// exp[0,3] (0.8, 0.7, 0.3) orders a, b, c as the default does: no
	// inversion; Spearman 1. Pearson by hand: x − x̄ = (0.3, 0, −0.3),
	// y − ȳ = (0.2, 0.1, −0.3): 0.15 / √(0.18 · 0.14) = 0.944911182523068.
	if r := rows[1]; r.inversions != 0 || r.pairs != 3 || math.Abs(r.spearman-1) > 1e-12 || math.Abs(r.pearson-0.15/math.Sqrt(0.18*0.14)) > 1e-12 {
		t.Errorf("[0,3] exp: %+v", r)
	}
	// linear (0.5, 0.6, 0.4): a and b swap, one inversion; ranks (2, 3, 1)
	// against (3, 2, 1): Spearman 0.5.
	if r := rows[0]; r.inversions != 1 || math.Abs(r.spearman-0.5) > 1e-12 {
		t.Errorf("[0,5] linear: %+v", r)
	}
	// No timings recorded: Table 1 shows a dash, the CSV an empty cell.
	t1 := m.table1()
	if md := t1.md.markdown(); !strings.Contains(md, "| — |") || t1.csv[1][len(t1.csv[1])-2] != "" {
		t.Errorf("table 1 without timings:\n%s\n%v", md, t1.csv)
	}
}

// Pearson and Spearman are lib/stats' (tested there, against SciPy).
func TestInversions(t *testing.T) {
	x, y := []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}
	if inv, pairs := Inversions(x, y); inv != 1 || pairs != 6 {
		t.Errorf("inversions %d / %d, want 1 / 6", inv, pairs)
	}
	// A tied pair is no inversion.
	if inv, _ := Inversions([]float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}); inv != 0 {
		t.Errorf("a tie counted as an inversion: %d", inv)
	}
	// Reversed order: every pair inverted.
	if inv, pairs := Inversions([]float64{1, 2, 3}, []float64{3, 2, 1}); inv != 3 || pairs != 3 {
		t.Errorf("reversed: %d / %d", inv, pairs)
	}
}

// reportConfig is testConfig with the evaluate section's operational keys
// and a configured retriever (not evaluated) written out, and report.k.
func reportConfig(t *testing.T, dir string, evalShards, evalWorkers, k int, baseURL string) *config.Config {
	t.Helper()
	y := fmt.Sprintf("run: r\nroot: %s\nseed: 42\nlog: {progress_seconds: 0}\n"+
		"retrievers:\n  emb: {kind: embedding, base_url: %q, model: m}\n"+
		"evaluate: {shards: %d, workers: %d, retrievers: [%s], settings: [%s]}\nreport: {resamples: 200, k: %d}\n",
		dir, baseURL, evalShards, evalWorkers, strings.Join(testRetrievers, ", "), strings.Join(testSettings, ", "), k)
	cfg, err := config.Parse([]byte(y), Section)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestReportManifestConfig: the manifest of report's shard records the
// configuration that determines its bytes — report's own section, the
// systems it scores (evaluate.retrievers, settings, instructions; the
// definitions of the evaluated retrievers, not of emb, which is defined
// but not evaluated) and the seed — and nothing else: evaluate's
// shards and workers, like a retriever's endpoint, are operational
// (hash:"-"), so changing them keeps the done shard current, while
// changing report.k makes it stale (exit 2). It also records exactly the
// inputs report reads, each hashed as read.
func TestReportManifestConfig(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fabricate(t, root, "r", fabOptions{queries: 10, docs: 6, ranges: 2})
	cfg := reportConfig(t, dir, 2, 3, 5, "http://127.0.0.1:9/v1")
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	one := shard.Spec{Index: 0, Count: 1}
	m, err := layout.ReadDone(ctx, root, layout.DoneKey("r", dataset.Results.Name, one))
	if err != nil {
		t.Fatal(err)
	}
	if m.Stage != "report" || m.Dataset != dataset.Results.Name || m.Format != dataset.Results.Version {
		t.Errorf("manifest: stage %q dataset %q format %d", m.Stage, m.Dataset, m.Format)
	}
	want := map[string]string{
		"seed":                   "42",
		"report.resamples":       "200",
		"report.k":               "5",
		"report.latency_queries": "50",
		"report.families":        "{}",
		"evaluate.retrievers":    `["bm25","tfidf","jaccard"]`,
		"evaluate.settings":      `["statement-full","full-full"]`,
		"evaluate.instructions":  "[]",
	}
	for k, v := range want {
		if got, ok := m.Config[k]; !ok || got != v {
			t.Errorf("manifest config %s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	for k := range m.Config {
		top := strings.FieldsFunc(k, func(r rune) bool { return r == '.' || r == '[' })[0]
		switch {
		case strings.HasPrefix(k, "evaluate.shards"), strings.HasPrefix(k, "evaluate.workers"):
			t.Errorf("manifest config holds the operational %s", k)
		case strings.HasPrefix(k, "retrievers.emb"):
			// emb is defined but not evaluated: editing it changes no score.
			t.Errorf("manifest config holds %s, a retriever report does not score", k)
		case strings.HasPrefix(k, "evaluate.") && !strings.HasPrefix(k, "evaluate.retrievers") &&
			!strings.HasPrefix(k, "evaluate.settings") && !strings.HasPrefix(k, "evaluate.instructions"):
			t.Errorf("manifest config holds %s, which report does not read", k)
		case top == "benchmark" && !strings.HasPrefix(k, "benchmark.ontology.") && k != "benchmark.domains":
			t.Errorf("manifest config holds %s; of benchmark, report reads only the ontology and the domains (their order)", k)
		case top != "report" && top != "evaluate" && top != "retrievers" && top != "seed" && top != "benchmark":
			t.Errorf("manifest config holds %s, outside what report declares", k)
		}
	}
	if !maps.Equal(m.Config, Stage.ConfigValues(cfg)) || m.ConfigHash != config.HashValues(m.Config) {
		t.Errorf("manifest config hash %s does not hash its values (%s)", m.ConfigHash, config.HashValues(m.Config))
	}
	// Inputs: every part of queries, ratings, runs and timings and of the
	// page's datasets, read, and of topics, summaries and judgments,
	// unread (their manifests give the provenance).
	wantInputs := map[string]string{}
	labels := []string{dataset.Topics.Name, dataset.Summaries.Name, dataset.Judgments.Name}
	for _, ds := range append([]string{dataset.Queries.Name, dataset.Ratings.Name, dataset.Runs.Name, dataset.Timings.Name,
		dataset.Thresholds.Name, dataset.Calibration.Name, dataset.Candidates.Name, dataset.Duplicates.Name, dataset.Audit.Name, dataset.Leaks.Name}, labels...) {
		ms, err := layout.Complete(ctx, root, "r", ds)
		if err != nil {
			t.Fatal(err)
		}
		for _, wm := range ms {
			for _, o := range wm.Objects(ds) {
				wantInputs[o.Key] = o.SHA256
			}
		}
	}
	gotInputs := map[string]string{}
	for _, o := range m.Inputs {
		if o.Unread != slices.Contains(labels, o.Dataset) || o.Dataset == "" || !strings.HasPrefix(o.Key, "r/"+o.Dataset+"/") {
			t.Errorf("input %+v: want a part of a run dataset, read unless it holds labels", o)
		}
		gotInputs[o.Key] = o.SHA256
	}
	if !maps.Equal(gotInputs, wantInputs) {
		t.Errorf("manifest inputs %v, want %v", keys(gotInputs), keys(wantInputs))
	}

	// Operational changes: the done shard is served as it is.
	res, err := stage.RunShard(ctx, reportConfig(t, dir, 5, 1, 5, "http://127.0.0.1:10/v1"), Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if err != nil || !res.Skipped {
		t.Fatalf("report after changing evaluate.shards, evaluate.workers and an endpoint: skipped %v, err %v; want it skipped as current", res.Skipped, err)
	}
	// report.k determines the bytes: the done shard is stale.
	_, err = stage.RunShard(ctx, reportConfig(t, dir, 2, 3, 10, "http://127.0.0.1:9/v1"), Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	var se *stage.StaleError
	if !errors.As(err, &se) || stage.ExitCode(err) != stage.ExitBadInput || len(se.Why.Config) != 1 || se.Why.Config[0].Key != "report.k" {
		t.Fatalf("report after changing report.k: err %v (exit %d), want a stale shard naming report.k, exit 2", err, stage.ExitCode(err))
	}
}

// putSiteInputs writes the datasets of the stages before report that only
// its page (index.html) reads: the thresholds and the calibration grid of
// every domain, one duplicate cluster, an audit with one flagged pair and
// its leak.
func putSiteInputs(t *testing.T, root store.Store, run string, domains []string) {
	t.Helper()
	th := []dataset.Threshold{{Scope: dataset.ScopeFinal, TauTopic: 0.5, TauSumm: 0.6, Feasible: true, K: 5, MinEligible: 2, Eligible: 3}}
	var grid []dataset.GridPoint
	for d, name := range domains {
		th = append(th, dataset.Threshold{Scope: name, TauTopic: 0.6, TauSumm: 0.6, Eligible: 4, EligibleAtFinal: 5, Feasible: true, K: 5, MinEligible: 2})
		for _, tt := range []float64{0.4, 0.5, 0.6} {
			for _, ts := range []float64{0.5, 0.6} {
				grid = append(grid, dataset.GridPoint{Scope: name, TauTopic: tt, TauSumm: ts, Eligible: int64(10*d) + int64(10*(1-tt)+10*(1-ts))})
			}
		}
	}
	stagetest.PutOne(t, root, run, dataset.Thresholds, th)
	stagetest.PutOne(t, root, run, dataset.Calibration, grid)
	stagetest.PutOne(t, root, run, dataset.Duplicates, []dataset.Duplicate{
		{Cluster: "d001", Kept: "d001", Dropped: "x1", DroppedSource: "forum", Similarity: 0.91},
		{Cluster: "d001", Kept: "d001", Dropped: "x2", DroppedSource: "math", Similarity: 0.88}})
	stagetest.PutOne(t, root, run, dataset.Audit, []dataset.AuditRow{
		{Query: "q000", Doc: "d000", Rank: 1, Rating: 5, Verdict: "equivalent", Flagged: true, Score: 0.97, Reason: "same <problem> & numbers"},
		{Query: "q001", Doc: "d003", Rank: 1, Rating: 5, Verdict: "distinct", Score: 0.2}})
	stagetest.PutOne(t, root, run, dataset.Leaks, []dataset.Leak{{Query: "q000", Doc: "d000", Rank: 1, Rating: 5, Score: 0.97, Reason: "same problem"}})
}
