package lexical

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"

	"github.com/saber-math/saber/lib/text"
)

// index is one query's candidates with their tokens interned to ids: the
// per-query index of paper C.4. Ids are given in order of first occurrence
// over the documents' tokens (each document's tokens in text.Tokens order),
// then the query's tokens that no document has get the next ids. Indexes
// are pooled, so that scoring many queries reuses their buffers instead of
// allocating them again.
//
// A text's tokens arrive as text.Spans and are interned in a loop (in
// assembly on amd64: intern_amd64.s), in two open-addressing hash tables
// of our own: one keyed by the token's hash and class (its bytes compared
// only for a token over 8 bytes), one by the pair of ids of a math pair
// token "a b". This avoids a string and a call per token and costs a
// fraction of a Go map lookup.
type index struct {
	seq    []int32 // the documents' token ids, concatenated
	start  []int32 // document d is seq[start[d]:start[d+1]]
	df     []int32 // document frequency by id (0 for the query's own ids)
	nvocab int     // ids < nvocab occur in some document
	query  []int32 // the query's token ids, in order

	// Interning.
	sp           text.Spans
	words, pairs table
	keys         []byte   // the bytes of every single token, concatenated
	ent          []entry  // by id
	cur          []int32  // ids of the current text's tokens, singles then pairs
	dl           []uint64 // by id: the last document counted (high half, −1: none) | df (low half)

	// A query-first index (BM25's) keeps no seq, but these instead.
	queryFirst bool
	m          int32   // ids < m are the query's
	tf         []int32 // tf[k*N+d]: count of id k < m in document d; 8 spare slots after
	ndocs      int     // N
	order      []int32 // order[:norder]: the documents' ids by first occurrence
	norder     int
	dlen       []int32 // tokens per document

	// Scratch, by id: slot (the position of a query term, −1 otherwise, kept
	// −1 between uses), cnt (kept 0 between uses), stamp.
	slot, cnt, stamp []int32
	terms, ints      []int32
	gid              []int32  // merge's map of another index's ids to ours
	tail             []int32  // merge's df of the last part's new tokens
	exp              []uint64 // export's records
	sb               []int32  // export's single tokens' bounds in kexp
	kexp             []byte   // export's copy of keys
	need             []int32
	f1, f2, f3       []float64
}

var indexPool = sync.Pool{New: func() any { return new(index) }}

// maxText is the longest query or document the scorers take.
const maxText = text.MaxSpansText

// newIndex tokenises the documents and the query with tok and interns their
// tokens. Call release when done. Every text must be at most maxText bytes.
func newIndex(tok text.Tokenizer, query string, docs []string) *index {
	x := getIndex(false)
	for d, doc := range docs {
		x.sp.Tokenize(tok, doc)
		x.intern(&x.sp, int32(d))
		x.start = append(x.start, int32(len(x.seq)))
	}
	x.nvocab = len(x.dl)
	x.sp.Tokenize(tok, query)
	x.intern(&x.sp, -1)
	x.setDF()
	n := len(x.df)
	for len(x.slot) < n {
		x.slot = append(x.slot, -1)
	}
	grow(&x.cnt, n)
	return x
}

// newQueryFirstIndex is the index BM25 needs, built in one pass over the
// documents of in: the query is interned first, so its ids are 0…m−1, and
// each document token is counted into tf as it is read (a token that is not
// a query term into a spare slot) instead of being kept in seq for a second
// pass. ids are then not in first-occurrence order
// over the documents, so order lists that order, for the sums that
// depend on it. docTokens, queryTerms and nvocab are not set.
func newQueryFirstIndex(tok text.Tokenizer, in texts) *index {
	x := getIndex(true)
	x.intern(in.tokens(x, tok, -1), -1)
	x.m = int32(len(x.ent))
	n := in.len()
	x.ndocs = n
	grow(&x.tf, len(x.ent)*n+8)
	for d := range n {
		sp := in.tokens(x, tok, d)
		x.intern(sp, int32(d))
		x.dlen = append(x.dlen, int32(sp.Len()+len(sp.Pairs)))
	}
	x.queryDF()
	x.setDF()
	return x
}

