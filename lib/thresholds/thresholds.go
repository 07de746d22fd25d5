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

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

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
	from []int32 // cell of Rebin's grid → cell of g
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
	clear(c.hist)
	for d := range simTopic {
		c.hist[c.g.Cell(simTopic[d], simSumm[d])]++
	}
	c.count(k, fn)
}

// count calls fn at every eligible point of the histogram in c.hist.
func (c *Counter) count(k int, fn func(i, j int)) {
	nt, ns := len(c.g.Topic)+1, len(c.g.Summ)+1
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

// Cells is the number of cells of g's histogram: (len(Topic)+1) ×
// (len(Summ)+1).
func (g Grid) Cells() int { return (len(g.Topic) + 1) * (len(g.Summ) + 1) }

// Cell is the cell of g's histogram a document with these similarities
// falls in: a·(len(Summ)+1) + b, where a and b are the numbers of topic and
// summary thresholds it passes (the rule is sim > τ, so equality fails).
// Counting a query's documents per cell keeps everything any threshold
// pair on the grid can tell of them, in O(cells) instead of O(documents).
func (g Grid) Cell(simTopic, simSumm float64) int {
	return above(g.Topic, simTopic)*(len(g.Summ)+1) + above(g.Summ, simSumm)
}

// NotOnGridError reports a threshold that is not one the histogram was
// counted over, so no count at it can be exact.
type NotOnGridError struct {
	Axis  string
	Value float64
}

func (e *NotOnGridError) Error() string {
	return fmt.Sprintf("threshold %s %v is not one of the thresholds the counts were made over", e.Axis, e.Value)
}

// index returns the position of v in grid (ascending), exactly.
func index(grid []float64, v float64, axis string) (int, error) {
	i := sort.SearchFloat64s(grid, v)
	if i == len(grid) || grid[i] != v {
		return 0, &NotOnGridError{Axis: axis, Value: v}
	}
	return i, nil
}

// Rebin maps the cells of histograms counted over from onto the cells of
// c's grid, whose thresholds must each be one of from's (a superset, as
// when pairs counts over calibrate's grid and select's fixed thresholds).
// Then EligibleCells counts stored histograms as Eligible counts raw
// similarities.
func (c *Counter) Rebin(from Grid) error {
	axis := func(sub, sup []float64, name string) ([]int, error) {
		// A value in bucket a of sup passes sup[0..a-1]; of sub it passes
		// those that are among them.
		m := make([]int, len(sup)+1)
		for _, v := range sub {
			i, err := index(sup, v, name)
			if err != nil {
				return nil, err
			}
			for a := i + 1; a <= len(sup); a++ {
				m[a]++
			}
		}
		return m, nil
	}
	mt, err := axis(c.g.Topic, from.Topic, "τ_topic")
	if err != nil {
		return err
	}
	ms, err := axis(c.g.Summ, from.Summ, "τ_summ")
	if err != nil {
		return err
	}
	ns, fs := len(c.g.Summ)+1, len(from.Summ)+1
	c.from = make([]int32, from.Cells())
	for a := range mt {
		for b := range ms {
			c.from[a*fs+b] = int32(mt[a]*ns + ms[b])
		}
	}
	return nil
}

// EligibleCells is Eligible for a query given as its documents counted per
// cell of the grid given to Rebin: cells ascending or not, counts[i]
// documents in cells[i], total documents in all.
func (c *Counter) EligibleCells(cells, counts []int32, total int64, k int, fn func(i, j int)) {
	if total < 3*int64(k) {
		return
	}
	clear(c.hist)
	for i, cell := range cells {
		c.hist[c.from[cell]] += counts[i]
	}
	c.count(k, fn)
}

// Categories counts a query's documents, given per cell of grid g, in each
// category at (tauT, tauS), which must be thresholds of g: topic-only,
// summary-only, both, and neither (under both).
func (g Grid) Categories(cells, counts []int32, tauT, tauS float64) ([4]int64, error) {
	var n [4]int64
	it, err := index(g.Topic, tauT, "τ_topic")
	if err != nil {
		return n, err
	}
	is, err := index(g.Summ, tauS, "τ_summ")
	if err != nil {
		return n, err
	}
	ns := int32(len(g.Summ) + 1)
	for i, cell := range cells {
		// Cell a passes Topic[a-1]: τ_topic = Topic[it] is passed when a > it.
		t, s := int(cell/ns) > it, int(cell%ns) > is
		switch {
		case t && s:
			n[2] += int64(counts[i])
		case t:
			n[0] += int64(counts[i])
		case s:
			n[1] += int64(counts[i])
		default:
			n[3] += int64(counts[i])
		}
	}
	return n, nil
}

// String is the grid as `pair_counts` records it: the τ_topic values, a
// "|", the τ_summ values, each space-separated, in the shortest form that
// parses back to the same float64.
func (g Grid) String() string {
	var b strings.Builder
	for i, axis := range [][]float64{g.Topic, g.Summ} {
		if i > 0 {
			b.WriteByte('|')
		}
		for j, v := range axis {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	return b.String()
}

// ParseGrid reads a Grid's String.
func ParseGrid(s string) (Grid, error) {
	t, u, ok := strings.Cut(s, "|")
	if !ok {
		return Grid{}, fmt.Errorf("threshold grid %q: no \"|\" between the τ_topic and τ_summ values", s)
	}
	var g Grid
	for _, x := range []struct {
		s   string
		out *[]float64
	}{{t, &g.Topic}, {u, &g.Summ}} {
		for _, f := range strings.Fields(x.s) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return Grid{}, fmt.Errorf("threshold grid %q: %w", s, err)
			}
			if n := len(*x.out); n > 0 && v <= (*x.out)[n-1] {
				return Grid{}, fmt.Errorf("threshold grid %q: values not ascending", s)
			}
			*x.out = append(*x.out, v)
		}
	}
	return g, nil
}

// Union is the grid with every threshold of g and of the extra values on
// each axis, ascending and distinct.
func (g Grid) Union(topic, summ []float64) Grid {
	merge := func(a, b []float64) []float64 {
		out := append(append([]float64(nil), a...), b...)
		sort.Float64s(out)
		return slices.Compact(out)
	}
	return Grid{Topic: merge(g.Topic, topic), Summ: merge(g.Summ, summ)}
}
