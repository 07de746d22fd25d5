package readers_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/readers"
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
