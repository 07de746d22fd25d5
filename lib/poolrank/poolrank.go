// Package poolrank ranks a whole document pool for many queries exactly:
// the full-pool deduplication experiment of the paper (§4.3, App. B.4,
// D.11), where each query's duplicate must be found among every document
// of the benchmark with no approximate search.
//
// The score of query i and document j is the dot product
//
//	s(i, j) = Σₖ float32(q[i][k] · d[j][k]),  summed in k order, in float32,
//
// which is the cosine when both are unit vectors (Normalize). Each product
// is rounded to float32 before it is added (an explicit conversion, which
// the Go spec says may not be fused into a multiply-add), so Dot, the
// blocked product of Block and Ranks all give the same bits on every
// platform: a naive loop written that way reproduces them exactly.
//
// The rank of query i's target t is 1 + #{j ≠ t : s(i,j) > s(i,t), or
// s(i,j) = s(i,t) and j < t}: ties go to the lower index, which is the
// lower document id when the pool is sorted by id (lib/ndcg.Ranking's rule).
//
// Ranks computes the product block by block — QueryBlock queries ×
// DocBlock documents into one buffer per worker — on every core, so the
// memory beyond the inputs is bounded by the block size (Options.BufferBytes),
// whatever the pool's size. On amd64 a block is computed by a micro-kernel
// in assembly (AVX-512 or AVX2, kernel_amd64.s) over packed copies of the
// queries (one, the size of their matrix) and of the block's documents; it
// vectorises across documents, so each lane is one sum in k order, and
// multiplies then adds (never a fused multiply-add): its bits are Dot's,
// and the tests hold it to Block. Built with -tags purego, or on other
// CPUs, every block is Block's.
package poolrank

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/saber-math/saber/lib/parallel"
)

// Matrix is a row-major Rows × Dim matrix of float32.
type Matrix struct {
	Rows, Dim int
	Data      []float32
}

// NewMatrix returns a zero rows × dim matrix.
func NewMatrix(rows, dim int) Matrix {
	return Matrix{Rows: rows, Dim: dim, Data: make([]float32, rows*dim)}
}

// Row returns row i (aliasing the matrix).
func (m Matrix) Row(i int) []float32 { return m.Data[i*m.Dim : (i+1)*m.Dim : (i+1)*m.Dim] }

// check panics when the matrix's fields disagree.
func (m Matrix) check(what string) {
	if m.Rows < 0 || m.Dim < 1 || len(m.Data) != m.Rows*m.Dim {
		panic(fmt.Sprintf("poolrank: %s is %d×%d with %d values", what, m.Rows, m.Dim, len(m.Data)))
	}
}

// Normalize scales every row of m to unit Euclidean length (the norm taken
// in float64), so that Dot is the cosine. A zero row stays zero: its score
// is 0 against everything.
func Normalize(m Matrix) {
	m.check("matrix")
	for i := 0; i < m.Rows; i++ {
		r := m.Row(i)
		var n float64
		for _, x := range r {
			n += float64(x) * float64(x)
		}
		if n == 0 {
			continue
		}
		inv := 1 / math.Sqrt(n)
		for k, x := range r {
			r[k] = float32(float64(x) * inv)
		}
	}
}

// Dot is Σₖ float32(a[k]·b[k]) in k order (the package's score). It panics
// when the lengths differ.
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic("poolrank: Dot of vectors of different lengths")
	}
	var s float32
	for k := range a {
		s += float32(a[k] * b[k])
	}
	return s
}

