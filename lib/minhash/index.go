package minhash

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/saber-math/saber/lib/parallel"
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
// every value of at least one band.
//
// Each band is a table sorted by (hash of the band's values, slot): 12 bytes
// per document and band, with the signatures themselves held by reference,
// not copied. A query looks up each of its bands' hashes by binary search
// and confirms a hit by comparing the band's values, so a hash collision
// never makes a candidate and the answer is exactly the documents that agree
// on a whole band. (github.com/ekzhu/minhash-lsh, which this replaces, keys
// its tables by the band's bytes as a Go string and its documents as
// interface values: about 150 bytes per document and band, 2 KB per
// document at 14 bands, which made dedup's reduce the one shard over 4 GB
// at a million documents.)
//
// Use: Add every signature, call Build, then Query. Signatures added after
// Build become searchable at the next Build. An Index is not safe for
// concurrent Add or Build; concurrent Query calls after Build are safe.
type Index struct {
	bands, rows int
	ids         []int      // slot → the id given to Add
	sigs        [][]uint64 // slot → its signature, as given to Add
	tables      []table    // one per band, over the slots added before the last Build
}

// table is one band's lookup: hashes ascending, slots[k] the slot whose band
// hashes to hashes[k], ascending among equal hashes. dir[p] is the first k
// whose hash's top bits are ≥ p (bits of them, about log₂ of the documents
// less 2), so a lookup searches a few entries instead of the whole table:
// 4 bytes per 4 documents.
type table struct {
	hashes []uint64
	slots  []int32
	dir    []int32
	bits   int
}

// dirBits is the width of a table's directory for n documents.
func dirBits(n int) int { return max(bits.Len(uint(n))-2, 0) }

// find returns the range of k with hashes[k] == h.
func (t *table) find(h uint64) (lo, hi int) {
	if t.dir == nil { // not built yet
		return 0, 0
	}
	p := h >> (64 - t.bits) // 0 when bits is 0: a shift by 64 clears a uint64
	from, to := int(t.dir[p]), int(t.dir[p+1])
	k, _ := slices.BinarySearch(t.hashes[from:to], h)
	lo = from + k
	hi = lo
	for hi < to && t.hashes[hi] == h {
		hi++
	}
	return lo, hi
}

// NewIndex returns an empty Index of bands bands of rows rows each; its
// signatures must have bands·rows values. It returns an error if bands or
// rows is below 1.
func NewIndex(bands, rows int) (*Index, error) {
	if bands < 1 || rows < 1 {
		return nil, fmt.Errorf("minhash: an LSH index needs at least 1 band and 1 row, got %d bands × %d rows", bands, rows)
	}
	return &Index{bands: bands, rows: rows, tables: make([]table, bands)}, nil
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
// next Build. The index keeps sig, which must not change afterwards. It
// panics if len(sig) is not bands·rows, or past 2³¹−1 signatures.
func (x *Index) Add(id int, sig []uint64) {
	x.check(sig)
	if len(x.sigs) == math.MaxInt32 {
		panic("minhash: more than 2^31-1 signatures in one index")
	}
	x.ids = append(x.ids, id)
	x.sigs = append(x.sigs, sig)
}

// Build makes every signature added so far searchable. Its bands are sorted
// in parallel, one goroutine per band.
func (x *Index) Build() {
	n := len(x.sigs)
	var wg sync.WaitGroup
	for b := range x.tables {
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			type entry struct {
				h    uint64
				slot int32
			}
			es := make([]entry, n)
			for s, sig := range x.sigs {
				es[s] = entry{x.bandHash(sig, b), int32(s)}
			}
			slices.SortFunc(es, func(p, q entry) int { return cmp.Or(cmp.Compare(p.h, q.h), cmp.Compare(p.slot, q.slot)) })
			t := table{hashes: make([]uint64, n), slots: make([]int32, n), bits: dirBits(n)}
			for k, e := range es {
				t.hashes[k], t.slots[k] = e.h, e.slot
			}
			t.buildDir()
			x.tables[b] = t
		})
	}
	wg.Wait()
}

// buildDir fills dir from the sorted hashes.
func (t *table) buildDir() {
	t.dir = make([]int32, 1<<t.bits+1)
	k := 0
	for p := range t.dir {
		for k < len(t.hashes) && t.hashes[k]>>(64-t.bits) < uint64(p) {
			k++
		}
		t.dir[p] = int32(k)
	}
}

// bandHash mixes band b of sig into 64 bits (each value through SplitMix64's
// finaliser, then folded); equal bands hash alike, and a collision of unequal
// ones only costs a comparison in Query.
func (x *Index) bandHash(sig []uint64, b int) uint64 {
	h := uint64(b) * 0x9E3779B97F4A7C15
	for _, v := range sig[b*x.rows : (b+1)*x.rows] {
		v ^= h
		v ^= v >> 30
		v *= 0xBF58476D1CE4E5B9
		v ^= v >> 27
		v *= 0x94D049BB133111EB
		v ^= v >> 31
		h = v + 0x9E3779B97F4A7C15
	}
	return h
}

// Query returns, sorted ascending, the ids of the built documents that agree
// with sig on at least one whole band (including sig's own id if it was
// added), each once; nil when there is none. A document with similarity J is
// a candidate with probability 1 − (1 − J^rows)^bands. It panics if len(sig)
// is not bands·rows.
func (x *Index) Query(sig []uint64) []int {
	x.check(sig)
	var ids []int
	for b, t := range x.tables {
		lo, hi := t.find(x.bandHash(sig, b))
		band := sig[b*x.rows : (b+1)*x.rows]
		for k := lo; k < hi; k++ {
			s := t.slots[k]
			if slices.Equal(x.sigs[s][b*x.rows:(b+1)*x.rows], band) {
				ids = append(ids, x.ids[s])
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
