package lexical

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
	"sync"

	"github.com/saber-math/saber/lib/text"
)

// BM25's index built by a team without a merge, for tokenisers without
// pair tokens (bm25-no-tok). Building in parts over runs of the documents
// (score) leaves part 0 to absorb the other parts' vocabularies after they
// finish: for 150 MATH candidates ~60 µs of lookups, a fifth of the whole,
// that no number of threads shortens, so that it stops gaining past two.
// Here the vocabulary is split by hash instead, so that no token is in two
// partitions:
//
//  1. Member r tokenises run r of the documents and hashes its tokens,
//     each into the stream of records of its hash's partition: the hash,
//     the length and the position, and for a token over 8 bytes its bytes
//     in a second stream.
//  2. Member p interns partition p's records, run after run, so in the
//     order of the text: its own table, the document frequencies, the
//     query terms' counts, and its tokens' first positions in order.
//  3. Member r orders the first positions of one range of positions,
//     gathered from every partition, so that the caller sums the idfs in
//     rank_bm25's order (first occurrence): the scores are bit for bit
//     those of one index, whatever the number of members.
//
// The records cross cores: each member reads (np−1)/np of its records from
// the others' caches, and on the next query they write over lines the
// readers hold. That costs about as much as the merge it saves with two
// members, and less with every member added, as each moves 1/np of them.
// (Every member tokenising every document instead, keeping only its
// partition's tokens, moves nothing but tokenises and hashes np times: a
// member then took 0.27 ms of the 0.33 a whole index takes.)
//
// A token of up to 8 bytes is identified by its hash and length: for a
// given length, w ↦ (w ^ n·M2)·M1 then h ^ h>>32 is a bijection of its
// word w. A longer token's bytes are compared as well.

// hrec is one token occurrence in a partition's stream: its hash, and its
// position among its run's tokens | its class << 56 (its length up to 8
// bytes, longClass for a longer token, whose bytes then follow in the
// run's long stream for the partition).
type hrec struct {
	h, pos uint64
}

const (
	longClass = 9 // a token of more than 8 bytes
	posBits   = 56
	posMask   = 1<<posBits - 1
)

// hrun is what member r makes of its run of documents in phase 1.
type hrun struct {
	sp   text.Spans
	recs [maxParts][]hrec // by partition
	// long[p] holds the bytes of partition p's long tokens, in the order of
	// its records: each the length (8 bytes), then the bytes, padded to 8.
	long [maxParts][]byte
	ends []int64   // ends[i]: the position after the run's document i's tokens
	_    [128]byte // apart from the next member's
}

// hpart is one partition's vocabulary, built in phase 2.
type hpart struct {
	slots  []hslot // open addressing, linear probing, at most half full
	n      int
	key    []kspan  // by id: a long token's bytes are keys[lo:hi]
	keys   []byte   //
	dl     []uint64 // by id: last document (high half, −1: none) | df
	m      int32    // ids < m are query terms
	tf     []int32  // tf[k*N+d]: count of query term k in document d; 8 spare slots after
	order  []int32  // order[:norder]: ids by first occurrence in a document
	first  []int64  // their positions in the text
	fdf    []int32  // their document frequencies
	norder int
	_      [128]byte // apart from the next member's
}

type kspan struct{ lo, hi int32 }

// hslot is a table entry: the hash, and meta = id+1 | class<<32; meta 0 is
// an empty slot.
type hslot struct{ h, meta uint64 }

// hashed is one Score's state; pooled.
type hashed struct {
	runs  [maxParts]hrun
	parts [maxParts]hpart
	base  [maxParts + 1]int64 // the position of run r's first token
	qsp   text.Spans
	qh    []uint64 // the query tokens' hashes
	qcls  []uint64 // their classes
	qkey  []int32  // a long token's bytes are qkeys[qkey[k]:qkey[k+1]]
	qkeys []byte
	qref  []int32 // their ids in their partitions
	dlen  []int32
	dense [maxParts][]int32 // phase 3: segment r's dfs by position
	outs  [maxParts][]int32 // phase 3: segment r's dfs in order of position

	logs, idf, norm []float64
	need            []int32
}

