package ontology

import (
	"fmt"
	"math/bits"
)

// maxTreeNodes bounds the size of a tree BuildTree builds: the number of
// root paths of a DAG can grow exponentially with its depth, and a tree of n
// nodes takes about 16·n·log2(2n) bytes of LCA tables (1.5 GB at the bound).
const maxTreeNodes = 1 << 22

// Tree is a DAG unfolded into a tree: every DAG node appears once per path
// from a DAG root to it, under a virtual root at index 0 whose children are
// the DAG roots (the domains). Tree nodes are numbered 0 .. Len()−1 in
// depth-first preorder, children in edge input order, so a node's subtree is
// the index range [i, i+size). A node is named by its path, the DAG ids from
// its domain down joined by PathSep. A Tree is immutable and safe for
// concurrent use. Methods taking a node index panic when it is out of range.
type Tree struct {
	nodes []Node // DAG nodes, by DAG index

	dag      []int32  // tree node → DAG index; −1 for the root
	parent   []int32  // −1 for the root
	depth    []int32  // root 0, domains 1
	end      []int32  // subtree of i = [i, end[i])
	domain   []int32  // depth-1 ancestor; −1 for the root
	childOff []int32  // children of i = childIdx[childOff[i]:childOff[i+1]]
	childIdx []int    // ints so that Children needs no copy
	paths    []string // Path(i)
	lookup   map[string]int32

	// LCA by range-minimum over the Euler tour (Bender & Farach-Colton
	// 2000): first[i] is i's first position in the tour of length 2n−1,
	// and sparse[k][j] is the minimum over tour[j : j+2^k] of the key
	// depth<<32 | node, whose node part is the shallowest node there.
	first  []int32
	sparse [][]uint64
}

// BuildTree validates d and unfolds it into a Tree (see Tree). It is
// deterministic: the same DAG (same order) gives the same numbering. It
// returns d's *ValidationError if d is invalid, and an error if the tree
// would exceed 2^22 nodes.
func BuildTree(d *DAG) (*Tree, error) {
	g, probs := d.check()
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	n := len(d.Nodes)
	adj, indeg := g.adj, g.indeg

	// Size: paths(v) = 1 for a root, Σ over parents p of paths(p) otherwise;
	// the tree has 1 + Σ paths(v) nodes. Kahn's order, saturating.
	paths := make([]int64, n)
	left := append([]int(nil), indeg...)
	queue := make([]int32, 0, n)
	for i := range n {
		if indeg[i] == 0 {
			paths[i] = 1
			queue = append(queue, int32(i))
		}
	}
	size := int64(1)
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		size += paths[v]
		if size > maxTreeNodes {
			return nil, fmt.Errorf("ontology: BuildTree: the tree would have more than %d nodes", maxTreeNodes)
		}
		for _, c := range adj[v] {
			paths[c] = min(paths[c]+paths[v], maxTreeNodes+1)
			if left[c]--; left[c] == 0 {
				queue = append(queue, c)
			}
		}
	}

	t := &Tree{
		nodes:  make([]Node, n),
		dag:    make([]int32, 0, size),
		parent: make([]int32, 0, size),
		depth:  make([]int32, 0, size),
		domain: make([]int32, 0, size),
		paths:  make([]string, 0, size),
		lookup: make(map[string]int32, size),
	}
	for i, nd := range d.Nodes {
		t.nodes[i] = cloneNode(nd)
	}
	add := func(dagIdx, parent, depth, domain int32, path string) int32 {
		i := int32(len(t.dag))
		t.dag = append(t.dag, dagIdx)
		t.parent = append(t.parent, parent)
		t.depth = append(t.depth, depth)
		t.domain = append(t.domain, domain)
		t.paths = append(t.paths, path)
		t.lookup[path] = i
		return i
	}
	add(-1, -1, 0, -1, "")

	// Preorder: push children in reverse so they pop in edge order.
	type item struct{ dagIdx, parent int32 }
	var stack []item
	for i := n - 1; i >= 0; i-- {
		if indeg[i] == 0 {
			stack = append(stack, item{int32(i), 0})
		}
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		id := d.Nodes[it.dagIdx].ID
		var i int32
		if it.parent == 0 {
			i = int32(len(t.dag))
			add(it.dagIdx, 0, 1, i, id)
		} else {
			i = add(it.dagIdx, it.parent, t.depth[it.parent]+1, t.domain[it.parent], t.paths[it.parent]+PathSep+id)
		}
		for k := len(adj[it.dagIdx]) - 1; k >= 0; k-- {
			stack = append(stack, item{adj[it.dagIdx][k], i})
		}
	}
	t.index()
	return t, nil
}

