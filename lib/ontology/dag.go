// Package ontology holds the topic ontology of SABER-Math (paper §3.2, SPEC
// §3 "Ontology"): a DAG of topics (id, label, optional keywords) with
// parent→child edges, its conversion to a tree by duplicating every node once
// per root path, and the information-content similarities computed on that
// tree: Lin's similarity of two topics and the best-match average of two
// topic sets.
//
// The package is pure: readers take io.Readers, nothing logs, and a Tree is
// immutable once built and safe for concurrent use.
package ontology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// PathSep joins DAG ids into a tree path (Tree.Path); Validate rejects ids
// that contain it, so a path splits back into its ids unambiguously.
const PathSep = " > "

// Node is one topic of the DAG.
type Node struct {
	ID       string   `json:"id"`
	Label    string   `json:"label"`
	Keywords []string `json:"keywords,omitempty"`
}

// Edge links a more general topic (Parent) to a more specific one (Child).
type Edge struct {
	Parent string `json:"parent"`
	Child  string `json:"child"`
}

// DAG is an ontology as read: nodes and parent→child edges, both in input
// order. The order matters: the roots and the children of a node keep it in
// the tree (BuildTree). A DAG read from a file is not validated; Validate (or
// BuildTree, which calls it) checks it.
type DAG struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// ValidationError lists every problem Validate found, one sentence each.
type ValidationError struct {
	Problems []string
}