// texts is what a query-first index is built from: a query and its
// candidates, either as text, which the index tokenises into its own Spans
// as it reads each one, or as their tokens made beforehand (qsp not nil;
// BM25.scoreTokens). Both take the same path from the tokens on, so that
// timing the second times the code that scores text, less the tokeniser.
type texts struct {
	query string
	docs  []string
	qsp   *text.Spans  // the query's tokens made beforehand, or nil
	dsp   []text.Spans // with qsp, document d's tokens are dsp[d]
}

func (in texts) len() int {
	if in.qsp != nil {
		return len(in.dsp)
	}
	return len(in.docs)
}

// slice is in with documents lo…hi−1 only.
func (in texts) slice(lo, hi int) texts {
	if in.qsp != nil {
		return texts{qsp: in.qsp, dsp: in.dsp[lo:hi]}
	}
	return texts{query: in.query, docs: in.docs[lo:hi]}
}

// size is the work document d makes, for cutting the documents into runs
// of equal work: its bytes as text, its tokens as tokens.
func (in texts) size(d int) int {
	if in.qsp != nil {
		return in.dsp[d].Len() + len(in.dsp[d].Pairs)
	}
	return len(in.docs[d])
}

// tokens returns the tokens of document d, or of the query when d is −1:
// those made beforehand, or tok's of the text, made into x.sp (valid until
// the next call).
//
// It first prefetches document d+1's input, its text or its tokens: the
// caller's memory holds it but, over the queries of a run, seldom the
// cache, and reading document d (about 3 µs) leaves time for d+1's to
// arrive. It matters for tokens, 4.5 times the text's bytes (480 KB a
// query in the benchmark: bounds, bytes and pairs), whose loads the
// interning loop otherwise waited on (docs/benchmarks.md).
func (in *texts) tokens(x *index, tok text.Tokenizer, d int) *text.Spans {
	if in.qsp != nil {
		if d+1 < len(in.dsp) {
			next := &in.dsp[d+1]
			prefetch(unsafe.Pointer(unsafe.SliceData(next.Bounds)), 4*len(next.Bounds))
			prefetch(unsafe.Pointer(unsafe.SliceData(next.Bytes)), len(next.Bytes))
			prefetch(unsafe.Pointer(unsafe.SliceData(next.Pairs)), 4*len(next.Pairs))
		}
		if d < 0 {
			return in.qsp
		}
		return &in.dsp[d]
	}
	if d+1 < len(in.docs) {
		prefetch(unsafe.Pointer(unsafe.StringData(in.docs[d+1])), len(in.docs[d+1]))
	}
	s := in.query
	if d >= 0 {
		s = in.docs[d]
	}
	x.sp.Tokenize(tok, s)
	return &x.sp
}

// singleMark marks a single token in export's records, where a pair has
// its ids (< 2³¹ each).
const singleMark = ^uint64(0)

// export writes what merge needs of x, in order of first occurrence:
// into x.exp, for every token its ids packed if a pair, else singleMark,
// then id<<32 | df; into x.sb, the single tokens' bounds in
// x.kexp, a copy of their bytes (keys) with 8 bytes of slack. A part of
// an index exports on the core that built it, so that the merging core
// reads compact arrays instead of the part's own: reading those from
// another core costs a part as much again on its next query, when it
// writes them back (measured: ~60 µs of 200 per half of 150 candidates).
func (x *index) export() {
	exp := slices.Grow(x.exp[:0], 2*x.norder)[:2*x.norder]
	sb := x.sb[:0]
	for k, id := range x.order[:x.norder] {
		e := x.ent[id]
		p := singleMark
		if e.lo >= 0 {
			sb = append(sb, e.lo, e.hi)
		} else {
			p = uint64(^e.lo)<<32 | uint64(uint32(e.hi))
		}
		exp[2*k] = p
		exp[2*k+1] = uint64(id)<<32 | x.dl[id]&0xffffffff
	}
	x.exp, x.sb = exp, sb
	x.kexp = append(x.kexp[:0], x.keys[:len(x.keys)+8]...) // keys keeps 8 bytes of slack
}

