package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/seed"
)

func TestPareto(t *testing.T) {
	tests := []struct {
		name string
		pts  []FrontierPoint
		want []bool
	}{
		{"empty", nil, []bool{}},
		{"single", []FrontierPoint{{"a", 1, 0.5}}, []bool{true}},
		{"dominated", []FrontierPoint{{"fast-good", 0.1, 0.7}, {"slow-bad", 1, 0.5}, {"slow-best", 10, 0.8}}, []bool{true, false, true}},
		// Same time, lower nDCG: dominated; same nDCG, slower: dominated.
		{"ties one way", []FrontierPoint{{"a", 1, 0.6}, {"b", 1, 0.5}, {"c", 2, 0.6}}, []bool{true, false, false}},
		// Identical points dominate neither.
		{"identical", []FrontierPoint{{"a", 1, 0.6}, {"b", 1, 0.6}, {"c", 0.5, 0.4}}, []bool{true, true, true}},
		{"staircase", []FrontierPoint{{"a", 0.01, 0.41}, {"b", 0.4, 0.51}, {"c", 0.47, 0.58}, {"d", 0.5, 0.55}, {"e", 30, 0.74}, {"f", 40, 0.73}},
			[]bool{true, true, true, false, true, false}},
	}
	for _, tt := range tests {
		got := Pareto(tt.pts)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Pareto = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFamilyOf(t *testing.T) {
	cfg := config.Default(Section)
	cfg.Retrievers = map[string]retrievers.Spec{"emb": {Kind: retrievers.KindEmbedding}, "rr": {Kind: retrievers.KindRerank},
		"sc": {Kind: retrievers.KindScore}, "ch": {Kind: retrievers.KindChat}, "pl": {Kind: retrievers.KindPlugin}, "colbert": {Kind: retrievers.KindPlugin}}
	Section.Of(cfg).Families = map[string]string{"colbert": FamilyCrossEncoder, "jaccard": FamilyBiEncoder}
	for name, want := range map[string]string{"emb": FamilyBiEncoder, "rr": FamilyCrossEncoder, "sc": FamilyCrossEncoder, "ch": FamilyCrossEncoder,
		"pl": FamilyOther, "bm25": FamilyOther, "colbert": FamilyCrossEncoder, "jaccard": FamilyBiEncoder} {
		if got := FamilyOf(cfg, name); got != want {
			t.Errorf("FamilyOf(%s) = %s, want %s", name, got, want)
		}
	}
}

func TestLatencySample(t *testing.T) {
	var ids []string
	for i := range 120 {
		ids = append(ids, "q"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('A'+i/26)))
	}
	s := LatencySample(7, ids, 50)
	if len(s) != 50 {
		t.Fatalf("%d queries drawn, want 50", len(s))
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	if !slices.Equal(LatencySample(7, rev, 50), s) {
		t.Error("the sample depends on the order of the ids")
	}
	if slices.Equal(LatencySample(8, ids, 50), s) {
		t.Error("another seed drew the same sample")
	}
	// The 50 smallest hashes, in hash order.
	max := seed.Derive(7, "report", LatencyKey(s[49]))
	for i, id := range s {
		if i > 0 && seed.Derive(7, "report", LatencyKey(s[i-1])) > seed.Derive(7, "report", LatencyKey(id)) {
			t.Errorf("draw %d out of order", i)
		}
	}
	for _, id := range ids {
		if !slices.Contains(s, id) && seed.Derive(7, "report", LatencyKey(id)) < max {
			t.Errorf("%s has a smaller draw than the sample's largest but was left out", id)
		}
	}
	if got := LatencySample(7, ids[:10], 50); len(got) != 10 {
		t.Errorf("fewer queries than the sample: %d drawn, want all 10", len(got))
	}
}

// A model by hand: the frontier marks and the figure.
func TestFrontierChart(t *testing.T) {
	exp := ndcg.Exponential.String()
	m := &model{main: "statement-full", k: 10, ci: map[Key]ndcg.Interval{}, median: map[System]float64{}}
	pts := []struct {
		name, fam string
		sec, v    float64
	}{
		{"bm25", FamilyOther, 0.014, 0.41}, {"emb-small", FamilyBiEncoder, 0.4, 0.51}, {"emb-big", FamilyBiEncoder, 1.7, 0.71},
		{"emb-slow", FamilyBiEncoder, 3, 0.6}, {"rr-small", FamilyCrossEncoder, 0.9, 0.65}, {"rr-32b", FamilyCrossEncoder, 85, 0.73},
		{"rr-bad", FamilyCrossEncoder, 100, 0.7},
	}
	cfg := config.Default(Section)
	families := map[string]string{}
	Section.Of(cfg).Families = families
	for _, p := range pts {
		m.retrievers = append(m.retrievers, p.name)
		m.median[System{p.name, m.main}] = p.sec
		m.ci[Key{p.name, m.main, exp, ScopeOverall}] = ndcg.Interval{Mean: p.v}
		if p.fam != FamilyOther {
			families[p.name] = p.fam
		}
	}
	m.frontiers(cfg)
	var on []string
	for _, r := range m.retrievers {
		if m.frontier[r] {
			on = append(on, r+":"+m.frontierMark(r))
		}
	}
	want := []string{"emb-small:bi-encoder", "emb-big:bi-encoder", "rr-small:cross-encoder", "rr-32b:cross-encoder"}
	if !slices.Equal(on, want) {
		t.Errorf("frontier %v, want %v", on, want)
	}
	c, ok := m.frontierChart()
	if !ok || len(c.Points) != len(pts) || len(c.Lines) != 2 || c.Lines[0].Name != "Bi-encoder frontier" || c.Lines[1].Name != "Cross-encoder frontier" ||
		!slices.Equal(c.Lines[0].X, []float64{0.4, 1.7}) || !c.LogX {
		t.Errorf("chart: %+v", c)
	}
	png, svg, err := chart.RenderBoth(c, 8*72, 5*72)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || !bytes.Contains(svg, []byte("<svg")) {
		t.Error("the frontier figure is not a PNG and an SVG")
	}
	// One point: no log range, still drawn.
	one := &model{main: "statement-full", k: 10, retrievers: []string{"emb-big"}, ci: m.ci, median: m.median}
	one.frontiers(cfg)
	c, ok = one.frontierChart()
	if !ok || !one.frontier["emb-big"] {
		t.Fatalf("one point: ok %v, frontier %v", ok, one.frontier)
	}
	if _, _, err := chart.RenderBoth(c, 8*72, 5*72); err != nil {
		t.Errorf("one point: %v", err)
	}
}

// The stage times on the latency sample: with 23 queries and a sample of
// 5, latency_queries.csv lists LatencySample's 5 and every median is over 5.
func TestReportLatencySample(t *testing.T) {
	cfg, root, f, dir := setup(t, fabOptions{queries: 23, docs: 6, ranges: 2}, 42)
	Section.Of(cfg).LatencyQueries = 5
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range f.queries {
		ids = append(ids, q.ID)
	}
	rows, err := csv.NewReader(bytes.NewReader(readReport(t, dir, ReportLatencyQueries))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[1])
	}
	if want := LatencySample(42, ids, 5); !slices.Equal(got, want) {
		t.Errorf("latency_queries.csv lists %v, want %v", got, want)
	}
	lb := struct {
		LatencyQueries int `json:"latency_queries"`
		Entries        []struct {
			TimedQueries int    `json:"timed_queries"`
			TimedOn      string `json:"timed_on"`
			Family       string `json:"family"`
		}
	}{}
	if err := json.Unmarshal(readReport(t, dir, ReportLeaderboard), &lb); err != nil {
		t.Fatal(err)
	}
	if lb.LatencyQueries != 5 || len(lb.Entries) == 0 {
		t.Fatalf("leaderboard: %+v", lb)
	}
	for _, e := range lb.Entries {
		if e.TimedQueries != 5 || e.TimedOn != "latency_sample" || e.Family != FamilyOther {
			t.Errorf("leaderboard entry %+v: want 5 timed queries on the latency sample, family other", e)
		}
	}
	md := string(readReport(t, dir, Table1+".md"))
	if !strings.Contains(md, "over the 5 queries of the latency sample") || !strings.Contains(md, "out of 23") {
		t.Errorf("table1.md does not describe the latency sample:\n%s", md)
	}
}

// Timings vary by query: bm25 is timed on every query, with the sample's
// queries at 1 s and the rest at 9 s, so its median is 1 s; tfidf lacks
// one of the sample's queries and falls back to all its timings (median
// 9 s, marked *); jaccard is not timed at all.
func TestReportLatencyFallback(t *testing.T) {
	const n = 23
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("q%03d", i))
	}
	sample := LatencySample(42, ids, 5)
	o := fabOptions{queries: n, docs: 6, ranges: 1, timing: func(tm *dataset.Timing) bool {
		if tm.Retriever == "jaccard" || tm.Retriever == "tfidf" && tm.Query == sample[2] {
			return false
		}
		tm.Seconds = 9
		if slices.Contains(sample, tm.Query) {
			tm.Seconds = 1
		}
		return true
	}}
	cfg, root, _, dir := setup(t, o, 42)
	Section.Of(cfg).LatencyQueries = 5
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(readReport(t, dir, Table1+".csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	h := rows[0]
	col := func(name string) int { return slices.Index(h, name) }
	got := map[string][]string{}
	for _, r := range rows[1:] {
		got[r[0]] = []string{r[col("median_seconds_per_query")], r[col("timed_queries")], r[col("timed_on")], r[col("family")], r[col("frontier")]}
	}
	want := map[string][]string{
		"bm25":    {"1", "5", "latency_sample", "other", "false"},
		"tfidf":   {"9", "22", "all", "other", "false"},
		"jaccard": {"", "0", "", "other", "false"},
	}
	for r, w := range want {
		if !slices.Equal(got[r], w) {
			t.Errorf("%s: %v, want %v", r, got[r], w)
		}
	}
	md := string(readReport(t, dir, Table1+".md"))
	if !strings.Contains(md, "| 9.00* |") || !strings.Contains(md, "* marks a median over every timed query instead, because not all of the sample was timed: tfidf.") {
		t.Errorf("table1.md does not mark the fallback:\n%s", md)
	}
}

func TestReportConfigFamilies(t *testing.T) {
	dir := t.TempDir()
	for y, want := range map[string]string{
		"report: {families: {bm25: bi-encoder}}": "",
		"report: {families: {bm25: sparse}}":     `report.families.bm25: "sparse" is not one of bi-encoder, cross-encoder, other`,
		"report: {families: {nope: bi-encoder}}": `report.families: "nope" is not in evaluate.retrievers`,
		"report: {latency_queries: -1}":          "report: latency_queries must be ≥ 1",
	} {
		path := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(path, []byte("run: r\nroot: "+dir+"\nevaluate: {retrievers: [bm25]}\n"+y+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path, Section)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", y, err)
		case want == "" && (Section.Of(cfg).LatencyQueries != 50 || FamilyOf(cfg, "bm25") != FamilyBiEncoder):
			t.Errorf("%s: latency_queries %d, family %s", y, Section.Of(cfg).LatencyQueries, FamilyOf(cfg, "bm25"))
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: error %v, want %q", y, err, want)
		}
	}
}
