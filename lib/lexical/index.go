package lexical

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/saber-math/saber/lib/text"
)

// index is one query's candidates with their tokens interned to ids: the
// per-query index of paper C.4. Ids are given in order of first occurrence
// over the documents' tokens (each document's tokens in text.Tokens order),
// then the query's tokens that no document has get the next ids. Indexes
// are pooled, so that scoring many queries reuses their buffers instead of
// allocating them again.
//
// Tokens arrive through text.Stream, as byte slices and pairs, and are
// interned in two open-addressing hash tables of our own: one keyed by the
// token's bytes, one by the pair of ids of a math pair token "a b". This
// avoids a string per token and costs a fraction of a Go map lookup, and it
// is what makes BM25 over 150 candidates take well under a millisecond.
type index struct {
	seq    []int32 // the documents' token ids, concatenated
	start  []int32 // document d is seq[start[d]:start[d+1]]
	df     []int32 // document frequency by id (0 for the query's own ids)
	nvocab int     // ids < nvocab occur in some document
	query  []int32 // the query's token ids, in order

	// Interning.
	words, pairs table
	keys         []byte  // the bytes of every single token, concatenated
	ent          []entry // by id
	cur          []int32 // ids of the single tokens of the current text
	last         []int32 // by id: the last document counted in df
	doc          int32   // the document being read, −1 for the query

	// Scratch, by id: slot (the position of a query term, −1 otherwise, kept
	// −1 between uses), cnt (kept 0 between uses), stamp.
	slot, cnt, stamp []int32
	terms, ints, tf  []int32
	need             []int32
	f1, f2, f3       []float64
}

var indexPool = sync.Pool{New: func() any { return new(index) }}

// newIndex tokenises the documents and the query with tok and interns their
// tokens. Call release when done.
func newIndex(tok text.Tokenizer, query string, docs []string) *index {
	x := indexPool.Get().(*index)
	x.words.reset()
	x.pairs.reset()
	x.keys = x.keys[:0]
	x.ent = x.ent[:0]
	x.last = x.last[:0]
	x.df = x.df[:0]
	x.seq = x.seq[:0]
	x.start = append(x.start[:0], 0)
	for d, doc := range docs {
		x.doc = int32(d)
		x.cur = x.cur[:0]
		text.Stream(tok, doc, x)
		x.start = append(x.start, int32(len(x.seq)))
	}
	x.nvocab = len(x.df)
	x.doc = -1
	x.cur = x.cur[:0]
	x.query = x.query[:0]
	text.Stream(tok, query, x)
	n := len(x.df)
	for len(x.slot) < n {
		x.slot = append(x.slot, -1)
	}
	grow(&x.cnt, n)
	return x
}

// release returns x to the pool. It holds no reference to the texts.
func (x *index) release() { indexPool.Put(x) }

// Token implements text.Sink.
func (x *index) Token(tok []byte) {
	h, w := hashToken(tok)
	t := &x.words
	if 2*(t.n+1) > len(t.slots) {
		x.rehash(t, false)
	}
	mask := uint64(len(t.slots) - 1)
	meta := h&tagMask | uint64(min(len(tok), 255))<<32
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.meta == 0 {
			id := x.newID(entry{hash: h, lo: int32(len(x.keys))})
			x.keys = append(x.keys, tok...)
			x.ent[id].hi = int32(len(x.keys))
			*sl = slot{word: w, meta: meta | uint64(id+1)}
			t.n++
			x.add(id)
			return
		}
		// The slot holds the first 8 bytes, the length and 24 bits of
		// the hash: for tokens of up to 8 bytes that decides, without
		// reading anything else.
		if sl.meta&^0xffffffff == meta && sl.word == w {
			id := int32(uint32(sl.meta)) - 1
			if len(tok) <= 8 || bytes.Equal(x.keys[x.ent[id].lo:x.ent[id].hi], tok) {
				x.add(id)
				return
			}
		}
	}
}

// Pair implements text.Sink.
func (x *index) Pair(k int) {
	p := uint64(x.cur[k])<<32 | uint64(uint32(x.cur[k+1]))
	h := mixPair(p)
	t := &x.pairs
	if 2*(t.n+1) > len(t.slots) {
		x.rehash(t, true)
	}
	mask := uint64(len(t.slots) - 1)
	meta := h & tagMask
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.meta == 0 {
			id := x.newID(entry{hash: h, lo: -1, hi: -1})
			*sl = slot{word: p, meta: meta | uint64(id+1)}
			t.n++
			x.occur(id)
			return
		}
		if sl.word == p && sl.meta&^0xffffffff == meta {
			x.occur(int32(uint32(sl.meta)) - 1)
			return
		}
	}
}

// tagMask selects the 24 bits of a hash kept in a slot.
const tagMask = 0xffffff << 40

