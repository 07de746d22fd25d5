package ontology

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
)

// mscClasses is MSC2020's 63 top classes and 529 second-level classes as
// JSKOS, with the scheme record first (see testdata/README.md).
const mscClasses = "testdata/msc2020-classes.jsonl"

// mscLeafLabels are labels of the kind MSC2020's five-digit classes have,
// which the test below gives to the classes it adds.
var mscLeafLabels = []string{
	"General reference works (handbooks, dictionaries, bibliographies, etc.)",
	"Research exposition (monographs, survey articles)",
	"Primes", "Congruences; primitive roots; residue systems", "Arithmetic functions; related numbers; inversion formulas",
	"Factorials, binomial coefficients, combinatorial functions", "Exact enumeration problems, generating functions",
	"Permutations, words, matrices", "Partitions of sets", "Planar graphs; geometric and topological aspects of graph theory",
	"Polynomials in real and complex fields: location of zeros (algebraic theorems)", "Inequalities for sums, series and integrals",
	"Triangles and polygons", "Circles and spheres", "Elementary problems in Euclidean geometries",
	"Combinatorial probability", "Recurrences", "Convergence and divergence of series and sequences",
}

// mscJSKOS returns MSC2020 as published in JSKOS, in shape: the scheme
// record, 63 top classes with English and German labels, 529 second-level
// classes (11Axx) and 6,016 five-digit classes (11A41), each with the
// broader URI of its class and the "None of the above, but in this
// section" class (XXY99) MSC gives every section. The labels of the top
// and second levels are MSC2020's; those of the five-digit classes are of
// MSC's kind, not its own (the file is not here; see mscClasses).
func mscJSKOS(t testing.TB) []byte {
	t.Helper()
	f, err := os.Open(mscClasses)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	var second []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out.Write(sc.Bytes())
		out.WriteByte('\n')
		var c map[string]any
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if _, ok := c["broader"]; ok {
			second = append(second, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	const leaves = 6016
	k := 0
	for i, s := range second {
		uri := s["uri"].(string)
		code := strings.TrimSuffix(s["notation"].([]any)[0].(string), "xx")
		n := leaves / len(second)
		if i < leaves%len(second) {
			n++
		}
		for j := 1; j <= n; j++ {
			num, label := fmt.Sprintf("%02d", j), mscLeafLabels[k%len(mscLeafLabels)]
			if j == n {
				num, label = "99", "None of the above, but in this section"
			}
			k++
			c := map[string]any{
				"uri":       strings.TrimSuffix(uri, "xx") + num,
				"type":      []string{"http://www.w3.org/2004/02/skos/core#Concept"},
				"notation":  []string{code + num},
				"prefLabel": map[string]string{"en": label},
				"broader":   []map[string]string{{"uri": uri}},
			}
			b, _ := json.Marshal(c)
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// TestMSC2020Shape is the bar "MSC2020 in JSKOS imports, `saber ontology
// stats` gives 6,608 concepts, 63 top classes, depth 3": the file as MSC
// publishes it (content-detected, the scheme record skipped) reads through
// Load, gives the DAG stats `saber ontology stats` prints, builds a tree,
// and restricts to chosen top classes.
func TestMSC2020Shape(t *testing.T) {
	body := mscJSKOS(t)
	d, format, err := Load(Source{Name: "msc2020.jsonl", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if format != "jskos" {
		t.Errorf("detected %s, want jskos", format)
	}
	s := d.Stats()
	if s.Nodes != 6608 || s.Roots != 63 || s.MaxDepth != 3 || s.Edges != 6608-63 || s.MultiParent != 0 {
		t.Errorf("stats %d nodes, %d roots, depth %d, %d edges, %d with several parents; want 6608, 63, 3, 6545, 0",
			s.Nodes, s.Roots, s.MaxDepth, s.Edges, s.MultiParent)
	}
	tree, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	if ts := tree.Stats(); ts.Roots != 63 || ts.MaxDepth != 3 || ts.Nodes != 6609 {
		t.Errorf("tree %+v, want 63 domains, depth 3, 6,609 nodes with the virtual root", ts)
	}
	if i, ok := tree.Lookup("11-XX > 11Axx"); !ok || tree.Label(i) != "Elementary number theory" {
		t.Errorf("11-XX > 11Axx: found %v", ok)
	}
	r, err := d.Restrict([]string{"05-XX", "11-XX", "51-XX"})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Roots != 3 || s.MaxDepth != 3 || s.Nodes != 3+5+20+14+len(leavesUnder(d, "05", "11", "51")) {
		t.Errorf("restricted to 05, 11, 51: %+v", s)
	}
}

// leavesUnder lists the five-digit classes of the given top classes.
func leavesUnder(d *ontology.DAG, tops ...string) []string {
	var out []string
	for _, n := range d.Nodes {
		for _, p := range tops {
			if len(n.ID) == 5 && strings.HasPrefix(n.ID, p) && !strings.HasSuffix(n.ID, "xx") && !strings.Contains(n.ID, "-") {
				out = append(out, n.ID)
			}
		}
	}
	return out
}
