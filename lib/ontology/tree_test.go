package ontology

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// p joins ids with PathSep.
func p(ids ...string) string { return strings.Join(ids, PathSep) }

func TestBuildTree(t *testing.T) {
	tests := []struct {
		name  string
		d     *DAG
		paths []string // Path(i) for i = 0 .. Len()−1: preorder
	}{
		{name: "empty", d: &DAG{}, paths: []string{""}},
		{name: "roots in input order", d: dag("b a"), paths: []string{"", "b", "a"}},
		{
			name:  "children in edge order",
			d:     dag("r a b c", "r>c", "r>a", "r>b"),
			paths: []string{"", "r", p("r", "c"), p("r", "a"), p("r", "b")},
		},
		{
			name: "diamond duplicates the join and below",
			d:    dag("a b c d e", "a>b", "a>c", "b>d", "c>d", "d>e"),
			paths: []string{"", "a", p("a", "b"), p("a", "b", "d"), p("a", "b", "d", "e"),
				p("a", "c"), p("a", "c", "d"), p("a", "c", "d", "e")},
		},
		{
			name: "shared node under two domains",
			d:    dag("x y m n", "x>m", "y>m", "m>n"),
			paths: []string{"", "x", p("x", "m"), p("x", "m", "n"),
				"y", p("y", "m"), p("y", "m", "n")},
		},
		{
			name: "double diamond: 4 copies of the bottom",
			d:    dag("a b c d e f g", "a>b", "a>c", "b>d", "c>d", "d>e", "d>f", "e>g", "f>g"),
			paths: []string{"", "a",
				p("a", "b"), p("a", "b", "d"), p("a", "b", "d", "e"), p("a", "b", "d", "e", "g"), p("a", "b", "d", "f"), p("a", "b", "d", "f", "g"),
				p("a", "c"), p("a", "c", "d"), p("a", "c", "d", "e"), p("a", "c", "d", "e", "g"), p("a", "c", "d", "f"), p("a", "c", "d", "f", "g")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := BuildTree(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Len() != len(tt.paths) {
				t.Fatalf("Len() = %d, want %d", tr.Len(), len(tt.paths))
			}
			var got []string
			for i := range tr.Len() {
				got = append(got, tr.Path(i))
			}
			if !reflect.DeepEqual(got, tt.paths) {
				t.Fatalf("paths =\n  %q\nwant\n  %q", got, tt.paths)
			}
			checkTree(t, tr, tt.d)
		})
	}
}

// checkTree checks every accessor of tr against its paths and d.
func checkTree(t *testing.T, tr *Tree, d *DAG) {
	t.Helper()
	label := map[string]string{}
	for _, n := range d.Nodes {
		label[n.ID] = n.Label
	}
	children := map[string][]string{}
	for _, e := range d.Edges {
		children[e.Parent] = append(children[e.Parent], e.Child)
	}
	if tr.Root() != 0 || tr.Parent(0) != -1 || tr.Depth(0) != 0 || tr.Domain(0) != -1 || tr.ID(0) != "" || tr.Label(0) != "" || tr.Path(0) != "" {
		t.Errorf("root: Parent %d Depth %d Domain %d ID %q Label %q Path %q", tr.Parent(0), tr.Depth(0), tr.Domain(0), tr.ID(0), tr.Label(0), tr.Path(0))
	}
	if got, want := tr.Children(0), indices(tr, d.Roots()); !slices.Equal(got, want) {
		t.Errorf("Children(root) = %v, want the DAG roots %v", got, want)
	}
	for i := 1; i < tr.Len(); i++ {
		path := tr.Path(i)
		ids := strings.Split(path, PathSep)
		if j, ok := tr.Lookup(path); !ok || j != i {
			t.Errorf("Lookup(Path(%d) = %q) = %d, %v", i, path, j, ok)
		}
		if tr.ID(i) != ids[len(ids)-1] || tr.Label(i) != label[tr.ID(i)] || tr.Depth(i) != len(ids) {
			t.Errorf("node %d %q: ID %q Label %q Depth %d", i, path, tr.ID(i), tr.Label(i), tr.Depth(i))
		}
		wantParent, _ := tr.Lookup(strings.Join(ids[:len(ids)-1], PathSep))
		wantDomain, _ := tr.Lookup(ids[0])
		if tr.Parent(i) != wantParent || tr.Domain(i) != wantDomain {
			t.Errorf("node %d %q: Parent %d Domain %d, want %d %d", i, path, tr.Parent(i), tr.Domain(i), wantParent, wantDomain)
		}
		if !slices.Contains(tr.Children(tr.Parent(i)), i) {
			t.Errorf("node %d is not among the children of its parent %d", i, tr.Parent(i))
		}
		// Children in DAG edge order.
		want := children[tr.ID(i)]
		var gotIDs []string
		for _, c := range tr.Children(i) {
			gotIDs = append(gotIDs, tr.ID(c))
		}
		if !slices.Equal(gotIDs, want) {
			t.Errorf("node %d %q: children %q, want %q", i, path, gotIDs, want)
		}
	}
	if _, ok := tr.Lookup("no such path"); ok {
		t.Error("Lookup of an unknown path succeeded")
	}
	if j, ok := tr.Lookup(""); !ok || j != 0 {
		t.Errorf(`Lookup("") = %d, %v, want the root`, j, ok)
	}
}

func indices(tr *Tree, paths []string) []int {
	var out []int
	for _, p := range paths {
		i, _ := tr.Lookup(p)
		out = append(out, i)
	}
	return out
}

func TestTreeStatsAndKeywords(t *testing.T) {
	d := dag("a b c d e x", "a>b", "a>c", "b>d", "c>d", "d>e")
	d.Nodes[4].Keywords = []string{"k1", "k2"}
	tr, err := BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Nodes: 9, Edges: 8, Roots: 2, MaxDepth: 4, Leaves: 3,
		MeanBranching: 6.0 / 5, MaxBranching: 2, DepthHistogram: []int{1, 2, 2, 2, 2}}
	if got := tr.Stats(); !reflect.DeepEqual(got, want) {
		t.Errorf("Stats() =\n  %+v\nwant\n  %+v", got, want)
	}
	if ds := d.Stats(); ds.MaxDepth != want.MaxDepth || ds.MultiParent != 1 {
		t.Errorf("DAG Stats() = %+v", ds)
	}
	for i := range tr.Len() {
		wantKW := []string(nil)
		if tr.ID(i) == "e" {
			wantKW = []string{"k1", "k2"}
		}
		if got := tr.Keywords(i); !slices.Equal(got, wantKW) {
			t.Errorf("Keywords(%d %q) = %q, want %q", i, tr.Path(i), got, wantKW)
		}
	}
	// The tree keeps its own copy of the DAG's nodes.
	d.Nodes[4].Keywords[0] = "changed"
	d.Nodes[0].Label = "changed"
	if i, _ := tr.Lookup(p("a", "b", "d", "e")); tr.Keywords(i)[0] != "k1" || tr.Label(1) != "A" {
		t.Error("the tree shares node data with the DAG")
	}
}