// hashToken returns a hash of tok and its first 8 bytes (fewer when it is
// shorter) as a little-endian word, which settles most comparisons without
// reading the stored bytes. Go's maphash costs a call and more per token
// than the whole table lookup here, and tokens are mostly under 8 bytes.
func hashToken(tok []byte) (h, w uint64) {
	const m1, m2 = 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9
	n := len(tok)
	w = word8(tok)
	h = (w ^ uint64(n)*m2) * m1
	for i := 8; i < n; i += 8 {
		h = (h ^ h>>29 ^ word8(tok[i:])) * m1
	}
	return h ^ h>>32, w
}

// word8 returns the first min(8, len(b)) bytes of b as a little-endian
// word. A shorter b whose array extends 8 bytes is read in one load and
// masked.
func word8(b []byte) uint64 {
	switch n := len(b); {
	case n >= 8:
		return binary.LittleEndian.Uint64(b)
	case cap(b) >= 8:
		return binary.LittleEndian.Uint64(b[:8]) & (1<<(8*uint(n)) - 1)
	default:
		var w uint64
		for i := n - 1; i >= 0; i-- {
			w = w<<8 | uint64(b[i])
		}
		return w
	}
}

// mixPair spreads a packed pair of ids over the table.
func mixPair(p uint64) uint64 {
	p *= 0x9e3779b97f4a7c15
	return p ^ p>>32
}

// entry is what the index keeps of an id: its hash, for rehashing, and
// for a single token its bytes keys[lo:hi] (lo = hi = −1 for a pair).
type entry struct {
	hash   uint64
	lo, hi int32
}

func (x *index) newID(e entry) int32 {
	id := int32(len(x.ent))
	x.ent = append(x.ent, e)
	x.df = append(x.df, 0)
	x.last = append(x.last, -1)
	return id
}

// add records an occurrence of the single token id.
func (x *index) add(id int32) {
	x.cur = append(x.cur, id)
	x.occur(id)
}

// occur records an occurrence of the token id (single or pair) in the
// current text.
func (x *index) occur(id int32) {
	if x.doc < 0 {
		x.query = append(x.query, id)
		return
	}
	if x.last[id] != x.doc {
		x.last[id] = x.doc
		x.df[id]++
	}
	x.seq = append(x.seq, id)
}

// table is an open-addressing hash table with linear probing. Its length
// is a power of two, and it is at most half full.
type table struct {
	slots []slot
	n     int
}

// slot is a table entry: the key's first 8 bytes (or a pair's packed ids)
// and meta = 24 bits of hash | length (8 bits, saturated) | id+1 (32
// bits); meta is 0 for an empty slot.
type slot struct{ word, meta uint64 }

func (t *table) reset() {
	if t.slots == nil {
		t.slots = make([]slot, 1<<12)
	}
	if t.n > 0 {
		clear(t.slots)
	}
	t.n = 0
}

// rehash doubles t and puts its ids back.
func (x *index) rehash(t *table, pairs bool) {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, sl := range old {
		if sl.meta == 0 {
			continue
		}
		id := int32(uint32(sl.meta)) - 1
		i := x.ent[id].hash & mask
		for t.slots[i].meta != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
	}
}

func (x *index) docTokens(d int) []int32 { return x.seq[x.start[d]:x.start[d+1]] }
func (x *index) docLen(d int) int        { return int(x.start[d+1] - x.start[d]) }

// counts returns the by-id counter, all zero; callers zero it again.
func (x *index) counts() []int32 { return x.cnt[:len(x.df)] }

// queryTerms returns the distinct query ids that occur in the documents, in
// order of first occurrence in the query, and sets slot[id] to the
// position of id in that list. Call clearSlots(terms) when done.
func (x *index) queryTerms() []int32 {
	terms := x.terms[:0]
	for _, id := range x.query {
		if int(id) < x.nvocab && x.slot[id] < 0 {
			x.slot[id] = int32(len(terms))
			terms = append(terms, id)
		}
	}
	x.terms = terms
	return terms
}

func (x *index) clearSlots(terms []int32) {
	for _, id := range terms {
		x.slot[id] = -1
	}
}

// queryTF returns queryTerms and tf, where tf[k*N+d] is the count of
// terms[k] in document d.
func (x *index) queryTF() (terms, tf []int32) {
	terms = x.queryTerms()
	n := len(x.start) - 1
	tf = grow(&x.tf, len(terms)*n)
	if len(terms) == 0 {
		return terms, tf
	}
	for d := range n {
		for _, id := range x.docTokens(d) {
			if k := x.slot[id]; k >= 0 {
				tf[int(k)*n+d]++
			}
		}
	}
	return terms, tf
}

// grow sets *p to a zeroed slice of length n, reusing its array when it is
// large enough, and returns it.
func grow[T int32 | float64](p *[]T, n int) []T {
	if cap(*p) < n {
		*p = make([]T, n, n+n/4)
	} else {
		*p = (*p)[:n]
		clear(*p)
	}
	return *p
}