var hashedPool = sync.Pool{New: func() any { return new(hashed) }}

// partOf is the partition of hash h among np: the multiply-shift reduction
// of its high half, as the tables index by the low bits.
func partOf(h uint64, np int) int { return int((h >> 32) * uint64(np) >> 32) }

// scoreHashed is score for a tokeniser without pair tokens, with the
// vocabulary split by hash into np partitions (2 ≤ np ≤ maxParts), one
// per member of s.Team.
func (s *BM25) scoreHashed(scores []float64, query string, docs []string, np int) ([]float64, error) {
	st := hashedPool.Get().(*hashed)
	defer hashedPool.Put(st)
	n := len(docs)

	cut := byteRuns(docs, np)

	// The query's tokens, hashed here; each member enters its own.
	st.hashQuery(s.Tokenizer, query)

	st.dlen = slices.Grow(st.dlen[:0], n)[:n]
	s.Team.Run(np, func(r int) { st.tokenize(s.Tokenizer, docs, cut[r], cut[r+1], r, np) })
	for r := range np {
		st.base[r+1] = st.base[r] + st.runs[r].ends[len(st.runs[r].ends)-1]
	}
	s.Team.Run(np, func(p int) { st.intern(p, np, &cut) })
	s.Team.Run(np, func(r int) { st.sort(r, np) })

	v := 0
	for p := range np {
		v += st.parts[p].norder
	}
	if v == 0 {
		return scores, nil
	}

	// idf in rank_bm25's order, as score does: the segments' dfs in turn
	// are every token's in order of first occurrence. idf[k] is the idf of
	// df k, the same operations as score's.
	logs := grow(&st.logs, n+1)
	need := st.need[:0]
	for k := range int32(n + 1) {
		need = append(need, k)
	}
	lnHalfInto(logs, need)
	st.need = need
	idf := grow(&st.idf, n+1)
	for k := 1; k <= n; k++ {
		idf[k] = logs[n-k] - logs[k]
	}
	sum := 0.0
	for r := range np {
		for _, df := range st.outs[r] {
			sum += idf[df]
		}
	}
	eps := s.Epsilon * (sum / float64(v))

	tot := 0
	for _, l := range st.dlen {
		tot += int(l)
	}
	avgdl := float64(tot) / float64(n)
	norm := grow(&st.norm, n)
	for d, l := range st.dlen {
		norm[d] = s.lengthNorm(l, avgdl)
	}
	k1p1 := s.K1 + 1
	for k, h := range st.qh {
		pt := &st.parts[partOf(h, np)]
		id := st.qref[k]
		df := int32(uint32(pt.dl[id]))
		if df == 0 {
			continue // in no document
		}
		w := idf[df]
		if w < 0 {
			w = eps
		}
		addTerm(scores, pt.tf[int(id)*n:][:n], norm, w, k1p1)
	}
	return scores, nil
}

// tokenize is phase 1 for run r: docs[lo:hi] tokenised and hashed into
// np streams.
func (st *hashed) tokenize(tok text.Tokenizer, docs []string, lo, hi, r, np int) {
	run := &st.runs[r]
	// The streams are written through locals: an append through run's
	// slice headers stores and reloads them for every token.
	var recs [maxParts][]hrec
	var lens [maxParts]int
	for p := range np {
		run.long[p] = run.long[p][:0]
	}
	run.ends = run.ends[:0]
	pos := uint64(0)
	for d := lo; d < hi; d++ {
		sp := &run.sp
		sp.Tokenize(tok, docs[d])
		b := sp.Bytes[:cap(sp.Bytes)] // 8 bytes of slack after every token
		bounds := sp.Bounds
		nt := len(bounds) / 2
		if len(sp.Pairs) > 0 {
			panic("lexical: scoreHashed with a tokeniser of pair tokens")
		}
		st.dlen[d] = int32(nt)
		for p := range np {
			if lens[p]+nt > cap(run.recs[p]) {
				run.recs[p] = slices.Grow(run.recs[p][:lens[p]], nt)
			}
			recs[p] = run.recs[p][:cap(run.recs[p])]
		}
		for k := 0; k+1 < len(bounds); k += 2 {
			lo, hi := int(bounds[k]), int(bounds[k+1])
			n := hi - lo
			// hashToken, inline (see there).
			w := binary.LittleEndian.Uint64(b[lo : lo+8])
			var h uint64
			class := uint64(n)
			if n <= 8 {
				w &= ^uint64(0) >> (64 - 8*uint(n))
				h = (w ^ uint64(n)*hashM2) * hashM1
				h ^= h >> 32
			} else {
				h = hashLong(b, lo, hi, w)
				class = longClass
				run.longBytes(partOf(h, np), b[lo:hi])
			}
			p := partOf(h, np)
			// Field by field: a struct literal is built on the stack and
			// copied with wide loads of narrow stores, which stall.
			e := &recs[p][lens[p]]
			e.h, e.pos = h, pos|class<<posBits
			lens[p]++
			pos++
		}
		run.ends = append(run.ends, int64(pos))
	}
	for p := range np {
		run.recs[p] = run.recs[p][:lens[p]]
	}
	if len(run.ends) == 0 {
		run.ends = append(run.ends, 0)
	}
}