// Block writes the scores of queries q[q0:q1] against documents
// d[d0:d1] into out, row-major ((q1−q0) × (d1−d0)); out must hold that
// many. The micro-kernel computes 4 queries × 2 documents at once, each
// of its 8 sums in k order, so every value equals Dot's.
func Block(q, d Matrix, q0, q1, d0, d1 int, out []float32) {
	if q.Dim != d.Dim {
		panic(fmt.Sprintf("poolrank: queries of %d dimensions, documents of %d", q.Dim, d.Dim))
	}
	nd := d1 - d0
	if len(out) < (q1-q0)*nd {
		panic("poolrank: Block's out is too short")
	}
	i := q0
	for ; i+4 <= q1; i += 4 {
		qa, qb, qc, qe := q.Row(i), q.Row(i+1), q.Row(i+2), q.Row(i+3)
		o := out[(i-q0)*nd:]
		j := d0
		for ; j+2 <= d1; j += 2 {
			s := kernel4x2(qa, qb, qc, qe, d.Row(j), d.Row(j+1))
			c := j - d0
			o[c], o[c+1] = s[0], s[1]
			o[nd+c], o[nd+c+1] = s[2], s[3]
			o[2*nd+c], o[2*nd+c+1] = s[4], s[5]
			o[3*nd+c], o[3*nd+c+1] = s[6], s[7]
		}
		for ; j < d1; j++ {
			dr := d.Row(j)
			c := j - d0
			o[c], o[nd+c], o[2*nd+c], o[3*nd+c] = Dot(qa, dr), Dot(qb, dr), Dot(qc, dr), Dot(qe, dr)
		}
	}
	for ; i < q1; i++ {
		qr := q.Row(i)
		o := out[(i-q0)*nd:]
		for j := d0; j < d1; j++ {
			o[j-d0] = Dot(qr, d.Row(j))
		}
	}
}

// kernel4x2 returns the 8 dot products of four query rows with two
// document rows, in the order (a,x) (a,y) (b,x) (b,y) (c,x) (c,y) (e,x)
// (e,y). Eight independent sums keep both floating-point ports busy; the
// re-slicing lets the compiler drop the bounds checks.
func kernel4x2(a, b, c, e, x, y []float32) [8]float32 {
	n := len(a)
	b, c, e, x, y = b[:n], c[:n], e[:n], x[:n], y[:n]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for k := 0; k < n; k++ {
		xa, xb, xc, xe := a[k], b[k], c[k], e[k]
		yx, yy := x[k], y[k]
		s0 += float32(xa * yx)
		s1 += float32(xa * yy)
		s2 += float32(xb * yx)
		s3 += float32(xb * yy)
		s4 += float32(xc * yx)
		s5 += float32(xc * yy)
		s6 += float32(xe * yx)
		s7 += float32(xe * yy)
	}
	return [8]float32{s0, s1, s2, s3, s4, s5, s6, s7}
}

// Options bound the work of Ranks.
type Options struct {
	// QueryBlock and DocBlock are a block's queries and documents
	// (defaults 64 and 512). A kernel packs a block's documents once and
	// passes every query block over them, one k-slice at a time: a slice
	// of the block's documents, 512 × 1 KiB, stays in a core's L2 cache
	// while a query block passes over it. Its query blocks are rounded up
	// to whole panels of queries (72 for the AVX-512 kernel's 12).
	QueryBlock, DocBlock int
	// Workers is the goroutines (default GOMAXPROCS: every core).
	Workers int
}

