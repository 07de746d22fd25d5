//go:build amd64 && !purego

package lexical

import "golang.org/x/sys/cpu"

// haveAddTermAVX2 reports whether addTermAVX2 runs here.
var haveAddTermAVX2 = cpu.X86.HasAVX2

// addTermAVX2 is addTermDenseGo's loop in assembly, four documents at a
// time, with the same operations in the same order (VMULPD, VADDPD,
// VDIVPD, never a fused multiply-add), so that every sum is the same bit
// for bit (TestAddTermDense).
//
//go:noescape
func addTermAVX2(scores *float64, row *int32, norm *float64, n int, w, k1p1 float64)

// addTermDense adds w·(f·(k1+1) / (f + norm[d])) to scores[d] for every
// document d of row (addTerm): in assembly where AVX2 runs, else
// addTermDenseGo.
func addTermDense(scores []float64, row []int32, norm []float64, w, k1p1 float64) {
	n := len(row)
	if !haveAddTermAVX2 || n == 0 {
		addTermDenseGo(scores, row, norm, w, k1p1)
		return
	}
	_, _ = scores[n-1], norm[n-1]
	addTermAVX2(&scores[0], &row[0], &norm[0], n, w, k1p1)
}
