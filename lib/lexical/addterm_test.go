package lexical

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddTermDense holds addTermDense (the AVX2 kernel on amd64) to
// addTermDenseGo bit for bit, and both to the sparse loop, which skips the
// documents without the term: rows of every length around the kernel's
// step of 4, counts mostly 0 (as a query term's are), negative idf (the
// ε floor), and norms across the range lengthNorm gives.
func TestAddTermDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 41))
	for n := range 23 {
		for trial := range 40 {
			row := make([]int32, n)
			norm := make([]float64, n)
			base := make([]float64, n)
			for d := range n {
				if rng.IntN(3) == 0 {
					row[d] = int32(1 + rng.IntN(40))
				}
				norm[d] = 0.05 + 5*rng.Float64()
				base[d] = 20 * (rng.Float64() - 0.3)
			}
			w := 8 * (rng.Float64() - 0.2)
			if trial%5 == 0 {
				w = -0.01 * rng.Float64()
			}
			k1p1 := 1 + 2*rng.Float64()
			want, got, sparse := clone(base), clone(base), clone(base)
			addTermDenseGo(want, row, norm, w, k1p1)
			addTermDense(got, row, norm, w, k1p1)
			addTerm(sparse, row, norm, w, k1p1, false)
			for d := range n {
				if math.Float64bits(got[d]) != math.Float64bits(want[d]) {
					t.Fatalf("n=%d trial %d doc %d: kernel %.17g, Go %.17g", n, trial, d, got[d], want[d])
				}
				if math.Float64bits(sparse[d]) != math.Float64bits(want[d]) {
					t.Fatalf("n=%d trial %d doc %d (f=%d): sparse %.17g, dense %.17g", n, trial, d, row[d], sparse[d], want[d])
				}
			}
			// Only the n documents change: the kernel writes no further.
			long := append(clone(base), 1.5)
			addTermDense(long[:n], row, norm, w, k1p1)
			if long[n] != 1.5 {
				t.Fatalf("n=%d: wrote past the row", n)
			}
		}
	}
}

func clone(v []float64) []float64 { return append([]float64(nil), v...) }
