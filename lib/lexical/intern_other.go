//go:build !amd64 || purego

package lexical

import "unsafe"

// internWords sets cur[k] to the id of token k of b, entering the new
// ones (internWordsGo; amd64 has a kernel in assembly).
func (x *index) internWords(b []byte, bounds []int32, cur []int32) {
	x.internWordsGo(b, bounds, cur)
}

// internPairs sets out[j] to the id of pair j, entering the new ones
// (internPairsGo; amd64 has a kernel in assembly).
func (x *index) internPairs(pairs []int32, cur []int32, out []int32) {
	x.internPairsGo(pairs, cur, out)
}

// countQueryFirst counts the ids of document d into a query-first index
// (countQueryFirstGo; amd64 has a kernel in assembly).
func (x *index) countQueryFirst(cur []int32, d int32) { x.countQueryFirstGo(cur, d) }

// prefetch does nothing here and returns 0: on amd64 it asks for the
// cache lines of p[0:n] ahead of their use (texts.tokens).
func prefetch(p unsafe.Pointer, n int) int { return 0 }