// merge adds y, a query-first index of the same query over the documents
// after x's, to x, as if x had been built over both document lists, from
// y's export: y's single tokens are interned into x first, in y's order
// of first occurrence (by internWords, as a text of their own), then the
// pairs, and the document frequencies are summed. When y is the last part,
// its new tokens other than the query's need no place in x.order, as no
// later part can have them: tail gets the document frequencies of all its
// new tokens (the query's included), in order, which is all BM25 needs of
// them, and a new pair is not entered; x.order then tail is the order of
// first occurrence. Only x's ent, keys, tables, order, tail and df
// change: ndocs, tf and dlen stay by each index's own documents (BM25
// reads them per part). The query's ids, 0…m−1, are the same in both, as
// both interned the same query first.
func (x *index) merge(y *index, last bool) {
	gid := grow(&x.gid, len(y.ent)) // y's ids to x's; −1: none
	singles := slices.Grow(x.cur[:0], len(y.sb)/2)[:len(y.sb)/2]
	x.cur = singles
	x.internWords(y.kexp, y.sb, singles)
	j := 0
	for k := 0; k < len(y.exp); k += 2 {
		p, iddf := y.exp[k], y.exp[k+1]
		id := int32(iddf >> 32)
		var g int32
		if p == singleMark {
			g = singles[j]
			j++
		} else {
			a, b := gid[p>>32], gid[uint32(p)]
			if a < 0 || b < 0 {
				g = -1 // a pair with a new token is new
			} else {
				g = x.pair(uint64(a)<<32|uint64(b), !last)
			}
		}
		gid[id] = g
		df := iddf & 0xffffffff
		if g < 0 {
			x.tail = append(x.tail, int32(df))
			continue
		}
		v := x.dl[g]
		if v>>63 != 0 { // in no document of x's
			if last {
				x.tail = append(x.tail, int32(df))
			} else {
				x.order[x.norder] = g
				x.norder++
			}
			v = 0 // last document 0: any value ≥ 0 will do now
		}
		x.dl[g] = v + df
	}
	x.setDF()
}

// pair returns the id of the pair p (packed ids); when x lacks it, the
// next id if insert, else −1.
func (x *index) pair(p uint64, insert bool) int32 {
	h := mixPair(p)
	t := &x.pairs
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := t.slots[i]
		if sl.meta == 0 {
			if !insert {
				return -1
			}
			return x.insertPair(p, h)
		}
		if sl.key == p {
			return int32(uint32(sl.meta))
		}
	}
}

// setDF sets df from dl.
func (x *index) setDF() {
	df := grow(&x.df, len(x.dl))
	for id, v := range x.dl {
		df[id] = int32(uint32(v))
	}
}

func getIndex(queryFirst bool) *index {
	x := indexPool.Get().(*index)
	x.queryFirst = queryFirst
	x.words.reset(wordsFill)
	x.pairs.reset(pairsFill)
	x.keys = x.keys[:0]
	x.ent = x.ent[:0]
	x.dl = x.dl[:0]
	x.tail = x.tail[:0]
	x.order = append(x.order[:0], 0) // one spare: intern writes order[norder] ahead
	x.norder = 0
	x.m = 0
	x.seq = x.seq[:0]
	x.query = x.query[:0]
	x.dlen = x.dlen[:0]
	x.start = append(x.start[:0], 0)
	return x
}

// release returns x to the pool. It holds no reference to the texts.
func (x *index) release() { indexPool.Put(x) }