func (o Options) withDefaults() Options {
	if o.QueryBlock <= 0 {
		o.QueryBlock = 64
	}
	if o.DocBlock <= 0 {
		o.DocBlock = 512
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// BufferBytes is the scratch memory Ranks uses beyond its inputs and
// outputs under o for vectors of dim values: per worker one block of
// scores and, where a kernel runs, the block's documents packed (DocBlock
// × dim), each rounded up to whole tiles. A kernel also packs a copy of
// the queries, once, which is the size of the queries' matrix.
func (o Options) BufferBytes(dim int) int64 {
	o = o.withDefaults()
	qb, db := int64(o.QueryBlock), int64(o.DocBlock)
	per := qb * db
	if k := kern; k != nil {
		qb, db = int64(roundUp(o.QueryBlock, k.mr)), int64(roundUp(o.DocBlock, k.nr))
		per = qb*db + db*int64(dim)
	}
	return int64(o.Workers) * per * 4
}

// Ranks returns, for every query i, the rank of document targets[i] among
// all of d's rows (see the package doc) and its score. It panics on
// mismatched shapes or a target out of range (caller mistakes) and returns
// ctx's error when cancelled.
func Ranks(ctx context.Context, q, d Matrix, targets []int, opt Options) (ranks []int, scores []float32, err error) {
	q.check("queries")
	d.check("documents")
	if q.Dim != d.Dim {
		panic(fmt.Sprintf("poolrank: queries of %d dimensions, documents of %d", q.Dim, d.Dim))
	}
	if len(targets) != q.Rows {
		panic(fmt.Sprintf("poolrank: %d targets for %d queries", len(targets), q.Rows))
	}
	scores = make([]float32, q.Rows)
	for i, t := range targets {
		if t < 0 || t >= d.Rows {
			panic(fmt.Sprintf("poolrank: query %d's target %d is not among %d documents", i, t, d.Rows))
		}
		scores[i] = Dot(q.Row(i), d.Row(t))
	}
	opt = opt.withDefaults()
	k := kern // one kernel for the whole call, whatever a test sets later
	qBlock := opt.QueryBlock
	var packed []float32
	if k != nil {
		// The kernel's query blocks are whole panels, so that only the
		// last one computes padding.
		qBlock = roundUp(qBlock, k.mr)
		packed = k.packQueries(q)
	}
	// A task is one block of documents against a run of query blocks:
	// the kernel packs the documents once per task, so a task takes every
	// query block unless there are too few document blocks to keep every
	// core busy, when the queries are cut into as many runs as that takes.
	// Each task counts into its own array, merged at the end.
	dBlocks := (d.Rows + opt.DocBlock - 1) / opt.DocBlock
	qBlocks := (q.Rows + qBlock - 1) / qBlock
	runs := 1
	if dBlocks > 0 && dBlocks < 2*opt.Workers {
		runs = max(1, min((2*opt.Workers+dBlocks-1)/dBlocks, qBlocks))
	}
	runLen := (qBlocks + runs - 1) / runs * qBlock
	beats := make([]int, q.Rows)
	var mu sync.Mutex
	bufs := sync.Pool{New: func() any { return new(scratch) }}
	err = parallel.For(ctx, dBlocks*runs, opt.Workers, func(ctx context.Context, task int) error {
		db, r := task/runs, task%runs
		d0, d1 := db*opt.DocBlock, min((db+1)*opt.DocBlock, d.Rows)
		r0, r1 := min(r*runLen, q.Rows), min((r+1)*runLen, q.Rows)
		nd := d1 - d0
		s := bufs.Get().(*scratch)
		defer bufs.Put(s)
		if k != nil {
			k.packDocs(s, d, d0, d1)
		}
		local := make([]int, r1-r0)
		for q0 := r0; q0 < r1; q0 += qBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			q1 := min(q0+qBlock, r1)
			// The scores of (q0+i, d0+j) are buf[i·ld+j]: the kernel's
			// rows are padded to whole tiles, Block's are not.
			var buf []float32
			var ld int
			if k != nil {
				buf, ld = k.block(s, packed, q0, q1, nd, q.Dim)
			} else {
				s.c = grow(s.c, (q1-q0)*nd)
				buf, ld = s.c, nd
				Block(q, d, q0, q1, d0, d1, buf)
			}
			for i := q0; i < q1; i++ {
				row := buf[(i-q0)*ld : (i-q0)*ld+nd]
				local[i-r0] += beating(row, d0, targets[i], scores[i])
			}
		}
		mu.Lock()
		for i, n := range local {
			beats[r0+i] += n
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	ranks = make([]int, q.Rows)
	for i, n := range beats {
		// The target never beats itself (s = st and j = t), so n counts
		// only the others.
		ranks[i] = n + 1
	}
	return ranks, scores, nil
}

// beating counts the scores of row, those of documents d0, d0+1, …, that
// beat target t's score st: higher, or equal with a lower index. Split at
// t, each part is one comparison the compiler turns into a flag added to
// the count instead of a branch, which a target ranked mid-pool would
// mispredict every other document.
func beating(row []float32, d0, t int, st float32) int {
	split := min(max(t-d0, 0), len(row))
	n := 0
	for _, s := range row[:split] {
		if s >= st {
			n++
		}
	}
	for _, s := range row[split:] {
		if s > st {
			n++
		}
	}
	return n
}

// RankOf is the rank of scores[t] among scores under the package's rule
// (ties to the lower index): the reference Ranks is checked against, and
// what a retriever that scores the pool itself (a lexical one) uses.
func RankOf[F ~float32 | ~float64](scores []F, t int) int {
	st := scores[t]
	n := 1
	for j, s := range scores {
		if s > st || s == st && j < t {
			n++
		}
	}
	return n
}
