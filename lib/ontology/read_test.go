package ontology

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *DAG
		wantErr string
	}{
		{
			name: "nodes and edges",
			in: `{"nodes": [{"id": "alg", "label": "Algebra", "keywords": ["equation", "polynomial"]},
			               {"id": "lin", "label": "Linear equations"}],
			      "edges": [{"parent": "alg", "child": "lin"}]}`,
			want: &DAG{
				Nodes: []Node{{ID: "alg", Label: "Algebra", Keywords: []string{"equation", "polynomial"}}, {ID: "lin", Label: "Linear equations"}},
				Edges: []Edge{{Parent: "alg", Child: "lin"}},
			},
		},
		{name: "no edges", in: `{"nodes": [{"id": "a", "label": "A"}]}`, want: &DAG{Nodes: []Node{{ID: "a", Label: "A"}}}},
		{name: "unknown top-level field", in: `{"nodes": [{"id": "a"}], "edgez": []}`, wantErr: `unknown field "edgez"`},
		{name: "unknown node field", in: `{"nodes": [{"id": "a", "name": "A"}]}`, wantErr: `unknown field "name"`},
		{name: "trailing data", in: `{"nodes": [{"id": "a"}]} {}`, wantErr: "data after the top-level object"},
		{name: "no nodes", in: `{"edges": []}`, wantErr: "no nodes"},
		{name: "syntax", in: `{"nodes": [`, wantErr: "ontology: JSON:"},
		{name: "empty", in: ``, wantErr: "ontology: JSON: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadJSON(strings.NewReader(tt.in))
			checkRead(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func checkRead(t *testing.T, got *DAG, err error, want *DAG, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error = %v, want one containing %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *DAG
		wantErr string
	}{
		{
			name: "roots, multi-parent, default label",
			in: "parent,child,label\n" +
				",alg,Algebra\n" +
				",nt, Number Theory \n" +
				"alg,poly,Polynomials\n" +
				"nt,poly,\n" +
				"poly,\"x, y\",\n",
			want: &DAG{
				Nodes: []Node{{ID: "alg", Label: "Algebra"}, {ID: "nt", Label: "Number Theory"}, {ID: "poly", Label: "Polynomials"}, {ID: "x, y", Label: "x, y"}},
				Edges: []Edge{{"alg", "poly"}, {"nt", "poly"}, {"poly", "x, y"}},
			},
		},
		{
			name: "keywords column and BOM",
			in:   "\uFEFFParent,Child,Label,Keywords\n,g,Geometry,triangle; circle ;\ng,t,Triangles,\n",
			want: &DAG{
				Nodes: []Node{{ID: "g", Label: "Geometry", Keywords: []string{"triangle", "circle"}}, {ID: "t", Label: "Triangles"}},
				Edges: []Edge{{"g", "t"}},
			},
		},
		{
			name: "undeclared parent is left dangling",
			in:   "parent,child,label\nzz,a,A\n",
			want: &DAG{Nodes: []Node{{ID: "a", Label: "A"}}, Edges: []Edge{{"zz", "a"}}},
		},
		{name: "bad header", in: "from,to,label\n,a,A\n", wantErr: `header is "from,to,label"`},
		{name: "short header", in: "parent,child\n,a\n", wantErr: "want \"parent,child,label\""},
		{name: "empty", in: "", wantErr: "empty input"},
		{name: "header only", in: "parent,child,label\n", wantErr: "no rows"},
		{name: "ragged row", in: "parent,child,label\n,a\n", wantErr: "wrong number of fields"},
		{name: "empty child", in: "parent,child,label\n,a,A\na,,B\n", wantErr: "line 3: empty child"},
		{name: "conflicting labels", in: "parent,child,label\n,a,A\n,b,B\na,c,C\nb,c,D\n", wantErr: `line 5: node "c" labelled "D" here but "C" before`},
		{name: "conflicting keywords", in: "parent,child,label,keywords\n,a,A,x\n,b,B,\na,c,C,p\nb,c,C,q\n", wantErr: `line 5: node "c" has keywords`},
		{name: "root with a parent", in: "parent,child,label\n,a,A\n,b,B\na,b,\n", wantErr: `node "b" is declared a root (line 3) but has a parent (line 4)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadCSV(strings.NewReader(tt.in))
			checkRead(t, got, err, tt.want, tt.wantErr)
		})
	}
}

const mwNodes = `{"id": "ROOT", "url": "u", "name": "Root", "kind": "root", "depth": 0, "parents": [], "n_children": 2}
{"id": "topics/Algebra", "url": "u", "name": "Algebra", "kind": "topic", "depth": 1, "parents": ["ROOT"], "n_children": 2}
{"id": "topics/NumberTheory", "name": "Number Theory", "kind": "topic", "depth": 1, "parents": ["ROOT", "topics/Algebra"]}

{"id": "Prime", "name": "Prime Number", "kind": "entry", "depth": 2, "parents": ["topics/NumberTheory", "topics/Algebra"]}
`

const mwEdges = "parent_id\tchild_id\tchild_name\tchild_kind\n" +
	"ROOT\ttopics/Algebra\tAlgebra\ttopic\n" +
	"ROOT\ttopics/NumberTheory\tNumber Theory\ttopic\n" +
	"topics/Algebra\ttopics/NumberTheory\tNumber Theory\ttopic\r\n" +
	"topics/Algebra\tPrime\tPrime Number\tentry\n" +
	"topics/NumberTheory\tPrime\tPrime Number\tentry"

func TestReadMathWorld(t *testing.T) {
	tests := []struct {
		name         string
		nodes, edges string
		want         *DAG
		wantErr      string
	}{
		{
			name:  "root dropped, file orders kept",
			nodes: mwNodes, edges: mwEdges,
			want: &DAG{
				Nodes: []Node{{ID: "topics/Algebra", Label: "Algebra"}, {ID: "topics/NumberTheory", Label: "Number Theory"}, {ID: "Prime", Label: "Prime Number"}},
				Edges: []Edge{{"topics/Algebra", "topics/NumberTheory"}, {"topics/Algebra", "Prime"}, {"topics/NumberTheory", "Prime"}},
			},
		},
		{name: "bad node line", nodes: mwNodes + "{oops\n", edges: mwEdges, wantErr: "MathWorld nodes line 6:"},
		{name: "no nodes", nodes: "\n", edges: mwEdges, wantErr: "no nodes"},
		{name: "bad header", nodes: mwNodes, edges: "parent\tchild\nROOT\ttopics/Algebra\n", wantErr: "does not start with parent_id, child_id"},
		{name: "short row", nodes: mwNodes, edges: mwEdges + "\nPrime\n", wantErr: "edges line 7: want at least 2 tab-separated fields"},
		{name: "no edges", nodes: mwNodes, edges: "parent_id\tchild_id\n", wantErr: "no edges"},
		{
			name: "edge missing from parents", nodes: mwNodes, edges: mwEdges + "\nROOT\tPrime\tx\tentry\ntopics/NumberTheory\ttopics/Algebra\tx\ttopic\n",
			wantErr: `disagree (1 mismatches); first: edge "topics/NumberTheory" → "topics/Algebra" (line 8) is not in the child's parents`,
		},
		{
			name: "parent missing from edges", nodes: mwNodes, edges: strings.Replace(mwEdges, "topics/Algebra\tPrime", "topics/Algebra\tPrimeX", 1),
			wantErr: `node "Prime" lists parent "topics/Algebra", but the edges file has no such edge`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadMathWorld(strings.NewReader(tt.nodes), strings.NewReader(tt.edges))
			checkRead(t, got, err, tt.want, tt.wantErr)
		})
	}
}
