package readers_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/topics"
)

// TestExampleMSC2020JSKOS parses examples/msc2020-jskos.yaml with the run
// config loader and reads its ontology settings against a small JSKOS
// fixture in MSC2020's shape (the published file is not in the
// repository): the roots it names must be the domains, with MSC's labels.
func TestExampleMSC2020JSKOS(t *testing.T) {
	cfg, err := pipeline.LoadConfig("../../examples/msc2020-jskos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := &cfg.Benchmark.Ontology
	if o.Format != "jskos" || len(o.Roots) != 6 {
		t.Fatalf("benchmark.ontology = %+v", *o)
	}
	if o.File, err = filepath.Abs("../../artifacts/ontology/testdata/msc2020-classes.jsonl"); err != nil {
		t.Fatal(err)
	}
	d, tree, err := readers.LoadOntologyDAG(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Roots(); !slices.Equal(got, o.Roots) {
		t.Errorf("roots %v, want %v", got, o.Roots)
	}
	// DomainLabels puts SPEC §3's domains first (Geometry), then the rest
	// in the ontology's order.
	want := []string{"Geometry", "Combinatorics", "Number theory", "Field theory and polynomials", "Real functions", "Probability theory and stochastic processes"}
	if got := topics.DomainLabels(tree); !slices.Equal(got, want) {
		t.Errorf("domains %q, want %q", got, want)
	}
	if s := d.Stats(); s.MaxDepth != 2 || s.Nodes != 6+5+20+8+5+14+11 {
		t.Errorf("restricted DAG: %d nodes, depth %d; want 69, 2", s.Nodes, s.MaxDepth)
	}
}

// TestFieldMappedOntology reads a concept list of its own shape through
// benchmark.ontology.fields, as every stage does, restricted to roots;
// a field the map names wrongly, a parent not in the file and a cycle are
// each exit 2 with a message naming it.
func TestFieldMappedOntology(t *testing.T) {
	dir := t.TempDir()
	list, err := filepath.Abs("../../artifacts/ontology/testdata/concepts.json")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cyclic := write("cyclic.csv", "id,label,up\nr,Root,\na,A,r;c\nb,B,a\nc,C,b\n")
	unknown := write("unknown.jsonl", `{"id": "a", "label": "A", "up": ["zz"]}`+"\n")
	for _, tc := range []struct {
		ontology string
		want     string // "" for success
	}{
		{`{file: ` + list + `, roots: ["100"], fields: {id: code, label: meta.name, parents: broader, keywords: keywords}}`, ""},
		{`{file: ` + list + `, fields: {id: code, label: meta.title, parents: broader}}`, `the label field "meta.title" is in no record (of 7)`},
		{`{file: ` + unknown + `, fields: {parents: up}}`, `line 1: parent "zz" of concept "a" is not the id of any record`},
		{`{file: ` + cyclic + `, fields: {parents: up}}`, `cycle: a → b → c → a`},
	} {
		cfg, err := pipeline.ParseConfig([]byte("run: r\nroot: " + dir + "\nbenchmark:\n  ontology: " + tc.ontology + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := readers.LoadOntologyDAG(context.Background(), cfg)
		if tc.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", tc.ontology, err)
			}
			if s := d.Stats(); s.Nodes != 4 || s.Roots != 1 || s.MaxDepth != 3 {
				t.Errorf("restricted to 100: %+v, want 4 nodes (100, 110, 111, 310), 1 root, depth 3", s)
			}
			continue
		}
		if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "benchmark.ontology") {
			t.Errorf("%s: %v (exit %d), want exit 2 naming benchmark.ontology and %q", tc.ontology, err, stage.ExitCode(err), tc.want)
		}
	}
}
