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
// the tasks a worker runs: b the block's documents packed, c its scores.
type scratch struct {
	b, c []float32
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

// packQueries returns the queries as panels of k.mr, each k-major over
// the whole dimension (the mr values the kernel broadcasts for one k sit
// together): query i's value k is at (i/mr)·mr·dim + k·mr + i%mr. The rows
// past the last query are zero.
func (k *kernel) packQueries(q Matrix) []float32 {
	mr, dim := k.mr, q.Dim
	a := make([]float32, roundUp(q.Rows, mr)*dim)
	for i := range q.Rows {
		panel := a[i/mr*mr*dim : (i/mr+1)*mr*dim]
		for kk, x := range q.Row(i) {
			panel[kk*mr+i%mr] = x
		}
	}
	return a
}

// packDocs copies documents d[d0:d1] into s.b by k-slices of kcBlock
// values: the slice from k0 starts at k0·ldb (ldb the documents rounded
// up to k.nr) and holds panels of nr documents, each k-major (the kernel
// loads a panel's nr values of one k with one or two vector loads).
// Documents past d1 are zero. Four documents at a time: each k's four
// values are one 16-byte write, and the four rows are read in step.
func (k *kernel) packDocs(s *scratch, d Matrix, d0, d1 int) {
	nr, dim := k.nr, d.Dim
	ldb := roundUp(d1-d0, nr)
	s.b = grow(s.b, ldb*dim)
	for k0 := 0; k0 < dim; k0 += kcBlock {
		k1 := min(k0+kcBlock, dim)
		kn := k1 - k0
		slice := s.b[k0*ldb : k1*ldb]
		for p := 0; p < d1-d0; p += nr {
			panel := slice[p*kn : (p+nr)*kn]
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
}

// zeros stands for the rows of a panel past the last document.
var zeros [kcBlock]float32

// block is Block by the kernel: the scores of queries q0..q1 (q0 a
// multiple of k.mr), packed by packQueries into a, against the nd
// documents packed into s.b by packDocs, into s.c. It returns s.c and its
// row stride: the score of (q0+i, j) is c[i·ldc+j]. The tiles past q1 and
// nd hold the scores of the zero padding.
func (k *kernel) block(s *scratch, a []float32, q0, q1, nd, dim int) (c []float32, ldc int) {
	mr, nr := k.mr, k.nr
	if q0%mr != 0 {
		panic("poolrank: a kernel's query block starts inside a panel")
	}
	mq := roundUp(q1-q0, mr)
	ldc = roundUp(nd, nr)
	s.c = grow(s.c, mq*ldc)
	for k0 := 0; k0 < dim; k0 += kcBlock {
		kn := min(kcBlock, dim-k0)
		b := s.b[k0*ldc : (k0+kn)*ldc]
		for ip := 0; ip < mq; ip += mr {
			ap := &a[(q0+ip)*dim+k0*mr]
			for jp := 0; jp < ldc; jp += nr {
				k.fn(ap, &b[jp*kn], &s.c[ip*ldc+jp], ldc, kn, k0 > 0)
			}
		}
	}
	return s.c, ldc
}
