package ontology

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// dag builds a DAG from ids (labels = upper-cased ids) and "parent>child"
// edges.
func dag(ids string, edges ...string) *DAG {
	d := &DAG{}
	for _, id := range strings.Fields(ids) {
		d.Nodes = append(d.Nodes, Node{ID: id, Label: strings.ToUpper(id)})
	}
	for _, e := range edges {
		p, c, ok := strings.Cut(e, ">")
		if !ok {
			panic("bad edge " + e)
		}
		d.Edges = append(d.Edges, Edge{Parent: p, Child: c})
	}
	return d
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		d    *DAG
		want []string // problems; nil = valid
	}{
		{name: "empty", d: &DAG{}},
		{name: "single node", d: dag("a")},
		{name: "diamond", d: dag("a b c d", "a>b", "a>c", "b>d", "c>d")},
		{name: "forest", d: dag("a b c d", "a>c", "b>d", "b>c")},
		{
			name: "empty id",
			d:    &DAG{Nodes: []Node{{ID: "a"}, {ID: ""}}},
			want: []string{`node 1: empty id`},
		},
		{
			name: "duplicate id",
			d:    dag("a b a", "a>b"),
			want: []string{`duplicate id "a" (nodes 0 and 2)`},
		},
		{
			name: "path separator in id",
			d:    &DAG{Nodes: []Node{{ID: "x > y"}}},
			want: []string{`node 0: id "x > y" contains the path separator " > "`},
		},
		{
			name: "dangling edges name both ids",
			d:    dag("a b", "a>b", "a>zz", "yy>b", "p>q"),
			want: []string{
				`edge 1: dangling: child "zz" of parent "a" is not a node`,
				`edge 2: dangling: parent "yy" of child "b" is not a node`,
				`edge 3: dangling: neither parent "p" nor child "q" is a node`,
			},
		},
		{
			name: "duplicate edge",
			d:    dag("a b", "a>b", "a>b"),
			want: []string{`edge 1: duplicate of edge 0 ("a" → "b")`},
		},
		{
			name: "self loop",
			d:    dag("a b", "a>b", "b>b"),
			want: []string{`cycle: b → b`},
		},
		{
			name: "cycle lists its ids",
			d:    dag("r a b c", "r>a", "a>b", "b>c", "c>a"),
			want: []string{`cycle: a → b → c → a`},
		},
		{
			name: "two cycles",
			d:    dag("a b c d", "a>b", "b>a", "c>d", "d>c"),
			want: []string{`cycle: a → b → a`, `cycle: c → d → c`},
		},
		{
			name: "two cycles through one node",
			d:    dag("a b c", "a>b", "b>a", "a>c", "c>a"),
			want: []string{`cycle: a → b → a`, `cycle: a → c → a`},
		},
		{
			name: "everything at once",
			d: &DAG{
				Nodes: []Node{{ID: "a"}, {ID: "b"}, {ID: ""}, {ID: "a"}},
				Edges: []Edge{{"a", "b"}, {"b", "a"}, {"b", "x"}},
			},
			want: []string{
				`node 2: empty id`,
				`duplicate id "a" (nodes 0 and 3)`,
				`edge 2: dangling: child "x" of parent "b" is not a node`,
				`cycle: a → b → a`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate() = %v, want a *ValidationError", err)
			}
			if !reflect.DeepEqual(ve.Problems, tt.want) {
				t.Errorf("Problems =\n  %q\nwant\n  %q", ve.Problems, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want[0]) {
				t.Errorf("Error() = %q does not name the first problem", err)
			}
			if _, berr := BuildTree(tt.d); !errors.As(berr, &ve) {
				t.Errorf("BuildTree() error = %v, want the *ValidationError", berr)
			}
		})
	}
}

