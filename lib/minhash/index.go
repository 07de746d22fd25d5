package minhash

import (
	"fmt"
	"math"
	"slices"
	"sync"

	minhashlsh "github.com/ekzhu/minhash-lsh"
)

// Threshold returns the approximate Jaccard similarity at which the
// candidate probability 1 − (1 − J^rows)^bands of an LSH index of bands bands
// of rows rows each rises most steeply:
//
//	t = (1/bands)^(1/rows)
//
// (at J = t a pair is a candidate with probability 1 − (1 − 1/bands)^bands,
// about 0.65 for 14 bands). For 14 bands × 8 rows, t ≈ 0.719. It is meant for
// logs and documentation. It panics if bands or rows is below 1.
func Threshold(bands, rows int) float64 {
	if bands < 1 || rows < 1 {
		panic(fmt.Sprintf("minhash: Threshold needs bands, rows >= 1, got %d, %d", bands, rows))
	}
	return math.Pow(1/float64(bands), 1/float64(rows))
}

// Index is a MinHash LSH index of bands × rows signature values (band i is
// sig[i·rows : (i+1)·rows]); two signatures are candidates when they agree on
// every value of at least one band. It wraps github.com/ekzhu/minhash-lsh
// with 64-bit values and makes its results deterministic.
//
// Use: Add every signature, call Build, then Query. Signatures added after
// Build become searchable at the next Build. An Index is not safe for
// concurrent Add; concurrent Query calls after Build are safe.
type Index struct {
	lsh         *minhashlsh.MinhashLSH
	bands, rows int
}

// libThresholds caches, per [bands, rows], the threshold that makes the
// library pick that shape, or the error that none does.
var libThresholds sync.Map // [2]int → thresholdResult

type thresholdResult struct {
	t   float64
	err error
}

// NewIndex returns an empty Index of bands bands of rows rows each; its
// signatures must have bands·rows values.
//
// The library has no constructor that takes bands and rows: it takes the
// number of hash values and a Jaccard threshold and picks (k = rows,
// l = bands) minimising the integrated false-positive plus false-negative
// probability (its optimalKL). So NewIndex scans the thresholds
// t = 0.010, 0.015, ..., 0.990 with NewMinhashLSH64(bands·rows, t) and keeps
// the first t whose Params() is (rows, bands); for 14 × 8 that is t = 0.65.
// Each probe integrates numerically over every shape, about 5 ms for 112
// hashes (so 0.65 s before 14 × 8 is found) and 150 ms for 1024; the outcome
// is cached per (bands, rows) for the life of the process, so only the first
// NewIndex of a shape pays it.
//
// It returns an error if bands or rows is below 1, or if no threshold makes
// the library choose this shape (every shape with bands·rows ≤ 128 is
// reachable, so in practice this means a library change).
func NewIndex(bands, rows int) (*Index, error) {
	if bands < 1 || rows < 1 {
		return nil, fmt.Errorf("minhash: an LSH index needs at least 1 band and 1 row, got %d bands × %d rows", bands, rows)
	}
	key := [2]int{bands, rows}
	r, ok := libThresholds.Load(key)
	if !ok {
		r, _ = libThresholds.LoadOrStore(key, scanThreshold(bands, rows, libParams))
	}
	res := r.(thresholdResult)
	if res.err != nil {
		return nil, res.err
	}
	return &Index{
		lsh:   minhashlsh.NewMinhashLSH64(bands*rows, res.t),
		bands: bands,
		rows:  rows,
	}, nil
}

// libParams returns the (k, l) that the library picks for numHash hash
// values and threshold t.
func libParams(numHash int, t float64) (k, l int) {
	return minhashlsh.NewMinhashLSH64(numHash, t).Params()
}

// scanThreshold returns the first t in 0.010, 0.015, ..., 0.990 for which
// params(bands·rows, t) is (rows, bands).
func scanThreshold(bands, rows int, params func(numHash int, t float64) (k, l int)) thresholdResult {
	for i := 2; i <= 198; i++ {
		t := float64(i) / 200
		if k, l := params(bands*rows, t); k == rows && l == bands {
			return thresholdResult{t: t}
		}
	}
	return thresholdResult{err: fmt.Errorf("minhash: the LSH library cannot be set to %d bands × %d rows", bands, rows)}
}

func (x *Index) check(sig []uint64) {
	if len(sig) != x.bands*x.rows {
		panic(fmt.Sprintf("minhash: signature of %d values for an index of %d bands × %d rows", len(sig), x.bands, x.rows))
	}
}

// Bands returns the number of bands.
func (x *Index) Bands() int { return x.bands }

// Rows returns the number of rows (signature values) per band.
func (x *Index) Rows() int { return x.rows }

// Add inserts the signature of document id. It becomes searchable after the
// next Build. It panics if len(sig) is not bands·rows.
func (x *Index) Add(id int, sig []uint64) {
	x.check(sig)
	x.lsh.Add(id, sig)
}

// Build makes every signature added so far searchable.
func (x *Index) Build() { x.lsh.Index() }

// Query returns, sorted ascending, the ids of the built documents that agree
// with sig on at least one whole band (including sig's own id if it was
// added). A document with similarity J is a candidate with probability
// 1 − (1 − J^rows)^bands. It panics if len(sig) is not bands·rows.
func (x *Index) Query(sig []uint64) []int {
	x.check(sig)
	keys := x.lsh.Query(sig)
	if len(keys) == 0 {
		return nil
	}
	ids := make([]int, len(keys))
	for i, k := range keys {
		ids[i] = k.(int)
	}
	slices.Sort(ids)
	return ids
}
