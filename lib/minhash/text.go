// Package minhash finds near-duplicate texts with MinHash locality-sensitive
// hashing (LSH), following datatrove's defaults: normalised text, word 5-gram
// shingles, 112 permutations split into 14 bands of 8 rows, and candidate pairs
// confirmed by their estimated Jaccard similarity.
//
// The pipeline for one document is
//
//	sig := hasher.Signature(Shingles(Normalize(text), 5))
//
// and the signatures go into an Index, whose Query returns the ids of the
// documents that share at least one band with the query.
//
// Everything here is pure and deterministic: the shingle hash (FNV-1a 64) and
// the permutations (drawn with SplitMix64 from a seed) are fixed forever, so a
// signature computed today equals one computed on another machine, by another
// process or by another Go version.
//
// docs/algorithms.md#dedup-details specifies how the dedup stage uses it: the normalisation, the
// band layout, the guard and the thresholds of a run.
package minhash

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns s in the canonical form that shingles are taken from:
//
//  1. Unicode NFKD decomposition (compatibility characters such as "ﬁ" or "²"
//     become "fi" and "2", accented letters become letter + combining mark);
//  2. non-spacing combining marks (category Mn, i.e. diacritics) and format
//     characters (category Cf: soft hyphen, zero-width joiner, BOM) are
//     dropped, so "Éléonore" becomes "Eleonore";
//  3. letters are lower-cased;
//  4. every punctuation or symbol rune (unicode.IsPunct || unicode.IsSymbol,
//     which covers LaTeX's \ { } ^ _ $ and also + = < >) and every white space
//     or control rune becomes a space;
//  5. runs of spaces collapse to one space and the result is trimmed.
//
// Punctuation becomes a space and not nothing because in mathematics it
// separates tokens: "x^2+y" must give the words "x 2 y", not the single word
// "x2y", and "$\frac{1}{2}$" gives "frac 1 2".
//
// Numbers are NOT normalised (unlike datatrove's norm_numbers, which maps every
// digit to 0): for math problems the numbers are the problem, and "8 choose 4"
// and "9 choose 3" are different problems that must not be deduplicated.
//
// The result depends on the Unicode tables of golang.org/x/text/unicode/norm
// and of the unicode package (both Unicode 15.0.0 with the versions in
// go.mod); a Unicode upgrade can only change texts with newly assigned
// characters.
func Normalize(s string) string {
	d := norm.NFKD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	pendingSpace := false
	for _, r := range d {
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r):
			// Diacritics and invisible format characters vanish.
		case unicode.IsSpace(r) || unicode.IsControl(r) || unicode.IsPunct(r) || unicode.IsSymbol(r):
			pendingSpace = b.Len() > 0
		default:
			if pendingSpace {
				b.WriteByte(' ')
				pendingSpace = false
			}
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// FNV-1a 64-bit parameters (http://www.isthe.com/chongo/tech/comp/fnv/).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// Shingles returns the hashes of the word n-grams of normalized, sorted
// ascending and de-duplicated.
//
// Words are the runs of non-space characters (strings.Fields); an n-gram is n
// consecutive words joined by a single space, and its hash is FNV-1a 64 of
// those bytes:
//
//	h = 14695981039346656037; for each byte c: h = (h XOR c) · 1099511628211 mod 2^64
//
// This hash is fixed forever (it does not depend on the process, the machine
// or the Go version), so shingles and signatures can be stored and compared
// across runs. It equals hash/fnv.New64a over the joined n-gram.
//
// A text with at least one but fewer than n words gives one shingle, the hash
// of the whole text: otherwise short statements ("Compute 2+2.") would have no
// shingles and could never be deduplicated. An empty (or all-space) text gives
// nil. Shingles panics if n < 1.
func Shingles(normalized string, n int) []uint64 {
	if n < 1 {
		panic("minhash: Shingles needs n >= 1")
	}
	words := strings.Fields(normalized)
	if len(words) == 0 {
		return nil
	}
	if len(words) < n {
		n = len(words)
	}
	out := make([]uint64, 0, len(words)-n+1)
	for i := 0; i+n <= len(words); i++ {
		h := uint64(fnvOffset64)
		for j, w := range words[i : i+n] {
			if j > 0 {
				h ^= ' '
				h *= fnvPrime64
			}
			for k := 0; k < len(w); k++ {
				h ^= uint64(w[k])
				h *= fnvPrime64
			}
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Jaccard returns the exact Jaccard similarity |A∩B| / |A∪B| of two sets given
// as sorted, de-duplicated slices (such as the output of Shingles), by a merge
// walk in O(len(a)+len(b)). Two empty sets give 0.
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	return float64(inter) / float64(union)
}
