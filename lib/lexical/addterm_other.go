//go:build !amd64 || purego

package lexical

// addTermDense adds w·(f·(k1+1) / (f + norm[d])) to scores[d] for every
// document d of row (addTermDenseGo; amd64 has a kernel in assembly).
func addTermDense(scores []float64, row []int32, norm []float64, w, k1p1 float64) {
	addTermDenseGo(scores, row, norm, w, k1p1)
}
