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

// conceptMap is the field map of testdata/concepts.{json,csv}: integer
// codes, a nested language-map label, list (JSON) or "|"-joined (CSV)
// parents and keywords.
var conceptMap = ontology.FieldMap{ID: "code", Label: "meta.name", Parents: "broader", Keywords: "keywords"}

// TestLoadRestrictEveryFormat checks that restricting to chosen roots
// works alike for every format Load reads: the published schemes (JSKOS,
// SKOS) and field-mapped JSON and CSV concept lists. Each is loaded,
// restricted to two roots, and must give those roots, only their
// descendants, and the tree paths below them.
func TestLoadRestrictEveryFormat(t *testing.T) {
	csvMap := conceptMap
	csvMap.Label, csvMap.Separator = "name", "|"
	for _, tc := range []struct {
		path   string
		fields *ontology.FieldMap
		format string // the format Load reports
		roots  []string
		nodes  int
		depth  int
		path3  string // a tree path that must be kept
		gone   string // an id that must be dropped
	}{
		{"testdata/msc2020-sample.jsonl", nil, "jskos", []string{"11-XX", "05-XX"}, 12, 3, "11-XX > 11Axx > 11A41", "51-XX"},
		{"testdata/skos-sample.jsonld", nil, "skos", []string{"ALG.POLY", "ex:geometry"}, 4, 2, "ALG.POLY > ex:roots", "ALG"},
		{"testdata/concepts.json", &conceptMap, "json", []string{"100", "300"}, 5, 3, "100 > 110 > 111", "200"},
		{"testdata/concepts.csv", &csvMap, "csv", []string{"100", "300"}, 5, 3, "300 > 310", "210"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			body, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			d, f, err := Load(Source{Name: tc.path, Body: body, Fields: tc.fields})
			if err != nil {
				t.Fatal(err)
			}
			if f != tc.format {
				t.Errorf("read as %s, want %s", f, tc.format)
			}
			r, err := d.Restrict(tc.roots)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := ontology.BuildTree(r)
			if err != nil {
				t.Fatal(err)
			}
			s := r.Stats()
			if got := strings.Join(r.Roots(), ","); got != strings.Join(tc.roots, ",") {
				t.Errorf("roots %s, want %s", got, strings.Join(tc.roots, ","))
			}
			if s.Nodes != tc.nodes || s.MaxDepth != tc.depth {
				t.Errorf("restricted: %d nodes, depth %d; want %d, %d", s.Nodes, s.MaxDepth, tc.nodes, tc.depth)
			}
			if _, ok := tree.Lookup(tc.path3); !ok {
				t.Errorf("tree path %q missing", tc.path3)
			}
			for _, n := range r.Nodes {
				if n.ID == tc.gone {
					t.Errorf("node %s kept, but it is not below %v", tc.gone, tc.roots)
				}
			}
		})
	}
}

// TestLoadFieldMapped checks a field-mapped list's labels, keywords and
// several parents, and that a field map refuses the formats with fixed
// fields and names the field or parent at fault with the file.
func TestLoadFieldMapped(t *testing.T) {
	d, _ := loadFileFields(t, "testdata/concepts.json", &conceptMap)
	s := d.Stats()
	if s.Nodes != 7 || s.Roots != 3 || s.MultiParent != 1 || s.MaxDepth != 3 {
		t.Errorf("stats %+v, want 7 nodes, 3 roots, 1 with several parents, depth 3", s)
	}
	if n := d.Nodes[1]; n.ID != "110" || n.Label != "Polynomials" || strings.Join(n.Keywords, ",") != "polynomial,root" {
		t.Errorf("node 2 = %+v", n)
	}
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{Source{Name: "m.jsonl", Format: "jskos", Body: []byte(`{"id": 1}`), Fields: &conceptMap}, "not the jskos format"},
		{Source{Name: "m.json", Body: []byte(`[{"code": 1, "meta": {"name": "A"}, "keywords": []}]`), Fields: &conceptMap},
			`m.json (read as a json concept list through the field map): ontology: concept list: the parents field "broader" is in no record`},
		{Source{Name: "m.csv", Body: []byte("code,name,broader,keywords\n1,A,7,\n"), Fields: &ontology.FieldMap{ID: "code", Label: "name", Parents: "broader"}},
			`m.csv (read as a csv concept list through the field map): ontology: concept list line 2: parent "7" of concept "1" is not the id of any record`},
	} {
		_, _, err := Load(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one containing %q", tc.src.Name, err, tc.want)
		}
	}
}

func loadFileFields(t *testing.T, path string, m *ontology.FieldMap) (*ontology.DAG, string) {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, f, err := Load(Source{Name: path, Body: body, Fields: m})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d, f
}
