package poolrank

// The packed product: where an assembly micro-kernel runs (kernel_amd64.go),
// Ranks computes each block of scores with it instead of Block. The
// kernel vectorises across documents, never across k: each lane of its
// registers is one (query, document) sum, and every step adds the rounded
// product float32(q[i][k]·d[j][k]) of the next k to it with a multiply
// and then an add (two instructions, never a fused multiply-add), so the
// sum is the package's score, bit for bit. Blocking over queries,
// documents and k changes only which sums are in registers when; a sum
// cut at a k boundary is stored and reloaded as the float32 it already
// is, and goes on in k order.

// kcBlock is the k-slice of one pass over a block: the kernel's mr query
// values for it (12 KiB for the AVX-512 kernel) stay in L1 while the
// block's document panels, DocBlock × kcBlock floats (512 KiB by default),
// stream from L2; each tile's sums are stored and reloaded once a slice.
const kcBlock = 256

// kernel is an assembly micro-kernel: fn computes an mr × nr tile of
// scores over kn values of k from a packed query panel a (a[k·mr+i]) and
// a packed document panel b (b[k·nr+j]) into c (row stride ldc floats),
// adding to c's values when acc is set and starting from zero otherwise.
type kernel struct {
	name   string
	mr, nr int
	fn     func(a, b, c *float32, ldc, kn int, acc bool)
}

// scratch is one task's buffers for the packed product, reused between
// the tasks a worker runs.
type scratch struct {
	a, b, c []float32
}

// grow returns s resized to n, reallocated only when it is too small.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// roundUp is n rounded up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// packQueries copies queries q[q0:q1] into s.a as panels of k.mr queries,
// each k-major over the whole dimension (the query values the kernel
// broadcasts sit together for every k); rows past q1 are zero.
func (k *kernel) packQueries(s *scratch, q Matrix, q0, q1 int) {
	mr, dim := k.mr, q.Dim
	s.a = grow(s.a, roundUp(q1-q0, mr)*dim)
	for p := 0; p < q1-q0; p += mr {
		panel := s.a[p*dim : (p+mr)*dim]
		for i := range mr {
			if q0+p+i >= q1 {
				for kk := range dim {
					panel[kk*mr+i] = 0
				}
				continue
			}
			for kk, x := range q.Row(q0 + p + i) {
				panel[kk*mr+i] = x
			}
		}
	}
}

// packDocs copies the values k0..k1 of documents d[d0:d1] into s.b as
// panels of k.nr documents, each k-major (b[k·nr+j]: the kernel loads a
// panel's nr values of one k with one or two vector loads); documents past
// d1 are zero. Four documents at a time: each k's four values are one
// 16-byte write, and the four rows are read in step.
func (k *kernel) packDocs(s *scratch, d Matrix, d0, d1, k0, k1 int) {
	nr, kn := k.nr, k1-k0
	s.b = grow(s.b, roundUp(d1-d0, nr)*kn)
	for p := 0; p < d1-d0; p += nr {
		panel := s.b[p*kn : (p+nr)*kn]
		for j := 0; j < nr; j += 4 {
			var rows [4][]float32
			for r := range rows {
				if jd := d0 + p + j + r; jd < d1 {
					rows[r] = d.Row(jd)[k0:k1]
				} else {
					rows[r] = zeros[:kn]
				}
			}
			r0, r1, r2, r3 := rows[0], rows[1][:len(rows[0])], rows[2][:len(rows[0])], rows[3][:len(rows[0])]
			for kk, x := range r0 {
				o := panel[kk*nr+j : kk*nr+j+4 : kk*nr+j+4]
				o[0], o[1], o[2], o[3] = x, r1[kk], r2[kk], r3[kk]
			}
		}
	}
}

// zeros stands for the rows of a panel past the last document.
var zeros [kcBlock]float32

// block is Block by the kernel: the scores of queries q[q0:q1], already
// packed into s.a by packQueries, against documents d[d0:d1], into s.c.
// It returns s.c and its row stride: score (q0+i, d0+j) is c[i·ldc+j].
// The tiles past q1 and d1 hold the scores of the zero padding.
func (k *kernel) block(s *scratch, q, d Matrix, q0, q1, d0, d1 int) (c []float32, ldc int) {
	mr, nr, dim := k.mr, k.nr, q.Dim
	mq := roundUp(q1-q0, mr)
	ldc = roundUp(d1-d0, nr)
	s.c = grow(s.c, mq*ldc)
	for k0 := 0; k0 < dim; k0 += kcBlock {
		k1 := min(k0+kcBlock, dim)
		kn := k1 - k0
		k.packDocs(s, d, d0, d1, k0, k1)
		for ip := 0; ip < mq; ip += mr {
			a := &s.a[ip*dim+k0*mr]
			for jp := 0; jp < ldc; jp += nr {
				k.fn(a, &s.b[jp*kn], &s.c[ip*ldc+jp], ldc, kn, k0 > 0)
			}
		}
	}
	return s.c, ldc
}
