package bt

import (
	"fmt"
	"math"
)

// The Newton systems are small (n = 150) and dense enough after fill-in that
// a plain row-oriented Cholesky is the right tool. It is written here rather
// than taken from gonum to keep the inner loop allocation-free, in place,
// and free of a dependency the module does not otherwise need; the dot
// product with four accumulators breaks the add-latency chain, which is most
// of the speed of a scalar Go loop.

// cholesky factors the symmetric positive definite a (n×n, row-major, only
// the lower triangle read) in place into its lower Cholesky factor L, with
// a = L·Lᵀ. The upper triangle is left untouched.
func cholesky(a []float64, n int) error {
	for j := range n {
		rj := a[j*n : j*n+j+1]
		d := rj[j] - dot(rj[:j], rj[:j])
		if !(d > 0) {
			return fmt.Errorf("cholesky: pivot %d is %v: matrix not positive definite", j, d)
		}
		d = math.Sqrt(d)
		rj[j] = d
		inv := 1 / d
		lj := rj[:j]
		i := j + 1
		// Four rows at a time share the loads of row j: 5 loads per 4
		// multiply-adds instead of 8.
		for ; i+4 <= n; i += 4 {
			r0 := a[i*n : i*n+j+1]
			r1 := a[(i+1)*n : (i+1)*n+j+1]
			r2 := a[(i+2)*n : (i+2)*n+j+1]
			r3 := a[(i+3)*n : (i+3)*n+j+1]
			s0, s1, s2, s3 := dot4(lj, r0[:j], r1[:j], r2[:j], r3[:j])
			r0[j] = (r0[j] - s0) * inv
			r1[j] = (r1[j] - s1) * inv
			r2[j] = (r2[j] - s2) * inv
			r3[j] = (r3[j] - s3) * inv
		}
		for ; i < n; i++ {
			ri := a[i*n : i*n+j+1]
			ri[j] = (ri[j] - dot(ri[:j], lj)) * inv
		}
	}
	return nil
}

// dot4 is (x·y0, x·y1, x·y2, x·y3) for y's at least as long as x.
func dot4(x, y0, y1, y2, y3 []float64) (s0, s1, s2, s3 float64) {
	y0, y1, y2, y3 = y0[:len(x)], y1[:len(x)], y2[:len(x)], y3[:len(x)]
	for k, v := range x {
		s0 += v * y0[k]
		s1 += v * y1[k]
		s2 += v * y2[k]
		s3 += v * y3[k]
	}
	return
}

// cholSolve solves L·Lᵀ·x = b in place in b, for L from cholesky.
func cholSolve(l []float64, n int, b []float64) {
	// Forward: L·y = b, rows of L contiguous.
	for i := range n {
		ri := l[i*n : i*n+i+1]
		b[i] = (b[i] - dot(ri[:i], b[:i])) / ri[i]
	}
	// Backward: Lᵀ·x = y, by columns of L, i.e. subtracting x[i]·L[i][:i]
	// from the rest once x[i] is known.
	for i := n - 1; i >= 0; i-- {
		ri := l[i*n : i*n+i+1]
		b[i] /= ri[i]
		xi := b[i]
		bi := b[:i]
		for k, v := range ri[:i] {
			bi[k] -= xi * v
		}
	}
}

// dot is Σ x[k]·y[k] for len(x) == len(y).
func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(x); k += 4 {
		// Re-slicing to length 4 lets the compiler drop the bounds checks.
		xs, ys := x[k:k+4:k+4], y[k:k+4:k+4]
		s0 += xs[0] * ys[0]
		s1 += xs[1] * ys[1]
		s2 += xs[2] * ys[2]
		s3 += xs[3] * ys[3]
	}
	for ; k < len(x); k++ {
		s0 += x[k] * y[k]
	}
	return (s0 + s1) + (s2 + s3)
}