func TestBuildTreeDeterministic(t *testing.T) {
	d := randomDAG(rand.New(rand.NewPCG(1, 2)), 40, 0.15)
	a, err := BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := BuildTree(d)
	if !reflect.DeepEqual(a, b) {
		t.Error("two builds of one DAG differ")
	}
}

func TestBuildTreeTooLarge(t *testing.T) {
	// 25 stacked diamonds: the bottom node has 2^25 root paths.
	d := &DAG{Nodes: []Node{{ID: id("v", 0)}}}
	for i := range 25 {
		v, a, b, w := id("v", i), id("a", i), id("b", i), id("v", i+1)
		d.Nodes = append(d.Nodes, Node{ID: a}, Node{ID: b}, Node{ID: w})
		d.Edges = append(d.Edges, Edge{v, a}, Edge{v, b}, Edge{a, w}, Edge{b, w})
	}
	if _, err := BuildTree(d); err == nil || !strings.Contains(err.Error(), "more than 4194304 nodes") {
		t.Errorf("BuildTree() error = %v", err)
	}
}

func id(prefix string, i int) string {
	return prefix + strings.Repeat("i", i) // distinct, no separators
}

// randomDAG returns a DAG on n nodes "n0".."n{n-1}" with each forward edge
// i→j (i < j) present with probability pEdge, the edges shuffled.
func randomDAG(r *rand.Rand, n int, pEdge float64) *DAG {
	d := &DAG{}
	perm := r.Perm(n) // node order in the input is not the topological order
	for _, i := range perm {
		d.Nodes = append(d.Nodes, Node{ID: nodeID(i), Label: "L" + nodeID(i)})
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if r.Float64() < pEdge {
				d.Edges = append(d.Edges, Edge{nodeID(i), nodeID(j)})
			}
		}
	}
	r.Shuffle(len(d.Edges), func(a, b int) { d.Edges[a], d.Edges[b] = d.Edges[b], d.Edges[a] })
	return d
}

func nodeID(i int) string {
	return "n" + strings.Repeat("x", i%7) + string(rune('A'+i/7%26)) + string(rune('a'+i/182))
}