func TestValidationErrorTruncates(t *testing.T) {
	d := &DAG{}
	for range 25 {
		d.Nodes = append(d.Nodes, Node{})
	}
	err := d.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 25 {
		t.Fatalf("Validate() = %v, want 25 problems", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "ontology: invalid DAG (25 problems): node 0: empty id;") || !strings.HasSuffix(msg, "; ... and 15 more") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestValidateManyCycles(t *testing.T) {
	d := &DAG{}
	for i := range 150 {
		a, b := string(rune('A'+i%26))+string(rune('a'+i/26)), "x"+string(rune('A'+i%26))+string(rune('a'+i/26))
		d.Nodes = append(d.Nodes, Node{ID: a}, Node{ID: b})
		d.Edges = append(d.Edges, Edge{a, b}, Edge{b, a})
	}
	var ve *ValidationError
	if err := d.Validate(); !errors.As(err, &ve) {
		t.Fatalf("Validate() = %v", err)
	}
	if len(ve.Problems) != maxCycles+1 || ve.Problems[maxCycles] != "50 more cycles not listed" {
		t.Errorf("got %d problems, last %q", len(ve.Problems), ve.Problems[len(ve.Problems)-1])
	}
}

func TestRoots(t *testing.T) {
	tests := []struct {
		name string
		d    *DAG
		want []string
	}{
		{"empty", &DAG{}, nil},
		{"input order", dag("c a b d", "a>d", "c>d"), []string{"c", "a", "b"}},
		{"dangling child still has a parent", dag("a b", "x>b"), []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Roots(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Roots() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRestrict(t *testing.T) {
	// r ─┬─ a ─┬─ c ── e
	//    │     └─ d
	//    └─ b ─── d ── f
	//       └──── a
	base := dag("r a b c d e f", "r>a", "r>b", "a>c", "a>d", "b>d", "c>e", "d>f", "b>a")
	tests := []struct {
		name      string
		roots     []string
		wantNodes string
		wantEdges []string
		wantErr   string
	}{
		{name: "whole", roots: []string{"r"}, wantNodes: "r a b c d e f",
			wantEdges: []string{"r>a", "r>b", "a>c", "a>d", "b>d", "c>e", "d>f", "b>a"}},
		{name: "one branch", roots: []string{"a"}, wantNodes: "a c d e f",
			wantEdges: []string{"a>c", "a>d", "c>e", "d>f"}},
		{name: "given order, incoming edges dropped", roots: []string{"b", "a"}, wantNodes: "b a c d e f",
			wantEdges: []string{"a>c", "a>d", "b>d", "c>e", "d>f"}},
		{name: "leaf", roots: []string{"f"}, wantNodes: "f"},
		{name: "nested roots", roots: []string{"d", "r"}, wantNodes: "d r a b c e f",
			wantEdges: []string{"r>a", "r>b", "a>c", "c>e", "d>f", "b>a"}},
		{name: "unknown", roots: []string{"a", "zz"}, wantErr: `unknown root id "zz"`},
		{name: "twice", roots: []string{"a", "a"}, wantErr: `root id "a" given twice`},
		{name: "none", roots: nil, wantErr: "no roots given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := base.Restrict(tt.roots)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Restrict() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := dag(tt.wantNodes, tt.wantEdges...)
			if !reflect.DeepEqual(got.Nodes, want.Nodes) {
				t.Errorf("Nodes = %v, want %v", got.Nodes, want.Nodes)
			}
			if len(got.Edges)+len(want.Edges) > 0 && !reflect.DeepEqual(got.Edges, want.Edges) {
				t.Errorf("Edges = %v, want %v", got.Edges, want.Edges)
			}
			if !reflect.DeepEqual(got.Roots(), tt.roots) {
				t.Errorf("Roots() = %q, want %q", got.Roots(), tt.roots)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
	// The result shares nothing with the input.
	kw := &DAG{Nodes: []Node{{ID: "a", Keywords: []string{"x"}}}}
	r, _ := kw.Restrict([]string{"a"})
	r.Nodes[0].Keywords[0] = "changed"
	if kw.Nodes[0].Keywords[0] != "x" {
		t.Error("Restrict shares keyword slices with its input")
	}
}

func TestDAGStats(t *testing.T) {
	tests := []struct {
		name string
		d    *DAG
		want Stats
	}{
		{name: "empty", d: &DAG{}, want: Stats{DepthHistogram: []int{0}}},
		{
			name: "diamond with tail",
			d:    dag("a b c d e", "a>b", "a>c", "b>d", "c>d", "d>e"),
			want: Stats{Nodes: 5, Edges: 5, Roots: 1, MaxDepth: 4, Leaves: 1, MultiParent: 1,
				MeanBranching: 5.0 / 4, MaxBranching: 2, DepthHistogram: []int{0, 1, 2, 1, 1}},
		},
		{
			name: "depth is the longest root path",
			d:    dag("r x a b", "r>a", "a>b", "r>b", "x>b"),
			want: Stats{Nodes: 4, Edges: 4, Roots: 2, MaxDepth: 3, Leaves: 1, MultiParent: 1,
				MeanBranching: 4.0 / 3, MaxBranching: 2, DepthHistogram: []int{0, 2, 1, 1}},
		},
		{
			name: "cycle nodes and their descendants have depth 0",
			d:    dag("r a b c", "r>a", "a>b", "b>a", "b>c"),
			want: Stats{Nodes: 4, Edges: 4, Roots: 1, MaxDepth: 1, Leaves: 1, MultiParent: 1,
				MeanBranching: 4.0 / 3, MaxBranching: 2, DepthHistogram: []int{3, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Stats(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Stats() =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}