// maxErrorProblems bounds the problems that ValidationError.Error spells
// out; Problems holds them all.
const maxErrorProblems = 10

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ontology: invalid DAG (%d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteString("s")
	}
	b.WriteString("): ")
	for i, p := range e.Problems {
		if i == maxErrorProblems {
			fmt.Fprintf(&b, "; ... and %d more", len(e.Problems)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// maxCycles bounds the cycles Validate lists; a further problem says how many
// more it found.
const maxCycles = 100

// Validate checks that d is a well-formed DAG. It returns nil or a
// *ValidationError naming, in this order:
//
//   - empty ids, duplicate ids (with the indices of both nodes) and ids
//     containing PathSep;
//   - dangling edges, whose parent or child is not a node (with both ids);
//   - duplicate edges (the same parent→child twice), which would give two
//     tree nodes the same path;
//   - every cycle found, listed as its ids "a → b → c → a" (a self-loop is
//     the cycle "a → a").
//
// Cycles are found by a depth-first search from the nodes in input order,
// following edges in input order: each edge that closes a path back onto the
// search stack yields one cycle, so every strongly connected component with
// a cycle is reported at least once (at most maxCycles = 100 are listed).
func (d *DAG) Validate() error {
	if _, probs := d.check(); len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

// graph is a DAG as indices into its Nodes.
type graph struct {
	index map[string]int // id → its first node (empty ids left out)
	first []bool         // node i is index[its id]
	adj   [][]int32      // children, in edge order; dangling and duplicate edges left out
	indeg []int          // number of parents, over the edges in adj
}

// check builds d's graph and lists its problems (see Validate).
func (d *DAG) check() (g graph, probs []string) {
	n := len(d.Nodes)
	g.index = make(map[string]int, n)
	g.first = make([]bool, n)
	for i, nd := range d.Nodes {
		switch {
		case nd.ID == "":
			probs = append(probs, fmt.Sprintf("node %d: empty id", i))
			continue
		case strings.Contains(nd.ID, PathSep):
			probs = append(probs, fmt.Sprintf("node %d: id %q contains the path separator %q", i, nd.ID, PathSep))
		}
		if j, dup := g.index[nd.ID]; dup {
			probs = append(probs, fmt.Sprintf("duplicate id %q (nodes %d and %d)", nd.ID, j, i))
			continue
		}
		g.index[nd.ID] = i
		g.first[i] = true
	}

	// Edges grouped by parent, in input order: (child, edge number).
	type out struct{ c, k int32 }
	byParent := make([][]out, n)
	for k, e := range d.Edges {
		p, pok := g.index[e.Parent]
		c, cok := g.index[e.Child]
		switch {
		case !pok && !cok:
			probs = append(probs, fmt.Sprintf("edge %d: dangling: neither parent %q nor child %q is a node", k, e.Parent, e.Child))
		case !pok:
			probs = append(probs, fmt.Sprintf("edge %d: dangling: parent %q of child %q is not a node", k, e.Parent, e.Child))
		case !cok:
			probs = append(probs, fmt.Sprintf("edge %d: dangling: child %q of parent %q is not a node", k, e.Child, e.Parent))
		default:
			byParent[p] = append(byParent[p], out{int32(c), int32(k)})
		}
	}
	// Duplicate edges: mark[c] = p+1 once p → c is seen, firstEdge[c] its
	// edge number.
	type dup struct{ k, j int32 }
	var dups []dup
	mark := make([]int, n)
	firstEdge := make([]int32, n)
	g.adj = make([][]int32, n)
	g.indeg = make([]int, n)
	for p, outs := range byParent {
		if len(outs) == 0 {
			continue
		}
		g.adj[p] = make([]int32, 0, len(outs))
		for _, o := range outs {
			if mark[o.c] == p+1 {
				dups = append(dups, dup{o.k, firstEdge[o.c]})
				continue
			}
			mark[o.c], firstEdge[o.c] = p+1, o.k
			g.adj[p] = append(g.adj[p], o.c)
			g.indeg[o.c]++
		}
	}
	slices.SortFunc(dups, func(a, b dup) int { return cmp.Compare(a.k, b.k) })
	for _, dp := range dups {
		e := d.Edges[dp.k]
		probs = append(probs, fmt.Sprintf("edge %d: duplicate of edge %d (%q → %q)", dp.k, dp.j, e.Parent, e.Child))
	}

	cycles, more := findCycles(g.adj)
	for _, cyc := range cycles {
		ids := make([]string, len(cyc)+1)
		for i, v := range cyc {
			ids[i] = d.Nodes[v].ID
		}
		ids[len(cyc)] = ids[0]
		probs = append(probs, "cycle: "+strings.Join(ids, " → "))
	}
	if more > 0 {
		probs = append(probs, fmt.Sprintf("%d more cycles not listed", more))
	}
	return g, probs
}

// findCycles runs an iterative depth-first search over adj from every
// unvisited vertex in order and returns, for each edge u→v with v on the
// stack, the cycle v, ..., u (at most maxCycles of them) and how many more
// such edges it saw.
func findCycles(adj [][]int32) (cycles [][]int32, more int) {
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, len(adj))
	pos := make([]int, len(adj)) // position on the stack while grey
	type frame struct {
		v    int32
		next int
	}
	var stack []frame
	for s := range adj {
		if color[s] != white {
			continue
		}
		color[s], pos[s] = grey, 0
		stack = append(stack[:0], frame{v: int32(s)})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(adj[top.v]) {
				color[top.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			w := adj[top.v][top.next]
			top.next++
			switch color[w] {
			case white:
				color[w], pos[w] = grey, len(stack)
				stack = append(stack, frame{v: w})
			case grey:
				if len(cycles) == maxCycles {
					more++
					continue
				}
				cyc := make([]int32, 0, len(stack)-pos[w])
				for _, f := range stack[pos[w]:] {
					cyc = append(cyc, f.v)
				}
				cycles = append(cycles, cyc)
			}
		}
	}
	return cycles, more
}

// indexOf maps each id to the index of its first node.
func (d *DAG) indexOf() map[string]int {
	index := make(map[string]int, len(d.Nodes))
	for i, n := range d.Nodes {
		if _, dup := index[n.ID]; !dup {
			index[n.ID] = i
		}
	}
	return index
}

// Roots returns the ids of the nodes that are the child of no edge, in input
// order.
func (d *DAG) Roots() []string {
	hasParent := make(map[string]bool, len(d.Nodes))
	for _, e := range d.Edges {
		hasParent[e.Child] = true
	}
	var roots []string
	for _, n := range d.Nodes {
		if !hasParent[n.ID] {
			roots = append(roots, n.ID)
		}
	}
	return roots
}

// Restrict returns the sub-DAG of the given nodes and their descendants, in
// which the given nodes are the roots: edges into them are dropped, so a
// given node that descends from another given node starts its own branch
// instead of also appearing under the other. Nodes are ordered the given
// roots first, in the order given, then the other kept nodes in input order,
// so Roots of the result returns roots itself; edges keep their input order.
// Edges from a kept node to an id that is not a node are kept, for Validate
// to report. It returns an error for an empty list, an unknown id or an id
// given twice. d is not modified; the result shares no slices with it.
func (d *DAG) Restrict(roots []string) (*DAG, error) {
	if len(roots) == 0 {
		return nil, fmt.Errorf("ontology: Restrict: no roots given")
	}
	index := d.indexOf()
	isRoot := make(map[string]bool, len(roots))
	for _, r := range roots {
		if _, ok := index[r]; !ok {
			return nil, fmt.Errorf("ontology: Restrict: unknown root id %q", r)
		}
		if isRoot[r] {
			return nil, fmt.Errorf("ontology: Restrict: root id %q given twice", r)
		}
		isRoot[r] = true
	}
	children := make(map[string][]string)
	for _, e := range d.Edges {
		if !isRoot[e.Child] {
			children[e.Parent] = append(children[e.Parent], e.Child)
		}
	}
	keep := make(map[string]bool)
	stack := append([]string(nil), roots...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if keep[v] {
			continue
		}
		keep[v] = true
		stack = append(stack, children[v]...)
	}

	out := &DAG{Nodes: make([]Node, 0, len(keep))}
	for _, r := range roots {
		out.Nodes = append(out.Nodes, cloneNode(d.Nodes[index[r]]))
	}
	for i, n := range d.Nodes {
		if keep[n.ID] && !isRoot[n.ID] && index[n.ID] == i {
			out.Nodes = append(out.Nodes, cloneNode(n))
		}
	}
	for _, e := range d.Edges {
		if keep[e.Parent] && !isRoot[e.Child] {
			out.Edges = append(out.Edges, e)
		}
	}
	return out, nil
}

func cloneNode(n Node) Node {
	if n.Keywords != nil {
		n.Keywords = append([]string(nil), n.Keywords...)
	}
	return n
}

// Stats describes the shape of a DAG or of a Tree. Depths count nodes, not
// edges, on a path from the top: a DAG root (a domain) has depth 1 in both,
// and a Tree's virtual root has depth 0.
type Stats struct {
	// Nodes is the number of nodes; for a Tree it includes the virtual root.
	Nodes int
	// Edges is the number of parent→child edges; for a Tree, Nodes − 1
	// (the virtual root's edges to the domains included).
	Edges int
	// Roots is the number of DAG roots; for a Tree, the number of depth-1
	// nodes (the DAG roots), not counting the virtual root.
	Roots int
	// MaxDepth is the largest depth. For a DAG a node's depth is the number
	// of nodes on its longest path from a root, so a DAG and its tree have
	// the same MaxDepth.
	MaxDepth int
	// Leaves is the number of nodes without children (never the virtual
	// root).
	Leaves int
	// MultiParent is the number of DAG nodes with more than one distinct
	// parent: the nodes BuildTree duplicates. Always 0 for a Tree.
	MultiParent int
	// MeanBranching is the mean number of children of the nodes that have
	// children; MaxBranching is the largest number of children of a node.
	// For a Tree both leave out the virtual root, so they describe the
	// ontology itself.
	MeanBranching float64
	MaxBranching  int
	// DepthHistogram[k] is the number of nodes at depth k, for k = 0 ..
	// MaxDepth. For a Tree, DepthHistogram[0] = 1 (the virtual root). For a
	// DAG, DepthHistogram[0] counts the nodes with no depth: those on or
	// below a cycle, 0 in a valid DAG.
	DepthHistogram []int
}

// Stats returns the shape of d. It works on invalid DAGs too: Nodes, Edges
// and Roots count what is there; the other fields count a duplicate id once
// and an empty id never, ignore dangling and duplicate edges, and give nodes
// on or below a cycle depth 0.
func (d *DAG) Stats() Stats {
	s := Stats{Nodes: len(d.Nodes), Edges: len(d.Edges), Roots: len(d.Roots())}
	g, _ := d.check()
	n := len(d.Nodes)
	internal, children := 0, 0
	for i := range n {
		if !g.first[i] {
			continue
		}
		k := len(g.adj[i])
		if k == 0 {
			s.Leaves++
		} else {
			internal++
			children += k
			s.MaxBranching = max(s.MaxBranching, k)
		}
		if g.indeg[i] > 1 {
			s.MultiParent++
		}
	}
	if internal > 0 {
		s.MeanBranching = float64(children) / float64(internal)
	}

	// Longest root path by Kahn's topological order: depth(root) = 1,
	// depth(c) = max over parents p of depth(p) + 1.
	depth := make([]int, n)
	left := append([]int(nil), g.indeg...)
	queue := make([]int32, 0, n)
	for i := range n {
		if g.first[i] && g.indeg[i] == 0 {
			depth[i] = 1
			queue = append(queue, int32(i))
		}
	}
	for q := 0; q < len(queue); q++ {
		v := queue[q]
		for _, c := range g.adj[v] {
			depth[c] = max(depth[c], depth[v]+1)
			if left[c]--; left[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	for i := range n {
		if left[i] > 0 {
			depth[i] = 0 // on or below a cycle
		}
		s.MaxDepth = max(s.MaxDepth, depth[i])
	}
	s.DepthHistogram = make([]int, s.MaxDepth+1)
	for i := range n {
		if g.first[i] {
			s.DepthHistogram[depth[i]]++
		}
	}
	return s
}