// intern interns the tokens sp, of document d (the query when d is −1), in
// two passes: the first finds every token's id (a new token goes through
// insertWord or insertPair), the second counts them: document
// frequencies, and the ids appended to seq, or for a query-first index the
// query terms' tf and the first-occurrence order. The query's ids are
// appended to query.
func (x *index) intern(sp *text.Spans, d int32) {
	b := sp.Bytes[:cap(sp.Bytes)] // 8 bytes of slack after every token
	bounds := sp.Bounds
	// cur gets the text's ids, singles then pairs, written by index: an
	// append's capacity check per token costs as much as a hash step.
	cur := slices.Grow(x.cur[:0], len(bounds)/2+len(sp.Pairs))[:len(bounds)/2+len(sp.Pairs)]
	ns := len(bounds) / 2
	x.internWords(b, bounds, cur[:ns])
	x.internPairs(sp.Pairs, cur[:ns], cur[ns:])

	// Count the occurrences: cur holds the text's ids, singles then pairs.
	if d < 0 {
		x.query = append(x.query, cur...)
		x.cur = cur
		return
	}
	if x.queryFirst {
		x.countQueryFirst(cur, d)
	} else {
		dl := x.dl
		for _, id := range cur {
			dl[id] = countDoc(dl[id], d)
		}
		x.seq = append(x.seq, cur...)
	}
	x.cur = cur
}

// internWordsGo is internWords in Go: it sets cur[k] to the id of token k
// of b (bounds alternates the tokens' starts and ends), entering the new
// ones. Where internWordsAsm runs it is the reference that tests hold the
// kernel to.
func (x *index) internWordsGo(b []byte, bounds []int32, cur []int32) {
	j := 0
	slots := x.words.slots
	mask := uint64(len(slots) - 1)
	for k := 0; k+1 < len(bounds); k += 2 {
		lo, hi := int(bounds[k]), int(bounds[k+1])
		n := hi - lo
		h := hashToken(b, lo, hi)
		meta := wordClass(n) << 32
		id := int32(-1)
		var free uint64 // the empty slot that ends the probe
		for i := h & mask; ; i = (i + 1) & mask {
			sl := slots[i]
			if sl.meta == 0 {
				free = i
				break
			}
			// The slot holds the hash and the class: for a token of up
			// to 8 bytes that decides, without reading anything else.
			if sl.key == h && sl.meta&^idMask == meta {
				c := int32(uint32(sl.meta))
				if n <= 8 || bytes.Equal(x.keys[x.ent[c].lo:x.ent[c].hi], b[lo:hi]) {
					id = c
					break
				}
			}
		}
		if id < 0 {
			id = x.insertWord(b, lo, hi, h, meta, free)
			slots = x.words.slots
			mask = uint64(len(slots) - 1)
		}
		cur[j] = id
		j++
	}
}

// internPairsGo is internPairs in Go: it sets out[j] to the id of pair j,
// tokens k = pairs[j] and k+1, whose ids are cur[k] and cur[k+1], from the
// table of pairs, entering the new ones. Where internPairsAsm runs it is
// the reference that tests hold the kernel to.
func (x *index) internPairsGo(pairs []int32, cur []int32, out []int32) {
	// The table's slots and mask live in locals, reloaded only after an
	// insert (which may rehash): through x.pairs, Go reloaded the slice
	// header at every probe.
	slots := x.pairs.slots
	pmask := uint64(len(slots) - 1)
	for j, k := range pairs {
		p := uint64(cur[k])<<32 | uint64(uint32(cur[k+1]))
		h := mixPair(p)
		id := int32(-1)
		for i := h & pmask; ; i = (i + 1) & pmask {
			sl := slots[i]
			if sl.meta == 0 {
				break
			}
			if sl.key == p {
				id = int32(uint32(sl.meta))
				break
			}
		}
		if id < 0 {
			id = x.insertPair(p, h)
			slots = x.pairs.slots
			pmask = uint64(len(slots) - 1)
		}
		out[j] = id
	}
}