// hashQuery sets the query's tokens: their hashes, classes and keys.
func (st *hashed) hashQuery(tok text.Tokenizer, query string) {
	qs := &st.qsp
	qs.Tokenize(tok, query)
	qb := qs.Bytes[:cap(qs.Bytes)]
	nq := qs.Len()
	st.qh = slices.Grow(st.qh[:0], nq)[:nq]
	st.qcls = slices.Grow(st.qcls[:0], nq)[:nq]
	st.qref = slices.Grow(st.qref[:0], nq)[:nq]
	st.qkey = append(st.qkey[:0], 0)
	st.qkeys = st.qkeys[:0]
	for k := range nq {
		lo, hi := int(qs.Bounds[2*k]), int(qs.Bounds[2*k+1])
		st.qh[k], _ = hashToken(qb, lo, hi)
		st.qcls[k] = uint64(min(hi-lo, longClass))
		if st.qcls[k] == longClass {
			st.qkeys = append(st.qkeys, qb[lo:hi]...)
		}
		st.qkey = append(st.qkey, int32(len(st.qkeys)))
	}
}

// longBytes appends b, a token of more than 8 bytes, to the long stream
// for partition p.
func (run *hrun) longBytes(p int, b []byte) {
	l := run.long[p]
	at := len(l)
	l = slices.Grow(l, 8+len(b)+8)[:at+8+(len(b)+7)&^7]
	binary.LittleEndian.PutUint64(l[at:], uint64(len(b)))
	copy(l[at+8:], b)
	run.long[p] = l
}

// intern is phase 2 for partition p: the query's tokens of p first, in
// order, so that they are ids 0…m−1, then every run's records for p in
// turn, so in the order of the text.
func (st *hashed) intern(p, np int, cut *[maxParts + 1]int) {
	pt := &st.parts[p]
	if pt.slots == nil {
		pt.slots = make([]hslot, 1<<11)
	} else if pt.n > 0 {
		clear(pt.slots)
	}
	pt.n = 0
	pt.key, pt.keys, pt.dl = pt.key[:0], pt.keys[:0], pt.dl[:0]
	pt.order = append(pt.order[:0], 0) // one spare: order[norder] is written ahead
	pt.first = append(pt.first[:0], 0)

	for k, h := range st.qh {
		if partOf(h, np) == p {
			st.qref[k] = pt.find(h, st.qcls[k], st.qkeys[st.qkey[k]:st.qkey[k+1]])
		}
	}
	pt.m = int32(len(pt.key))
	ndocs := cut[np]
	grow(&pt.tf, int(pt.m)*ndocs+8)

	m, tf := pt.m, pt.tf
	spare := int(m) * ndocs
	no := 0
	for r := range np {
		run := &st.runs[r]
		recs, long, ends := run.recs[p], run.long[p], run.ends
		base := st.base[r]
		li, e, d := 0, 0, int32(cut[r])
		nids := len(pt.key)
		order, first, dl := pt.order, pt.first, pt.dl
		for k, rec := range recs {
			pos := int64(rec.pos & posMask)
			for pos >= ends[e] {
				e++
				d++
			}
			class := rec.pos >> posBits
			var id int32
			if class < longClass {
				id = pt.find(rec.h, class, nil)
			} else {
				n := int(binary.LittleEndian.Uint64(long[li:]))
				id = pt.find(rec.h, class, long[li+8:li+8+n])
				li += 8 + (n+7)&^7
			}
			if int(id) >= nids { // new: the arrays may have moved
				nids = len(pt.key)
				order, first, dl = pt.order, pt.first, pt.dl
			}
			v := dl[id]
			order[no] = id
			first[no] = base + pos
			no += int(v >> 63) // first in any document
			t := int(id)*ndocs + int(d)
			if id >= m {
				t = spare + k&7
			}
			tf[t]++
			dl[id] = countDoc(v, d)
		}
	}
	pt.norder = no
	fdf := slices.Grow(pt.fdf[:0], no)[:no]
	for k, id := range pt.order[:no] {
		fdf[k] = int32(uint32(pt.dl[id]))
	}
	pt.fdf = fdf
}

