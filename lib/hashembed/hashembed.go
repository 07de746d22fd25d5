// Package hashembed is the demo's offline bi-encoder: a text's vector is
// the feature-hashed bag of its math-aware tokens (lib/text.Math: words,
// LaTeX commands, identifiers, numbers and adjacent pairs), each token
// adding ±(1 + ln tf) to one of Dim components chosen by FNV-1a of the
// token (the sign from another bit), scaled to unit length. It needs no
// model and is deterministic: equal texts get equal vectors, texts sharing
// rare tokens get close ones. It stands in for a neural embedding model
// so that `saber demo` exercises the embedding path (the HTTP client, the
// stored pool embeddings, the blocked ranking) end to end; its scores mean
// no more than a lexical baseline's.
package hashembed

import (
	"hash/fnv"
	"math"
	"sort"

	"github.com/saber-math/saber/lib/text"
)

// Dim is the default vector length.
const Dim = 256

// Vector returns text's vector of dim components (dim ≥ 1).
func Vector(s string, dim int) []float32 {
	if dim < 1 {
		panic("hashembed: dim must be ≥ 1")
	}
	toks := text.Math.Append(nil, s)
	tf := map[string]int{}
	for _, t := range toks {
		tf[t]++
	}
	// Sum in sorted token order so the float64 sums do not depend on map
	// order.
	keys := make([]string, 0, len(tf))
	for k := range tf {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	acc := make([]float64, dim)
	for _, k := range keys {
		h := fnv.New64a()
		h.Write([]byte(k))
		v := h.Sum64()
		w := 1 + math.Log(float64(tf[k]))
		if v>>63 == 1 {
			w = -w
		}
		acc[v%uint64(dim)] += w
	}
	var n float64
	for _, x := range acc {
		n += x * x
	}
	out := make([]float32, dim)
	if n == 0 {
		return out
	}
	inv := 1 / math.Sqrt(n)
	for i, x := range acc {
		out[i] = float32(x * inv)
	}
	return out
}
