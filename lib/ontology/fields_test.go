package ontology

import (
	"strings"
	"testing"
)

// TestReadConcepts reads the same small concept list in each shape a field
// map takes — a JSON array with nested fields, integer ids and list
// parents, JSON lines with separator-joined parents, CSV with header names
// and a language-map label — and checks they give the same DAG.
func TestReadConcepts(t *testing.T) {
	const (
		array = `[
  {"code": 1, "meta": {"name": "Algebra"}, "up": [], "kw": ["equation", "polynomial"]},
  {"code": 2, "meta": {"name": "Linear algebra"}, "up": [1], "kw": []},
  {"code": 3, "meta": {"name": "Geometry"}},
  {"code": 4, "meta": {"name": "Linear programming"}, "up": [1, 3], "kw": ["simplex"]}
]`
		lines = `{"id": "1", "name": {"de": "Algebra (de)", "en": "Algebra"}, "parents": "", "kw": "equation; polynomial"}
{"id": "2", "name": {"en": "Linear algebra"}, "parents": "1"}

{"id": "3", "name": "Geometry", "parents": null}
{"id": "4", "name": "Linear programming", "parents": "1 | 3", "kw": "simplex"}
`
		csvList = "\uFEFFCode,Name,Parent,Keywords\n1,Algebra,,equation;polynomial\n2,Linear algebra,1,\n3,Geometry,,\n4,Linear programming,1,simplex\n4,Linear programming,3,\n"
	)
	want := &DAG{
		Nodes: []Node{
			{ID: "1", Label: "Algebra", Keywords: []string{"equation", "polynomial"}},
			{ID: "2", Label: "Linear algebra"},
			{ID: "3", Label: "Geometry"},
			{ID: "4", Label: "Linear programming", Keywords: []string{"simplex"}},
		},
		Edges: []Edge{{"1", "2"}, {"1", "4"}, {"3", "4"}},
	}
	for _, tc := range []struct {
		name string
		read func() (*DAG, error)
	}{
		{"json array, nested", func() (*DAG, error) {
			return ReadConceptsJSON(strings.NewReader(array), FieldMap{ID: "code", Label: "meta.name", Parents: "up", Keywords: "kw"})
		}},
		{"json lines, joined", func() (*DAG, error) {
			return ReadConceptsJSON(strings.NewReader(lines), FieldMap{Label: "name", Parents: "parents", Keywords: "kw", Separator: "|"})
		}},
		{"csv, a row per parent", func() (*DAG, error) {
			return ReadConceptsCSV(strings.NewReader(csvList), FieldMap{ID: "code", Label: "name", Parents: "parent", Keywords: "keywords"})
		}},
	} {
		d, err := tc.read()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// JSON lines split keywords by "|" there, so "equation; polynomial"
		// stays one keyword: compare nodes without keywords for it.
		if tc.name == "json lines, joined" {
			if got := d.Nodes[0].Keywords; len(got) != 1 || got[0] != "equation; polynomial" {
				t.Errorf("%s: keywords of 1 = %q, want the one unsplit string", tc.name, got)
			}
			for i := range d.Nodes {
				d.Nodes[i].Keywords = want.Nodes[i].Keywords
			}
		}
		if got, wantS := dagString(d), dagString(want); got != wantS {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, wantS)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func dagString(d *DAG) string {
	var b strings.Builder
	for _, n := range d.Nodes {
		b.WriteString(n.ID + "=" + n.Label + "[" + strings.Join(n.Keywords, ",") + "] ")
	}
	for _, e := range d.Edges {
		b.WriteString(e.Parent + ">" + e.Child + " ")
	}
	return b.String()
}

// TestReadConceptsErrors checks that each mistake in a concept list or its
// field map is an error naming the field, record or id at fault.
func TestReadConceptsErrors(t *testing.T) {
	m := FieldMap{ID: "id", Label: "name", Parents: "up"}
	for _, tc := range []struct {
		name, in string
		csv      bool
		m        FieldMap
		want     string
	}{
		{"mapped field in no record", `{"id": "a", "name": "A"}` + "\n" + `{"id": "b", "name": "B"}`, false, m,
			`the parents field "up" is in no record (of 2)`},
		{"label field in no record", `[{"id": "a", "title": "A"}]`, false, FieldMap{Parents: "up", Label: "label"},
			`the label field "label" is in no record`},
		{"csv header lacks the field", "id,name\na,A\n", true, m, `the parents field "up" is in no record`},
		{"nested path in no record", `[{"id": "a", "meta": {"title": "A"}}]`, false, FieldMap{Label: "meta.name"},
			`the label field "meta.name" is in no record`},
		{"unknown parent", `{"id": "a", "name": "A"}` + "\n" + `{"id": "b", "name": "B", "up": ["a", "zz"]}`, false, m,
			`line 2: parent "zz" of concept "b" is not the id of any record`},
		{"unknown parent csv", "id,name,up\na,A,\nb,B,a;q\n", true, m, `line 3: parent "q" of concept "b"`},
		{"record without id", `[{"id": "a", "name": "A", "up": []}, {"name": "B"}]`, false, m, `element 2: no id (field "id")`},
		{"label conflict", `{"id": "a", "name": "A", "up": []}` + "\n" + `{"id": "a", "name": "Z", "up": []}`, false, m,
			`line 2: concept "a" labelled "Z" here but "A" before`},
		{"list id", `[{"id": ["a", "b"], "name": "A", "up": []}]`, false, m, `the id field "id" holds a list of 2 values`},
		{"object value", `[{"id": "a", "name": "A", "up": {"x": 1}}]`, false, m, `the parents field "up": an object`},
		{"bad json line", `{"id": "a", "name": "A", "up": []}` + "\n" + `{"id": `, false, m, `line 2`},
		{"not an object", `[1]`, false, m, `element 1: json: cannot unmarshal number`},
		{"empty", "  \n", false, m, `empty input`},
		{"no records", `[]`, false, m, `no records`},
	} {
		var err error
		if tc.csv {
			_, err = ReadConceptsCSV(strings.NewReader(tc.in), tc.m)
		} else {
			_, err = ReadConceptsJSON(strings.NewReader(tc.in), tc.m)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestReadConceptsCycle checks that a cycle through parents reads (the
// reader checks ids, not shape) and that Validate then names it.
func TestReadConceptsCycle(t *testing.T) {
	in := "id,label,parents\nr,Root,\na,A,r;c\nb,B,a\nc,C,b\n"
	d, err := ReadConceptsCSV(strings.NewReader(in), FieldMap{Parents: "parents"})
	if err != nil {
		t.Fatal(err)
	}
	err = d.Validate()
	if err == nil || !strings.Contains(err.Error(), "cycle: a → b → c → a") {
		t.Fatalf("Validate: %v, want the cycle a → b → c → a named", err)
	}
}

// TestLookupPath checks the field paths of a JSON concept list.
func TestLookupPath(t *testing.T) {
	obj := map[string]any{
		"a.b":  "dotted key",
		"meta": map[string]any{"name": "n", "tags": []any{"x", map[string]any{"k": "deep"}}},
		"list": []any{[]any{"p", "q"}},
	}
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{"a.b", "dotted key", true},
		{"meta.name", "n", true},
		{"meta.tags[0]", "x", true},
		{"meta.tags[1].k", "deep", true},
		{"list[0][1]", "q", true},
		{"meta.tags[2]", nil, false},
		{"meta.name.x", nil, false},
		{"meta.tags[x]", nil, false},
		{"missing", nil, false},
	} {
		got, ok := lookupPath(obj, tc.path)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}
