package ontology

import (
	"fmt"
	"math"
)

// InformationContent returns IC(t) for every node of the tree (SPEC §3,
// paper §3.2.2), given the topics assigned to each of N = len(assigned)
// problems (tree node indices; a problem's topics need not be distinct or
// free of ancestors):
//
//	c(t)  = number of problems with an assigned topic at t or under t
//	p(t)  = (c(t) + 1) / (N + 1)
//	IC(t) = −ln p(t) = ln(N + 1) − ln(c(t) + 1)
//
// A problem counts once per node however many of its topics lie under it.
// The root gets c = N, so IC(root) = 0, even when some problems have no
// topic. The add-one keeps IC finite at nodes no problem reaches, where it is
// ln(N + 1); c(child) ≤ c(parent) makes IC grow downwards. It runs in
// O(Σ topics · depth) and panics on a topic index out of range.
func InformationContent(t *Tree, assigned [][]int) []float64 {
	n := t.Len()
	count := make([]int, n)
	stamp := make([]int, n) // 1 + the last problem that counted the node
	for p, topics := range assigned {
		mark := p + 1
		for _, v := range topics {
			if v < 0 || v >= n {
				panic(fmt.Sprintf("ontology: InformationContent: problem %d has topic %d, want 0 ≤ topic < %d", p, v, n))
			}
			// Stop at a node this problem already counted: so are its ancestors.
			for u := v; u > 0 && stamp[u] != mark; u = int(t.parent[u]) {
				stamp[u] = mark
				count[u]++
			}
		}
	}
	N := len(assigned)
	count[0] = N
	lnN1 := math.Log(float64(N + 1))
	ic := make([]float64, n)
	for i, c := range count {
		ic[i] = lnN1 - math.Log(float64(c+1))
	}
	return ic
}

// Lin returns Lin's similarity of tree nodes a and b,
//
//	sim(a, b) = 2·IC(lca(a, b)) / (IC(a) + IC(b)),
//
// 1 when a == b and 0 when IC(a) + IC(b) = 0. With ic from
// InformationContent it lies in [0, 1]. It panics if len(ic) != t.Len().
func Lin(t *Tree, ic []float64, a, b int) float64 {
	if len(ic) != t.Len() {
		panic(fmt.Sprintf("ontology: Lin: %d IC values for a tree of %d nodes", len(ic), t.Len()))
	}
	if a == b {
		return 1
	}
	den := ic[a] + ic[b]
	if den == 0 {
		return 0
	}
	return 2 * ic[t.LCA(a, b)] / den
}

// BMA returns the best-match average of the topic sets x and y (paper
// §3.2.2, sim_topic):
//
//	BMA(x, y) = ( Σ_{a∈x} max_{b∈y} Lin(a, b) + Σ_{b∈y} max_{a∈x} Lin(a, b) ) / (|x| + |y|)
//
// and 0 if x or y is empty. It computes |x|·|y| Lin values. Repeated topics
// count as often as they appear. It is exactly symmetric, and 1 when x and y hold
// the same topics. It panics if len(ic) != t.Len().
func BMA(t *Tree, ic []float64, x, y []int) float64 {
	if len(ic) != t.Len() {
		panic(fmt.Sprintf("ontology: BMA: %d IC values for a tree of %d nodes", len(ic), t.Len()))
	}
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	var buf [16]float64
	var colMax []float64 // max over a ∈ x of Lin(a, y[j]); Lin ≥ 0, so 0 starts it
	if len(y) <= len(buf) {
		colMax = buf[:len(y)]
	} else {
		colMax = make([]float64, len(y))
	}
	sumX, sumY := 0.0, 0.0 // summed apart so that BMA(x, y) == BMA(y, x) exactly
	for _, a := range x {
		rowMax := 0.0
		for j, b := range y {
			s := Lin(t, ic, a, b)
			rowMax = max(rowMax, s)
			colMax[j] = max(colMax[j], s)
		}
		sumX += rowMax
	}
	for _, s := range colMax {
		sumY += s
	}
	return (sumX + sumY) / float64(len(x)+len(y))
}

// LinRows holds Lin(a, u) for each topic a of one set x and every node u
// of the tree, so that the BMA of x against many sets y costs a table
// lookup per topic pair instead of an LCA walk and a division: the pairs
// stage scores each query's topics against thousands of candidates', and
// BMA was most of its time. The zero value is empty; Reset fills it.
type LinRows struct {
	x   []int
	n   int
	lin []float64 // lin[i·n + u] = Lin(x[i], u)
}

// Reset makes r the rows of x over t's nodes, reusing r's memory. It
// panics if len(ic) != t.Len().
func (r *LinRows) Reset(t *Tree, ic []float64, x []int) {
	n := t.Len()
	if len(ic) != n {
		panic(fmt.Sprintf("ontology: LinRows: %d IC values for a tree of %d nodes", len(ic), n))
	}
	r.x, r.n = x, n
	r.lin = r.lin[:0]
	for _, a := range x {
		for u := range n {
			r.lin = append(r.lin, Lin(t, ic, a, u))
		}
	}
}

// BMA returns BMA(x, y) for the x of the last Reset: the same value, bit
// for bit, as BMA, whose loops and sums it repeats in the same order.
func (r *LinRows) BMA(y []int) float64 { return rowsBMA(r, y) }

// BMA32 is BMA for nodes held as int32, as a caller packing many small
// topic sets keeps them.
func (r *LinRows) BMA32(y []int32) float64 { return rowsBMA(r, y) }

func rowsBMA[N int | int32](r *LinRows, y []N) float64 {
	if len(r.x) == 0 || len(y) == 0 {
		return 0
	}
	var buf [16]float64
	var colMax []float64
	if len(y) <= len(buf) {
		colMax = buf[:len(y)]
	} else {
		colMax = make([]float64, len(y))
	}
	sumX, sumY := 0.0, 0.0
	for i := range r.x {
		row := r.lin[i*r.n : (i+1)*r.n]
		rowMax := 0.0
		for j, b := range y {
			s := row[b]
			rowMax = max(rowMax, s)
			colMax[j] = max(colMax[j], s)
		}
		sumX += rowMax
	}
	for _, s := range colMax {
		sumY += s
	}
	return (sumX + sumY) / float64(len(r.x)+len(y))
}