// find returns the id of the token hashed to h, of the class, entering it
// when new; b is its bytes when it is long (other tokens need none: their
// hash and class are them).
func (pt *hpart) find(h, class uint64, b []byte) int32 {
	mask := uint64(len(pt.slots) - 1)
	meta := class << 32
	i := h & mask
	for {
		sl := pt.slots[i]
		if sl.meta == 0 {
			break
		}
		if sl.h == h && sl.meta&^0xffffffff == meta {
			c := int32(uint32(sl.meta)) - 1
			if class < longClass {
				return c
			}
			if e := pt.key[c]; bytes.Equal(pt.keys[e.lo:e.hi], b) {
				return c
			}
		}
		i = (i + 1) & mask
	}
	return pt.insert(h, meta, b, i)
}

// insert gives the token hashed to h the next id, in slot free (the empty
// slot its probe ended at) with meta's class; b is its bytes when it is
// long.
func (pt *hpart) insert(h, meta uint64, b []byte, free uint64) int32 {
	id := int32(len(pt.key))
	var e kspan
	if meta>>32 >= longClass {
		e.lo = int32(len(pt.keys))
		pt.keys = append(pt.keys, b...)
		e.hi = int32(len(pt.keys))
	}
	pt.key = append(pt.key, e)
	pt.dl = append(pt.dl, 0xffffffff<<32) // last −1, df 0
	pt.order = append(pt.order, 0)        // len(order) > the ids it will hold
	pt.first = append(pt.first, 0)
	if 2*(pt.n+1) > len(pt.slots) {
		old := pt.slots
		pt.slots = make([]hslot, 2*len(old))
		mask := uint64(len(pt.slots) - 1)
		for _, sl := range old {
			if sl.meta != 0 {
				i := sl.h & mask
				for pt.slots[i].meta != 0 {
					i = (i + 1) & mask
				}
				pt.slots[i] = sl
			}
		}
		free = h & mask
		for pt.slots[free].meta != 0 {
			free = (free + 1) & mask
		}
	}
	pt.slots[free] = hslot{h, meta | uint64(id+1)}
	pt.n++
	return id
}

// sort is phase 3 for segment r of the positions: the first positions in
// it, from every partition, put in order, with their dfs into outs[r].
func (st *hashed) sort(r, np int) {
	total := st.base[np]
	lo, hi := total*int64(r)/int64(np), total*int64(r+1)/int64(np)
	dense := grow(&st.dense[r], int(hi-lo))
	for p := range np {
		pt := &st.parts[p]
		first := pt.first[:pt.norder]
		a := sort.Search(len(first), func(i int) bool { return first[i] >= lo })
		b := a + sort.Search(len(first)-a, func(i int) bool { return first[a+i] >= hi })
		for k := a; k < b; k++ {
			dense[first[k]-lo] = pt.fdf[k]
		}
	}
	out := slices.Grow(st.outs[r][:0], len(dense))[:len(dense)]
	j := 0
	for _, df := range dense {
		out[j] = df
		j += int(uint32(-df) >> 31) // df ≥ 0: 1 unless 0
	}
	st.outs[r] = out[:j]
}