// countQueryFirstGo counts the ids of document d into a query-first
// index: the query terms' tf, the order of first occurrence, and the
// other tokens' df (countQueryFirst; the reference for its kernel in
// assembly). The query terms' df is queryDF's, from their tf.
//
// A token's last document, the high half of its dl word, is stored
// whatever it was (d), and df, the low half, is incremented only at the
// token's first occurrence in d. So the next occurrence's load of the
// word does not wait on arithmetic on this one's: with a frequent token,
// a chain of those (load, compare, add, store, load again) through the
// same word had set the pace of the whole loop (docs/benchmarks.md).
func (x *index) countQueryFirstGo(cur []int32, d int32) {
	m, tf, no, ndocs := x.m, x.tf, x.norder, x.ndocs
	dl, order := x.dl, x.order
	for _, id := range cur {
		v := dl[id]
		order[no] = id
		no += int(v >> 63) // first in any document
		if id < m {
			tf[int(id)*ndocs+int(d)]++
		} else if int32(v>>32) != d {
			v++ // df
		}
		dl[id] = uint64(uint32(d))<<32 | v&0xffffffff
	}
	x.norder = no
}

// queryDF sets the query terms' df, in the low half of their dl words,
// from their tf: the documents where it is not 0.
func (x *index) queryDF() {
	n := x.ndocs
	for q := range int(x.m) {
		df := 0
		for _, c := range x.tf[q*n:][:n] {
			if c != 0 {
				df++
			}
		}
		x.dl[q] = x.dl[q]&^0xffffffff | uint64(df)
	}
}

// countDoc returns the dl word v (last document | df) of a token that
// occurs in document d: df+1 when d is not its last document yet, without
// a branch, as which occurrence is a document's first is unpredictable.
func countDoc(v uint64, d int32) uint64 {
	c := uint32(v>>32) ^ uint32(d)
	return uint64(uint32(d))<<32 | (v&0xffffffff + uint64((c|-c)>>31))
}

// insertWord gives the single token b[lo:hi], not in the table, the next
// id; free is the empty slot its probe ended at. b has 8 bytes of slack
// after the token, and keys keeps as much, so the bytes are copied a word
// at a time instead of by a call to memmove.
func (x *index) insertWord(b []byte, lo, hi int, h, meta, free uint64) int32 {
	start := len(x.keys)
	n := hi - lo
	keys := slices.Grow(x.keys, n+8)[:start+n+8]
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(keys[start+i:], binary.LittleEndian.Uint64(b[lo+i:]))
	}
	x.keys = keys[:start+n]
	id := x.newID(entry{hash: h, lo: int32(start), hi: int32(start + n)})
	sl := slot{key: h, meta: meta | uint64(id)}
	if t := &x.words; !t.room() {
		x.rehash(t)
		t.put(h, sl)
	} else {
		t.slots[free] = sl
		t.n++
	}
	return id
}

// insertPair gives the pair p, hashed to h, not in the table, the next id.
func (x *index) insertPair(p, h uint64) int32 {
	t := &x.pairs
	if !t.room() {
		x.rehash(t)
	}
	id := x.newID(entry{hash: h, lo: ^int32(p >> 32), hi: int32(uint32(p))})
	t.put(h, slot{key: p, meta: pairClass<<32 | uint64(id)})
	return id
}

// A slot's meta is its key's class << 32 | its id. The class of a single
// token is its length up to 8 bytes, longClass for a longer one; that of
// a pair is pairClass. It is never 0, so that meta is 0 only for an empty
// slot.
const (
	longClass = 9
	pairClass = 10
	idMask    = 0xffffffff
)

// wordClass is the class of a token of n bytes.
func wordClass(n int) uint64 { return uint64(min(n, longClass)) }

