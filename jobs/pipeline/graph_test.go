package pipeline

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline/internal/lengths"
	"github.com/saber-math/saber/jobs/stage"
)

// depsOf renders each node's dependencies: "tag: dedup reduce".
func depsOf(g *Graph) map[string]string {
	out := map[string]string{}
	for i, n := range g.Nodes() {
		out[n.String()] = strings.Join(g.names(g.Deps(i)), ", ")
	}
	return out
}

// TestGraphIsDerived: the order and the edges follow from what the steps
// read and write — tag and summarize read only the corpus, evaluate runs
// beside judge and rate, report waits for both — and a shuffled registry
// gives the same edges and a valid order.
func TestGraphIsDerived(t *testing.T) {
	want := map[string]string{
		"ingest map":    "",
		"ingest reduce": "ingest map",
		"dedup map":     "ingest reduce",
		"dedup reduce":  "ingest reduce, dedup map",
		"tag":           "dedup reduce",
		"summarize":     "dedup reduce",
		"pairs":         "tag, summarize",
		"calibrate":     "tag, summarize, pairs",
		"select":        "tag, summarize, pairs, calibrate",
		"judge":         "dedup reduce, select",
		"rate":          "select, judge",
		"evaluate":      "dedup reduce, select",
		// report's page (index.html) shows the whole run: dedup's
		// clusters, calibration's grid, the leakage audit.
		"report":       "dedup reduce, tag, summarize, calibrate, select, judge, rate, evaluate, audit map, audit reduce",
		"audit map":    "dedup reduce, select, rate",
		"audit reduce": "dedup reduce, select, audit map",
		"analyze":      "dedup reduce, tag, summarize, select, judge, rate, report",
		"release":      "dedup reduce, tag, summarize, calibrate, select, judge, rate, evaluate, audit map, audit reduce, report",
		// The deduplication experiment (off the main line): the rewrites
		// and the pool embeddings need only the benchmark; the ranks need
		// both; the tables need report's nDCG@10.
		"rewrite":           "dedup reduce, select",
		"embed":             "dedup reduce, select",
		"downstream map":    "dedup reduce, select, rewrite, embed",
		"downstream reduce": "select, report, rewrite, downstream map",
	}
	g := Default()
	got := depsOf(g)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s depends on %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("nodes %v", got)
	}
	if names := strings.Join(Names(), ","); names != "ingest,dedup,tag,summarize,pairs,calibrate,select,judge,rate,evaluate,audit,report,analyze,release,rewrite,embed,downstream" {
		t.Errorf("Names = %s", names)
	}
	rev := slices.Clone(Stages)
	slices.Reverse(rev)
	g2, err := NewGraph(rev)
	if err != nil {
		t.Fatal(err)
	}
	got2 := depsOf(g2)
	for k, v := range want {
		// The same edges, perhaps listed in another order.
		a, b := strings.Split(v, ", "), strings.Split(got2[k], ", ")
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("reversed registry: %s depends on %q, want %q", k, got2[k], v)
		}
	}
	pos := map[string]int{}
	for i, n := range g2.Nodes() {
		pos[n.String()] = i
	}
	for i, n := range g2.Nodes() {
		for _, d := range g2.Deps(i) {
			if d >= i {
				t.Errorf("reversed registry runs %s before its input's writer %s", n, g2.Nodes()[d])
			}
		}
	}
	if d := g.names(g.Descendants([]int{mustFind(t, g, "dedup", "reduce")})); strings.Join(d, ",") != "tag,summarize,pairs,calibrate,select,judge,rate,evaluate,audit map,audit reduce,report,analyze,release,rewrite,embed,downstream map,downstream reduce" {
		t.Errorf("downstream of dedup reduce: %v", d)
	}
	if a := g.names(g.Ancestors([]int{mustFind(t, g, "evaluate", "map")})); strings.Join(a, ",") != "ingest map,ingest reduce,dedup map,dedup reduce,tag,summarize,pairs,calibrate,select" {
		t.Errorf("upstream of evaluate: %v", a)
	}
}

func mustFind(t *testing.T, g *Graph, st, step string) int {
	t.Helper()
	i, ok := g.Find(st, step)
	if !ok {
		t.Fatalf("no %s %s", st, step)
	}
	return i
}

