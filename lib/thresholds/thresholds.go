// Package thresholds counts eligible queries over a grid of (τ_topic,
// τ_summ) and picks the final thresholds by the rule of SPEC §3 (paper
// App. B.2).
//
// A query is eligible at (τt, τs) when it has at least K documents in each
// category: topic-only (sim_topic > τt, sim_summ ≤ τs), summary-only and
// both. Eligibility is not monotone in either threshold — raising τ_summ
// moves documents from "both" to "topic-only" — so every grid point is
// counted, in O(pairs + points) per query with a 2-D suffix sum.
package thresholds

import "sort"

// Grid holds the thresholds tried on each axis, ascending.
type Grid struct {
	Topic, Summ []float64
}

// Counter counts one query's categories at every grid point. It reuses its
// buffers, so one Counter serves a whole scan; it is not safe for
// concurrent use.
type Counter struct {
	g    Grid
	hist []int32 // (len(Topic)+1) × (len(Summ)+1)
	over [2][]int32
}

// NewCounter returns a Counter for g.
func NewCounter(g Grid) *Counter {
	nt, ns := len(g.Topic)+1, len(g.Summ)+1
	return &Counter{g: g, hist: make([]int32, nt*ns), over: [2][]int32{make([]int32, nt), make([]int32, ns)}}
}

// above is the number of grid values strictly below v: v passes exactly
// the thresholds grid[0..above-1], since the rule is sim > τ.
func above(grid []float64, v float64) int {
	return sort.Search(len(grid), func(i int) bool { return grid[i] >= v })
}

// Eligible calls fn(i, j) for every grid point (Topic[i], Summ[j]) at which
// the query with these similarities has at least k documents in each
// category. simTopic and simSumm are parallel, one entry per document.
func (c *Counter) Eligible(simTopic, simSumm []float64, k int, fn func(i, j int)) {
	if len(simTopic) < 3*k {
		return // three disjoint categories of k cannot fit
	}
	nt, ns := len(c.g.Topic)+1, len(c.g.Summ)+1
	clear(c.hist)
	for d := range simTopic {
		c.hist[above(c.g.Topic, simTopic[d])*ns+above(c.g.Summ, simSumm[d])]++
	}
	// Suffix sums: hist[a][b] becomes #docs with topic bucket ≥ a and
	// summary bucket ≥ b, i.e. passing Topic[a-1] and Summ[b-1].
	for a := nt - 1; a >= 0; a-- {
		for b := ns - 1; b >= 0; b-- {
			v := c.hist[a*ns+b]
			if a+1 < nt {
				v += c.hist[(a+1)*ns+b]
			}
			if b+1 < ns {
				v += c.hist[a*ns+b+1]
			}
			if a+1 < nt && b+1 < ns {
				v -= c.hist[(a+1)*ns+b+1]
			}
			c.hist[a*ns+b] = v
		}
	}
	k32 := int32(k)
	for i := 0; i < nt-1; i++ {
		topic := c.hist[(i+1)*ns] // passes Topic[i], any summary
		if topic < 2*k32 {
			continue // topic-only and both each need k
		}
		for j := 0; j < ns-1; j++ {
			both := c.hist[(i+1)*ns+j+1]
			summ := c.hist[j+1] // passes Summ[j], any topic
			if both >= k32 && topic-both >= k32 && summ-both >= k32 {
				fn(i, j)
			}
		}
	}
}

// Point is a grid point by index.
type Point struct{ I, J int }

// Less orders points by τ_topic, then τ_summ.
func (p Point) Less(q Point) bool { return p.I < q.I || p.I == q.I && p.J < q.J }

// Choice is the outcome of Choose.
type Choice struct {
	// Domain is each domain's own pick: its feasible point with the largest
	// τ_topic, then τ_summ; ok false when it has none.
	Domain []Point
	OK     []bool
	// Final is the chosen point; Feasible says whether every domain has
	// MinEligible queries there.
	Final    Point
	Feasible bool
	// SteppedDown counts the points tried below the minimum of the picks
	// before a feasible one was found.
	SteppedDown int
}

// Choose applies SPEC §3's rule to eligible[d][i][j], the eligible queries
// of domain d at grid point (i, j): each domain's pick is its feasible
// point (≥ minEligible) with the largest τ_topic, then largest τ_summ; the
// final point takes the minimum of each coordinate over the domains' picks
// and, if some domain is not feasible there, steps down the grid — τ_summ
// first, then τ_topic, scanning points (i', j') ≤ (i, j) in decreasing
// (i', j') order — to the first point feasible for every domain.
//
// When no point is feasible for every domain (a corpus too small for the
// counts asked), Final is the point feasible for the most domains, then
// with the largest coverage Σ_d min(eligible, minEligible), then the
// largest thresholds, and Feasible is false; the caller reports the
// shortfall.
func Choose(eligible [][][]int64, minEligible int64) Choice {
	nd := len(eligible)
	ch := Choice{Domain: make([]Point, nd), OK: make([]bool, nd)}
	if nd == 0 || len(eligible[0]) == 0 || len(eligible[0][0]) == 0 {
		return ch
	}
	nt, ns := len(eligible[0]), len(eligible[0][0])
	feasibleAll := func(p Point) bool {
		for d := range eligible {
			if eligible[d][p.I][p.J] < minEligible {
				return false
			}
		}
		return true
	}
	final, any := Point{nt - 1, ns - 1}, true
	for d := range eligible {
		for i := nt - 1; i >= 0 && !ch.OK[d]; i-- {
			for j := ns - 1; j >= 0; j-- {
				if eligible[d][i][j] >= minEligible {
					ch.Domain[d], ch.OK[d] = Point{i, j}, true
					break
				}
			}
		}
		if !ch.OK[d] {
			any = false
			continue
		}
		final.I, final.J = min(final.I, ch.Domain[d].I), min(final.J, ch.Domain[d].J)
	}
	if any {
		for i := final.I; i >= 0; i-- {
			for j := final.J; j >= 0; j-- {
				if p := (Point{i, j}); feasibleAll(p) {
					ch.Final, ch.Feasible = p, true
					return ch
				}
				ch.SteppedDown++
			}
		}
	}
	// No point serves every domain: the best compromise, reported as such.
	// Coverage caps each domain's count at minEligible, so one domain's
	// surplus cannot hide another's deficit.
	best, bestOK, bestCover := Point{}, -1, int64(-1)
	for i := 0; i < nt; i++ {
		for j := 0; j < ns; j++ {
			ok, cover := 0, int64(0)
			for d := range eligible {
				e := eligible[d][i][j]
				if e >= minEligible {
					ok++
				}
				cover += min(e, minEligible)
			}
			if ok > bestOK || ok == bestOK && cover >= bestCover {
				best, bestOK, bestCover = Point{i, j}, ok, cover
			}
		}
	}
	ch.Final, ch.Feasible, ch.SteppedDown = best, false, 0
	return ch
}