// Tokens are hashed by hand, not by Go's maphash, which costs a call and
// more per token than the whole table lookup here (intern_amd64.s repeats
// it). A token of up to 8 bytes, most of them, hashes its bytes as one
// little-endian word w; a longer one goes through hashLong. For a given length n ≤
// 8, w ↦ (w ^ n·M2)·M1 then h ^ h>>32 is a bijection, so that a slot's
// hash and class (the length) identify such a token without its bytes.
const hashM1, hashM2 = 0x9e3779b97f4a7c15, 0xbf58476d1ce4e5b9

// hashToken returns the hash of the token b[lo:hi]; b has 8 bytes of
// slack after the token, so that a short token is one load.
func hashToken(b []byte, lo, hi int) uint64 {
	n := hi - lo
	w := binary.LittleEndian.Uint64(b[lo : lo+8])
	if n > 8 {
		return hashLong(b, lo, hi, w)
	}
	w &= ^uint64(0) >> (64 - 8*uint(n))
	h := (w ^ uint64(n)*hashM2) * hashM1
	return h ^ h>>32
}

// hashLong hashes the token b[lo:hi] of more than 8 bytes, whose first 8
// bytes are w. b has 8 bytes of slack after the token, so the last,
// partial word is one load too, masked.
func hashLong(b []byte, lo, hi int, w uint64) uint64 {
	h := (w ^ uint64(hi-lo)*hashM2) * hashM1
	for i := lo + 8; i < hi; i += 8 {
		v := binary.LittleEndian.Uint64(b[i:]) & (^uint64(0) >> (64 - 8*uint(min(hi-i, 8))))
		h = (h ^ h>>29 ^ v) * hashM1
	}
	return h ^ h>>32
}

// mixPair spreads a packed pair of ids over the table.
func mixPair(p uint64) uint64 {
	p *= 0x9e3779b97f4a7c15
	return p ^ p>>32
}

// entry is what the index keeps of an id: its hash, for rehashing, and
// for a single token its bytes keys[lo:hi], for a pair of ids a, b
// lo = ^a (< 0) and hi = b.
type entry struct {
	hash   uint64
	lo, hi int32
}

func (x *index) newID(e entry) int32 {
	id := int32(len(x.ent))
	x.ent = append(x.ent, e)
	x.dl = append(x.dl, 0xffffffff<<32) // last −1, df 0
	x.order = append(x.order, 0)        // len(order) > the ids it will hold
	return id
}

// table is an open-addressing hash table with linear probing. Its length
// is a power of two, and it holds at most 1/fill of it.
type table struct {
	slots []slot
	n     int
	fill  int
}

// The tables' fill: the words table is kept at most a quarter full, the
// pairs table half. A quarter cut the words' probes past the first slot,
// each an unpredictable branch, for ~2% of BM25's time; the pairs table
// at a quarter was slower, as its misses in cache grew more than its
// probes fell (docs/benchmarks.md).
const (
	wordsFill = 4
	pairsFill = 2
)

// room reports whether t takes one more key without a rehash.
func (t *table) room() bool { return t.fill*(t.n+1) <= len(t.slots) }

// slot is a table entry: key is a single token's hash, or a pair's packed
// ids, and meta = class << 32 | id (see pairClass); meta is 0 for an
// empty slot.
type slot struct{ key, meta uint64 }

func (t *table) reset(fill int) {
	t.fill = fill
	if t.slots == nil {
		t.slots = make([]slot, 1<<12)
	}
	if t.n > 0 {
		clear(t.slots)
	}
	t.n = 0
}

// put stores sl, hashed to h, in the first empty slot of its probe
// sequence.
func (t *table) put(h uint64, sl slot) {
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].meta != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = sl
	t.n++
}

// rehash doubles t and puts its ids back.
func (x *index) rehash(t *table) {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	t.n = 0
	for _, sl := range old {
		if sl.meta != 0 {
			t.put(x.ent[int32(uint32(sl.meta))].hash, sl)
		}
	}
}

func (x *index) docTokens(d int) []int32 { return x.seq[x.start[d]:x.start[d+1]] }

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
