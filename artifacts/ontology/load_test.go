package ontology

import (
	"os"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
)

func loadFile(t *testing.T, path, format string) (*ontology.DAG, string) {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, f, err := Load(Source{Name: path, Body: body, Format: format})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d, f
}

// TestLoadConceptSchemes checks the shapes `saber ontology stats` reports
// for a JSKOS file as MSC2020 is published (the scheme record skipped,
// notations as ids, English labels, narrower and broader giving one edge
// each) and for a SKOS JSON-LD scheme, both detected from their content,
// and that restricting to chosen roots works on notations.
func TestLoadConceptSchemes(t *testing.T) {
	for _, tc := range []struct {
		path, wantFormat string
		nodes, edges     int
		roots            []string
		depth            int
		labels           map[string]string
	}{
		{"testdata/msc2020-sample.jsonl", "jskos", 15, 12, []string{"05-XX", "11-XX", "51-XX"}, 3,
			map[string]string{"11A41": "Primes", "05-XX": "Combinatorics", "11-XX": "Number theory"}},
		{"testdata/skos-sample.jsonld", "skos", 5, 3, []string{"ALG", "ex:geometry"}, 3,
			map[string]string{"ALG": "Algebra", "ALG.POLY": "Polynomials", "ex:roots": "Roots of polynomials", "ex:geometry": "Geometry", "ex:triangles": "Triangles"}},
	} {
		t.Run(tc.wantFormat, func(t *testing.T) {
			d, f := loadFile(t, tc.path, "")
			if f != tc.wantFormat {
				t.Fatalf("detected %s, want %s", f, tc.wantFormat)
			}
			s := d.Stats()
			if s.Nodes != tc.nodes || s.Edges != tc.edges || s.Roots != len(tc.roots) || s.MaxDepth != tc.depth {
				t.Errorf("nodes %d edges %d roots %d depth %d, want %d %d %d %d",
					s.Nodes, s.Edges, s.Roots, s.MaxDepth, tc.nodes, tc.edges, len(tc.roots), tc.depth)
			}
			if got := strings.Join(d.Roots(), ","); got != strings.Join(tc.roots, ",") {
				t.Errorf("roots %s, want %s", got, strings.Join(tc.roots, ","))
			}
			label := map[string]string{}
			for _, n := range d.Nodes {
				label[n.ID] = n.Label
			}
			for id, want := range tc.labels {
				if label[id] != want {
					t.Errorf("node %s labelled %q, want %q", id, label[id], want)
				}
			}
		})
	}

	d, _ := loadFile(t, "testdata/msc2020-sample.jsonl", "jskos")
	r, err := d.Restrict([]string{"11-XX"})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ontology.BuildTree(r)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Stats(); s.Nodes != 6 || s.Roots != 1 || s.MaxDepth != 3 {
		t.Errorf("restricted to 11-XX: %+v, want 6 nodes, 1 root, depth 3", s)
	}
	if i, ok := tree.Lookup("11-XX > 11Axx > 11A41"); !ok || tree.Label(i) != "Primes" {
		t.Errorf("tree path 11-XX > 11Axx > 11A41: found %v", ok)
	}
}

// TestDetectFormat checks that content decides between formats that share
// an extension, and that an unknown extension or format names the choices.
func TestDetectFormat(t *testing.T) {
	for _, tc := range []struct {
		name, body, format, want, wantErr string
	}{
		{"o.json", `{"nodes": [], "edges": []}`, "", "json", ""},
		{"o.json", `{"@context": {}, "@graph": []}`, "auto", "skos", ""},
		{"o.jsonld", `[{"@id": "a", "@type": "skos:Concept"}]`, "", "skos", ""},
		{"o.jsonl", "\n" + `{"uri": "u", "notation": ["11A41"]}`, "", "jskos", ""},
		{"o.ndjson", `{"uri": "u", "prefLabel": {"en": "x"}}`, "", "jskos", ""},
		{"nodes.jsonl", `{"id": "topics/Algebra", "name": "Algebra", "kind": "topic"}`, "", "mathworld", ""},
		{"o.CSV", "parent,child,label\n", "", "csv", ""},
		{"o.jsonl", `{"id": "x"}`, "jskos", "jskos", ""},
		{"o.txt", "", "", "", "cannot tell the format"},
		{"o.json", "", "yaml", "", `unknown format "yaml"`},
	} {
		got, err := DetectFormat(tc.name, []byte(tc.body), tc.format)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "jskos") {
				t.Errorf("%s %q: err %v, want one containing %q and the formats", tc.name, tc.format, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %q: %q, %v; want %q", tc.name, tc.format, got, err, tc.want)
		}
	}
}

// TestLoadErrors checks that an incomplete scheme names the missing
// concept and that an edges file is accepted with MathWorld only.
func TestLoadErrors(t *testing.T) {
	edges := func() ([]byte, error) { return []byte("parent_id\tchild_id\n"), nil }
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{Source{Name: "m.jsonl", Body: []byte(`{"uri": "a", "notation": ["A"], "broader": [{"uri": "gone"}]}`)}, "broader concept gone of a is not in the file"},
		{Source{Name: "m.jsonl", Body: []byte(`{"uri": "a", "notation": ["A"]}` + "\n" + `{"uri": "b", "notation": ["A"]}`)}, `has the id "A"`},
		{Source{Name: "o.json", Body: []byte(`{"nodes": [{"id": "a", "label": "A"}]}`), Edges: edges}, "mathworld format only"},
		{Source{Name: "n.jsonl", Body: []byte(`{"id": "a", "name": "A"}`)}, "needs its TSV edges file"},
	} {
		_, _, err := Load(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one containing %q", tc.src.Name, err, tc.want)
		}
	}
}