// rootPaths enumerates every root-to-node path of d by plain recursion.
func rootPaths(d *DAG) []string {
	children := map[string][]string{}
	for _, e := range d.Edges {
		children[e.Parent] = append(children[e.Parent], e.Child)
	}
	var out []string
	var walk func(prefix string)
	walk = func(path string) {
		out = append(out, path)
		ids := strings.Split(path, PathSep)
		for _, c := range children[ids[len(ids)-1]] {
			walk(path + PathSep + c)
		}
	}
	for _, r := range d.Roots() {
		walk(r)
	}
	return out
}

func naiveLCA(tr *Tree, a, b int) int {
	for tr.Depth(a) > tr.Depth(b) {
		a = tr.Parent(a)
	}
	for tr.Depth(b) > tr.Depth(a) {
		b = tr.Parent(b)
	}
	for a != b {
		a, b = tr.Parent(a), tr.Parent(b)
	}
	return a
}

func naiveIsAncestor(tr *Tree, a, b int) bool {
	for ; b != -1; b = tr.Parent(b) {
		if b == a {
			return true
		}
	}
	return false
}

func TestBuildTreeRandomDAGs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	maxLen := 0
	defer func() { t.Logf("largest tree: %d nodes", maxLen) }()
	for trial := range 60 {
		n := 1 + r.IntN(25)
		d := randomDAG(r, n, 0.05+0.25*r.Float64())
		tr, err := BuildTree(d)
		if err != nil {
			t.Fatal(err)
		}
		want := rootPaths(d)
		var got []string
		for i := 1; i < tr.Len(); i++ {
			got = append(got, tr.Path(i))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: tree paths\n  %q\nwant every root path\n  %q", trial, got, want)
		}
		checkTree(t, tr, d)
		ts, ds := tr.Stats(), d.Stats()
		if ts.MaxDepth != ds.MaxDepth || ts.Roots != ds.Roots || ts.Nodes != len(want)+1 || ts.MultiParent != 0 {
			t.Errorf("trial %d: tree stats %+v, DAG stats %+v", trial, ts, ds)
		}
		if tr.Len() > maxLen {
			maxLen = tr.Len()
		}
		for a := range tr.Len() {
			for b := range tr.Len() {
				if got, want := tr.LCA(a, b), naiveLCA(tr, a, b); got != want {
					t.Fatalf("trial %d: LCA(%d, %d) = %d, want %d", trial, a, b, got, want)
				}
				if got, want := tr.IsAncestor(a, b), naiveIsAncestor(tr, a, b); got != want {
					t.Fatalf("trial %d: IsAncestor(%d, %d) = %v, want %v", trial, a, b, got, want)
				}
			}
		}
	}
}

// randomTree returns a DAG that is a forest: node i > 0 hangs under a
// random earlier node, or is a root with probability pRoot. chain makes
// every node the child of the one before (a path of length n).
func randomTree(r *rand.Rand, n int, pRoot float64, chain bool) *DAG {
	d := &DAG{}
	for i := range n {
		d.Nodes = append(d.Nodes, Node{ID: nodeID(i)})
		switch {
		case i == 0:
		case chain:
			d.Edges = append(d.Edges, Edge{nodeID(i - 1), nodeID(i)})
		case r.Float64() >= pRoot:
			// Bias towards recent nodes for deep trees.
			j := i - 1 - min(r.IntN(i), r.IntN(i))
			d.Edges = append(d.Edges, Edge{nodeID(j), nodeID(i)})
		}
	}
	return d
}

func TestLCARandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name  string
		n     int
		pRoot float64
		chain bool
	}{
		{"one node", 1, 0, false},
		{"small", 10, 0.1, false},
		{"medium forest", 500, 0.02, false},
		{"large", 3000, 0.001, false},
		{"chain", 4000, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := BuildTree(randomTree(r, tt.n, tt.pRoot, tt.chain))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Len() != tt.n+1 {
				t.Fatalf("Len() = %d, want %d (a forest is not duplicated)", tr.Len(), tt.n+1)
			}
			for range 5000 {
				a, b := r.IntN(tr.Len()), r.IntN(tr.Len())
				if r.IntN(4) == 0 { // make b a descendant of a's ancestor more often
					b = a
					for range r.IntN(4) {
						if ch := tr.Children(b); len(ch) > 0 {
							b = ch[r.IntN(len(ch))]
						}
					}
				}
				if got, want := tr.LCA(a, b), naiveLCA(tr, a, b); got != want {
					t.Fatalf("LCA(%d, %d) = %d, want %d", a, b, got, want)
				}
				if tr.LCA(a, b) != tr.LCA(b, a) {
					t.Fatalf("LCA(%d, %d) is not symmetric", a, b)
				}
				if got, want := tr.IsAncestor(a, b), naiveIsAncestor(tr, a, b); got != want {
					t.Fatalf("IsAncestor(%d, %d) = %v, want %v", a, b, got, want)
				}
			}
		})
	}
}