// index fills the child lists, subtree ends and the LCA tables from parent
// and depth.
func (t *Tree) index() {
	n := len(t.parent)
	// Children by counting sort; in preorder, siblings appear in edge order.
	t.childOff = make([]int32, n+1)
	for i := 1; i < n; i++ {
		t.childOff[t.parent[i]+1]++
	}
	for i := range n {
		t.childOff[i+1] += t.childOff[i]
	}
	t.childIdx = make([]int, n-1)
	fill := append([]int32(nil), t.childOff[:n]...)
	for i := 1; i < n; i++ {
		p := t.parent[i]
		t.childIdx[fill[p]] = i
		fill[p]++
	}
	// Subtree ends: a node's subtree ends where its last child's does.
	t.end = make([]int32, n)
	for i := n - 1; i >= 0; i-- {
		t.end[i] = int32(i + 1)
		if lo, hi := t.childOff[i], t.childOff[i+1]; hi > lo {
			t.end[i] = t.end[t.childIdx[hi-1]]
		}
	}

	// Euler tour: each node when entered and again after each child.
	m := 2*n - 1
	tour := make([]uint64, 0, m)
	t.first = make([]int32, n)
	key := func(v int) uint64 { return uint64(t.depth[v])<<32 | uint64(v) }
	type frame struct{ v, next int }
	stack := []frame{{v: 0}}
	t.first[0] = 0
	tour = append(tour, key(0))
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if lo := int(t.childOff[top.v]); lo+top.next < int(t.childOff[top.v+1]) {
			c := t.childIdx[lo+top.next]
			top.next++
			t.first[c] = int32(len(tour))
			tour = append(tour, key(c))
			stack = append(stack, frame{v: c})
			continue
		}
		stack = stack[:len(stack)-1]
		if len(stack) > 0 {
			tour = append(tour, key(stack[len(stack)-1].v))
		}
	}
	// Sparse table: sparse[k][j] = min(tour[j : j+2^k]).
	levels := bits.Len(uint(m))
	t.sparse = make([][]uint64, levels)
	t.sparse[0] = tour
	for k := 1; k < levels; k++ {
		prev, half := t.sparse[k-1], 1<<(k-1)
		row := make([]uint64, m-(1<<k)+1)
		for j := range row {
			row[j] = min(prev[j], prev[j+half])
		}
		t.sparse[k] = row
	}
}

// Len returns the number of tree nodes, the virtual root included.
func (t *Tree) Len() int { return len(t.parent) }

// Root returns the index of the virtual root, 0.
func (t *Tree) Root() int { return 0 }

// Parent returns the parent of node i, −1 for the root.
func (t *Tree) Parent(i int) int { return int(t.parent[i]) }

// Children returns the children of node i in DAG edge order. The slice is
// shared: the caller must not modify it.
func (t *Tree) Children(i int) []int {
	lo, hi := t.childOff[i], t.childOff[i+1]
	return t.childIdx[lo:hi:hi]
}

// ID returns the DAG id of node i; "" for the root.
func (t *Tree) ID(i int) string {
	if i == 0 {
		return ""
	}
	return t.nodes[t.dag[i]].ID
}

// Label returns the label of node i; "" for the root.
func (t *Tree) Label(i int) string {
	if i == 0 {
		return ""
	}
	return t.nodes[t.dag[i]].Label
}

// Keywords returns the keywords of node i; nil for the root. The slice is
// shared: the caller must not modify it.
func (t *Tree) Keywords(i int) []string {
	if i == 0 {
		return nil
	}
	return t.nodes[t.dag[i]].Keywords
}

// Depth returns the depth of node i: 0 for the root, 1 for a domain (a DAG
// root), one more per edge below.
func (t *Tree) Depth(i int) int { return int(t.depth[i]) }

// Path returns the DAG ids from node i's domain down to i joined by PathSep,
// e.g. "topics/Algebra > topics/Polynomials > Polynomial"; "" for the root.
// Paths are unique, and Lookup inverts Path.
func (t *Tree) Path(i int) string { return t.paths[i] }

// Lookup returns the node whose Path is path ("" is the root) and whether
// there is one.
func (t *Tree) Lookup(path string) (int, bool) {
	i, ok := t.lookup[path]
	return int(i), ok
}

// Domain returns the depth-1 ancestor of node i (i itself at depth 1); −1 for
// the root.
func (t *Tree) Domain(i int) int { return int(t.domain[i]) }

// IsAncestor reports whether a is b or an ancestor of b, in O(1): in preorder
// b lies in a's subtree range.
func (t *Tree) IsAncestor(a, b int) bool {
	_ = t.end[b] // bounds check
	return a <= b && b < int(t.end[a])
}

// LCA returns the lowest common ancestor of a and b (a itself when a is an
// ancestor of b) in O(1): the shallowest node of the Euler tour between their
// first occurrences, found with two lookups in the sparse table.
func (t *Tree) LCA(a, b int) int {
	l, r := int(t.first[a]), int(t.first[b])
	if l > r {
		l, r = r, l
	}
	k := bits.Len(uint(r-l+1)) - 1
	m := min(t.sparse[k][l], t.sparse[k][r-(1<<k)+1])
	return int(uint32(m))
}

// Stats returns the shape of t (see Stats for how the virtual root counts).
func (t *Tree) Stats() Stats {
	n := t.Len()
	s := Stats{Nodes: n, Edges: n - 1, Roots: len(t.Children(0))}
	internal, children := 0, 0
	for i := 1; i < n; i++ {
		s.MaxDepth = max(s.MaxDepth, int(t.depth[i]))
		k := int(t.childOff[i+1] - t.childOff[i])
		if k == 0 {
			s.Leaves++
			continue
		}
		internal++
		children += k
		s.MaxBranching = max(s.MaxBranching, k)
	}
	if internal > 0 {
		s.MeanBranching = float64(children) / float64(internal)
	}
	s.DepthHistogram = make([]int, s.MaxDepth+1)
	for _, dp := range t.depth {
		s.DepthHistogram[dp]++
	}
	return s
}
