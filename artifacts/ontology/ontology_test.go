package ontology

import (
	"regexp"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/synth"
)

// TestDefaultShape checks the documented shape of the default ontology:
// five domains with fixed ids and labels, a few hundred nodes, real
// multi-parent nodes, depth at most 4 below the domains, and well-formed ids
// and keywords.
func TestDefaultShape(t *testing.T) {
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	wantRoots := []string{"algebra", "geometry", "number-theory", "combinatorics", "calculus-analysis"}
	wantLabels := []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}
	roots := d.Roots()
	if strings.Join(roots, ",") != strings.Join(wantRoots, ",") {
		t.Fatalf("roots %v, want %v", roots, wantRoots)
	}
	label := map[string]string{}
	for _, n := range d.Nodes {
		label[n.ID] = n.Label
	}
	for k, id := range wantRoots {
		if label[id] != wantLabels[k] {
			t.Errorf("root %s has label %q, want %q", id, label[id], wantLabels[k])
		}
	}
	if n := len(d.Nodes); n < 300 || n > 450 {
		t.Errorf("%d nodes, want 300–450", n)
	}
	idRe := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, n := range d.Nodes {
		if !idRe.MatchString(n.ID) {
			t.Errorf("id %q is not lower-case hyphenated", n.ID)
		}
		if k := len(n.Keywords); k < 3 || k > 15 {
			t.Errorf("%s: %d keywords, want 3–15", n.ID, k)
		}
		seen := map[string]bool{}
		for _, kw := range n.Keywords {
			if kw != strings.ToLower(kw) || strings.TrimSpace(kw) != kw || kw == "" {
				t.Errorf("%s: keyword %q is not a trimmed lower-case phrase", n.ID, kw)
			}
			if seen[kw] {
				t.Errorf("%s: keyword %q twice", n.ID, kw)
			}
			seen[kw] = true
		}
	}
	parents := map[string]int{}
	for _, e := range d.Edges {
		parents[e.Child]++
	}
	multi := 0
	for _, c := range parents {
		if c > 1 {
			multi++
		}
	}
	if multi < 15 {
		t.Errorf("%d multi-parent nodes, want ≥ 15", multi)
	}

	tr, err := DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	st := tr.Stats()
	if st.MaxDepth > 5 {
		t.Errorf("tree depth %d, want ≤ 5 (4 below the domains)", st.MaxDepth)
	}
	t.Logf("default ontology: %d DAG nodes, %d edges, %d multi-parent; tree of %d nodes (virtual root included), depth %d",
		len(d.Nodes), len(d.Edges), multi, tr.Len(), st.MaxDepth)
}

// labelPaths maps each tree node's label path ("Algebra/Polynomials/…", the
// form lib/synth names topics in) to the node.
func labelPaths(tr *ontology.Tree) map[string]int {
	out := make(map[string]int, tr.Len())
	for i := 1; i < tr.Len(); i++ {
		var parts []string
		for n := i; n > 0; n = tr.Parent(n) {
			parts = append([]string{tr.Label(n)}, parts...)
		}
		out[strings.Join(parts, "/")] = i
	}
	return out
}

// TestSynthTopicsCovered checks that every topic path the synthetic corpus
// emits names a node of the default tree, reading the path as labels.
func TestSynthTopicsCovered(t *testing.T) {
	tr, err := DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	paths := labelPaths(tr)
	seen := map[string]bool{}
	cfg := synth.Config{Seed: 1}
	for i := range 5000 {
		for _, tp := range synth.Generate(cfg, i).Topics {
			seen[tp] = true
		}
	}
	if len(seen) < 40 {
		t.Fatalf("only %d distinct synth topics in 5000 rows", len(seen))
	}
	for tp := range seen {
		if _, ok := paths[tp]; !ok {
			t.Errorf("synth topic %q is not a label path of the default ontology", tp)
		}
	}
}

func TestJSONIsACopy(t *testing.T) {
	a := JSON()
	a[0] = 'x'
	if JSON()[0] == 'x' {
		t.Fatal("JSON returned the embedded bytes")
	}
}