func TestGraphRejectsBadDeclarations(t *testing.T) {
	st := func(name string, in, out []string) stage.Stage {
		return stage.Stage{Name: name, Steps: []stage.Step{{Name: "map", Inputs: in, Outputs: out}}}
	}
	for _, tt := range []struct {
		stages []stage.Stage
		want   string
	}{
		{[]stage.Stage{st("a", nil, []string{"x"}), st("b", nil, []string{"x"})}, "dataset x is written by both a and b map"},
		{[]stage.Stage{st("a", []string{"y"}, []string{"x"})}, "a reads dataset y, which no registered step writes"},
		{[]stage.Stage{st("a", []string{"y"}, []string{"x"}), st("b", []string{"x"}, []string{"y"})}, "cycle among a, b"},
		{[]stage.Stage{st("a", []string{"x"}, []string{"x"})}, "reads its own output"},
		{[]stage.Stage{st("a", nil, nil)}, "writes no dataset"},
		{[]stage.Stage{st("a", nil, []string{"x"}), st("a", nil, []string{"y"})}, "registered twice"},
	} {
		if _, err := NewGraph(tt.stages); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewGraph: %v; want %q", err, tt.want)
		}
	}
}

// TestAddingAStage: the test-only stage joins with its package, its main
// and one registry line; its place follows from what it reads, it is off
// the main line until named or enabled, and its section is part of the
// run config.
func TestAddingAStage(t *testing.T) {
	g, err := NewGraph(append(slices.Clone(Stages), lengths.Stage))
	if err != nil {
		t.Fatal(err)
	}
	if got := depsOf(g)["lengths"]; got != "dedup reduce" {
		t.Errorf("lengths depends on %q", got)
	}
	cfg, err := config.Parse([]byte("run: r\nroot: d\n"), g.Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	main, _ := g.Select(cfg, "")
	for _, s := range main {
		if s.Name == "lengths" {
			t.Error("an optional stage is on the main line")
		}
	}
	if sel, err := g.Select(cfg, "lengths,ingest"); err != nil || len(sel) != 2 || sel[0].Name != "ingest" || sel[1].Name != "lengths" {
		t.Errorf("Select(lengths,ingest) = %v, %v", sel, err)
	}
	on, err := config.Parse([]byte("run: r\nroot: d\nlengths: {enabled: true, min: 3}\n"), g.Sections()...)
	if err != nil {
		t.Fatal(err)
	}
	main, _ = g.Select(on, "")
	if main[len(main)-1].Name != "lengths" {
		t.Errorf("enabled optional stage not selected: %v", main)
	}
	if _, err := ParseConfig([]byte("run: r\nroot: d\nlengths: {min: 3}\n")); err == nil || !strings.Contains(err.Error(), "unknown key lengths") {
		t.Errorf("the registry without the stage accepted its section: %v", err)
	}
}

// TestExamplesParse keeps the configs the docs (docs/admin.md, docs/corpus.md)
// point to valid.
func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		if _, err := LoadConfig(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestStagesDeclareSectionsAndOutputs: every stage owns a config section
// (evaluate's is shared with report, in the core; embed reads downstream's
// but is made stale only by its bi-encoders' entries) and every step writes.
func TestStagesDeclareSectionsAndOutputs(t *testing.T) {
	for _, s := range Stages {
		if s.Section == nil && s.Name != "evaluate" && s.Name != "embed" {
			t.Errorf("stage %s has no config section", s.Name)
		}
		for _, step := range s.Steps {
			if len(step.Outputs) == 0 {
				t.Errorf("%s %s declares no outputs", s.Name, step.Name)
			}
		}
	}
}

// TestReleaseIsOnTheMainLineOnceDated: without release.date the main line
// stops before the release and says which setting turns it on; with one,
// the release is its last stage.
func TestReleaseIsOnTheMainLineOnceDated(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		on   bool
	}{
		{"run: r\nroot: d\n", false},
		{"run: r\nroot: d\nrelease: {version: 1.0.0}\n", false},
		{"run: r\nroot: d\nrelease: {date: 2026-12-01}\n", true},
	} {
		cfg, err := ParseConfig([]byte(tt.yaml))
		if err != nil {
			t.Fatal(err)
		}
		sel, err := Select(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		last := sel[len(sel)-1].Name
		// The deduplication experiment stays off without
		// downstream.retrievers, and says so in one line (rewrite and
		// embed go with it).
		off := Off(cfg, "")
		if len(off) == 0 || off[len(off)-1] != "downstream: off (set downstream.retrievers to run the deduplication experiment (App. B.4))" {
			t.Errorf("%q: off %q lacks the deduplication experiment", tt.yaml, off)
		} else {
			off = off[:len(off)-1]
		}
		if tt.on && (last != "release" || len(off) != 0) || !tt.on && (last == "release" || len(off) != 1 || !strings.Contains(off[0], "release: off (set release.date")) {
			t.Errorf("%q: last stage %s, off %q", tt.yaml, last, off)
		}
		// Naming the stages says nothing about the others.
		if o := Off(cfg, "ingest"); len(o) != 0 {
			t.Errorf("Off with --stages ingest: %q", o)
		}
	}
}
