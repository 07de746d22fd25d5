// Package simjoin is an exact Jaccard similarity self-join with prefix
// filtering (AllPairs, Bayardo et al. 2007; PPJoin, Xiao et al. 2008): for a
// query record it finds every other record whose Jaccard similarity exceeds a
// threshold t, without scoring all N² pairs. The pairs stage uses it for
// summary relevance, sim_summ > τ_summ (SPEC §3 "Pairs and selection").
//
// Records are sets of token ids (sorted, de-duplicated []int32). For records r
// and s of sizes a = |r|, b = |s| with overlap o = |r ∩ s|,
//
//	J(r, s) = o / (a + b − o),
//
// and a pair matches when J(r, s) > t, strictly. "J > t" is decided on the
// float64 value that is reported, Sim = float64(o)/float64(a+b−o) (the
// correctly rounded quotient of exact integers), so every Match has Sim > t,
// and a pair whose similarity rounds to t itself (J = 3/10 at t = 0.3, J = 1/3
// at t = 1.0/3) is excluded. For a t that is a dyadic fraction such as 0.5 or
// 0.25 this is the exact rational test o/(a+b−o) > t; in general it differs
// from that test only on pairs with float64(J) == t. Every filter below is an
// integer bound derived from that one predicate by exact search over the
// integers, never by rounding t·n, so the join returns exactly the pairs that
// brute force returns.
//
// The filters, with n = a + b:
//
//   - Overlap bound: J > t ⇔ o ≥ minO(n), the least o with
//     float64(o)/float64(n−o) > t; for the exact rational test that is
//     o > t/(1+t)·n. minO is non-decreasing in n.
//   - Size filter: a pair can only match if o = min(a, b) can, that is
//     min(a,b)/max(a,b) > t: t·a < b < a/t.
//   - Prefix filter: with the tokens of all records in one global order, if
//     o ≥ α and o ≥ β then the first a − α + 1 tokens of r and the first
//     b − β + 1 tokens of s share a token (the first shared token has o − 1
//     shared tokens after it in each record). The records are indexed twice:
//     by their long prefix, a − α(a) + 1 tokens with α(a) the least minO(a+b)
//     over the sizes b that can match a (about ⌊t·a⌋ + 1, so about a − ⌊t·a⌋
//     tokens), and by their short prefix, a − minO(2a) + 1 tokens (about
//     a − ⌈2t/(1+t)·a⌉ + 1), which suffices for partners no smaller than the
//     record since minO(a+b) ≥ minO(2a) when b ≥ a. A query probes its long
//     prefix against the short prefixes of the records no larger than it, and
//     its short prefix against the long prefixes of the larger ones, and at
//     position p only for the sizes b with minO(a+b) ≤ a − p (the first shared
//     token of a match of size b is among r's first a − minO(a+b) + 1).
//   - Signature filter: each posting carries a 128-bit signature of its
//     record, which bounds o without reading the record (see signature);
//     postings that fail it are skipped.
//   - Positional filter (PPJoin): if the shared tokens found so far number c
//     and the last is at positions p in r and q in s (0-based), then
//     o ≤ c + 1 + min(a−p−1, b−q−1) when the next one is found.
//   - After the probe, every shared token not yet found lies beyond the part of
//     r probed for size b (length P) or beyond s's indexed prefix (length Q),
//     and since both records are in one order either all of them lie beyond
//     r's part or all beyond s's, so o ≤ c + max(min(a−P, b−q−1),
//     min(b−Q, a−p−1)).
//
// Candidates that survive are verified exactly: o = c + the number of tokens
// of s after position q that are in r (looked up in a bit set of r's tokens,
// or by a merge when ids are too sparse for one). Skipping a posting, or
// dropping a candidate, is only ever done when a bound shows the pair cannot
// match, so the result is exact. Prefix filtering prunes best when rare tokens
// come first, so records should be re-ranked with Rank before Build.
//
// Cost: the index holds (long + short prefix length) postings of 36 bytes per
// record, plus the records; each concurrent query keeps 8 bytes per record of
// scratch, plus a bit per token id. Query time grows with the number of
// records sharing a prefix token with the query, which at low thresholds (the
// long prefix of a record of 12 is 10 tokens at t = 0.211) is a sizeable
// fraction of N, so a whole join stays quadratic, with a small constant.
//
// docs/algorithms.md#pairs-calibration-and-selection-pairs-calibrate-select
// specifies the pairs stage it serves (through lib/relevance).
package simjoin

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
)

// Match is one record that matches a query, with its Jaccard similarity.
type Match struct {
	Doc int32   // the record's index in the slice given to Build
	Sim float64 // float64(o) / float64(|r|+|s|−o), > the threshold
}

// Index is a prefix index over a set of records for one threshold. It is
// immutable once built, and safe for concurrent Query calls.
type Index struct {
	t    float64
	off  []int   // record i is toks[off[i]:off[i+1]]
	toks []int32 // all records, concatenated

	minO  []int32 // minO[n], n = a+b ≤ 2·maxSize: least overlap with J > t; ⌊n/2⌋+1 when none
	bmin  []int32 // bmin[a]: least size b that can match a record of size a
	bmax  []int32 // bmax[a]: largest size b (≤ maxSize) that can match size a
	long  []int32 // long[a]: long prefix length of a record of size a, a − α(a) + 1
	short []int32 // short[a]: short prefix length, a − minO(2a) + 1

	longIdx, shortIdx postings // the long and the short prefixes, inverted
	bitWords          int      // words of a bit set over all token ids; 0 when ids are too sparse

	scratch sync.Pool // *scratch
}

// postings are the inverted lists of one set of prefixes, grouped by token
// and, within a token, sorted by (record size, record). Token tok's list is
// post[dense[tok]:dense[tok+1]] when dense is not nil; otherwise
// post[keyOff[k]:keyOff[k+1]] for keys[k] == tok.
type postings struct {
	post   []posting
	sizes  []int32 // sizes[k] == post[k].size, searched for the size window
	dense  []int32
	keys   []int32
	keyOff []int32
}

type posting struct {
	doc   int32     // record
	pos   int32     // position of the token in the record
	size  int32     // the record's size
	start uint32    // where the record starts in Index.toks
	sig   signature // the record's signature
}

// signature is a 128-bit summary of a set r: bit h(x) is set for each token x
// of r, h(x) being the top 7 bits of the 64-bit product x·⌊2⁶⁴/φ⌋ (Fibonacci
// hashing). Each bit of sig(s) &^ sig(r) is the hash of a token of s that is
// not in r, a different token for each bit, so
//
//	|r ∩ s| ≤ min(|r| − popcount(sig(r) &^ sig(s)), |s| − popcount(sig(s) &^ sig(r))).
type signature [2]uint64

func signatureOf(r []int32) signature {
	var sig signature
	for _, tok := range r {
		h := uint64(uint32(tok)) * 0x9E3779B97F4A7C15 >> 57
		sig[h>>6] |= 1 << (h & 63)
	}
	return sig
}

// maxOverlap returns the bound above on the overlap of sets of sizes a and b
// with signatures x and y.
func maxOverlap(a, b int, x, y signature) int {
	return min(a-bits.OnesCount64(x[0]&^y[0])-bits.OnesCount64(x[1]&^y[1]),
		b-bits.OnesCount64(y[0]&^x[0])-bits.OnesCount64(y[1]&^x[1]))
}

// scratch is one query's working memory, pooled so that concurrent queries
// each have their own.
type scratch struct {
	mark  []mark // mark[j].gen == gen: record j is the candidate cands[mark[j].slot]
	gen   uint32
	cands []cand
	bits  []uint64 // the query's tokens as a bit set, when ids are dense
	out   []Match  // matches, unsorted
	keys  []uint64 // for sortByDoc
}

type mark struct {
	gen  uint32
	slot int32
}

// cand is a candidate record of a query.
type cand struct {
	doc   int32
	count int32 // shared tokens found in the prefixes; −1 once pruned
	p, q  int32 // positions in the query and in the candidate of the last one found
	start uint32
	size  int32
}

// Rank relabels token ids by ascending document frequency (the number of
// records holding them; ties by ascending id), so the rarest token becomes 0,
// and returns the relabelled records, each sorted ascending. Ids may be any
// int32; the result uses 0..V−1 for the V distinct ids. Jaccard similarities
// are unchanged by the relabelling, and Build expects records ranked this way:
// its prefixes then hold each record's rarest tokens, which keeps posting
// lists short. Records must be sets (sorted or not, but without repeats); the
// input is not modified.
func Rank(records [][]int32) [][]int32 {
	total := 0
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	for _, r := range records {
		total += len(r)
		for _, tok := range r {
			lo, hi = min(lo, tok), max(hi, tok)
		}
	}
	out := make([][]int32, len(records))
	if total == 0 {
		for i, r := range records {
			if r != nil {
				out[i] = []int32{}
			}
		}
		return out
	}
	// Document frequency and rank of each id, in a slice indexed by id − lo
	// when the id range is small, in a map otherwise.
	var rankOf func(int32) int32
	type idDF struct{ id, df int32 }
	var ids []idDF
	byDF := func(a, b idDF) int { return cmp.Or(cmp.Compare(a.df, b.df), cmp.Compare(a.id, b.id)) }
	if span := int64(hi) - int64(lo) + 1; span <= 2*int64(total)+1<<16 {
		df := make([]int32, span)
		for _, r := range records {
			for _, tok := range r {
				df[tok-lo]++
			}
		}
		for k, c := range df {
			if c > 0 {
				ids = append(ids, idDF{lo + int32(k), c})
			}
		}
		slices.SortFunc(ids, byDF)
		for k, e := range ids {
			df[e.id-lo] = int32(k)
		}
		rankOf = func(tok int32) int32 { return df[tok-lo] }
	} else {
		df := make(map[int32]int32)
		for _, r := range records {
			for _, tok := range r {
				df[tok]++
			}
		}
		for id, c := range df {
			ids = append(ids, idDF{id, c})
		}
		slices.SortFunc(ids, byDF)
		for k, e := range ids {
			df[e.id] = int32(k)
		}
		rankOf = func(tok int32) int32 { return df[tok] }
	}
	buf := make([]int32, total)
	at := 0
	for i, r := range records {
		o := buf[at : at+len(r) : at+len(r)]
		at += len(r)
		for k, tok := range r {
			o[k] = rankOf(tok)
		}
		slices.Sort(o)
		if r != nil {
			out[i] = o
		}
	}
	return out
}

// Build indexes records for the threshold t, 0 ≤ t < 1. Each record must be a
// set of non-negative token ids, sorted ascending without repeats; ranked by
// Rank first (rare tokens first) for speed, though any global order gives the
// same, exact, result. Build copies the records. It panics on a t outside
// [0, 1), an unsorted or repeated or negative token, or more than 2³¹−1
// records. Empty records are allowed and never match.
func Build(records [][]int32, t float64) *Index {
	if !(t >= 0 && t < 1) {
		panic(fmt.Sprintf("simjoin: Build: threshold %v outside [0, 1)", t))
	}
	if len(records) > math.MaxInt32 {
		panic(fmt.Sprintf("simjoin: Build: %d records, more than 2^31-1", len(records)))
	}
	if total := sumLen(records); total > math.MaxUint32 {
		panic(fmt.Sprintf("simjoin: Build: %d tokens, more than 2^32-1", total))
	}
	n := len(records)
	x := &Index{t: t, off: make([]int, n+1)}
	total, maxSize := 0, 0
	for i, r := range records {
		for k, tok := range r {
			if tok < 0 || (k > 0 && tok <= r[k-1]) {
				panic(fmt.Sprintf("simjoin: Build: record %d is not a sorted set of non-negative ids at position %d", i, k))
			}
		}
		if len(r) > math.MaxInt32/4 {
			panic(fmt.Sprintf("simjoin: Build: record %d has %d tokens", i, len(r)))
		}
		total += len(r)
		maxSize = max(maxSize, len(r))
		x.off[i+1] = total
	}
	x.toks = make([]int32, 0, total)
	for _, r := range records {
		x.toks = append(x.toks, r...)
	}
	x.bounds(maxSize)

	// Order the records by (size, index) with a counting sort on size; lists
	// filled in that order come out sorted.
	bySize := make([]int, maxSize+2)
	for _, r := range records {
		bySize[len(r)+1]++
	}
	for a := 1; a <= maxSize+1; a++ {
		bySize[a] += bySize[a-1]
	}
	order := make([]int32, n)
	for i, r := range records {
		order[bySize[len(r)]] = int32(i)
		bySize[len(r)]++
	}
	maxAll := int32(-1)
	for _, tok := range x.toks {
		maxAll = max(maxAll, tok)
	}
	if int64(maxAll) < 8*int64(total)+1<<16 { // at most about a byte per token
		x.bitWords = int(maxAll)/64 + 1
	}
	nPost, maxTok := 0, int32(-1)
	for _, r := range records {
		p := x.prefix(x.long, len(r))
		nPost += p
		for _, tok := range r[:p] {
			maxTok = max(maxTok, tok)
		}
	}
	dense := int64(maxTok) < 4*int64(nPost)+1<<16
	x.longIdx = invert(records, x.off, order, x.long, dense, maxTok)
	x.shortIdx = invert(records, x.off, order, x.short, dense, maxTok)
	x.scratch.New = func() any {
		sc := &scratch{mark: make([]mark, n)}
		if x.bitWords > 0 {
			sc.bits = make([]uint64, x.bitWords)
		}
		return sc
	}
	return x
}

func sumLen(records [][]int32) int {
	n := 0
	for _, r := range records {
		n += len(r)
	}
	return n
}

// invert builds the posting lists of the first plen[|r|] tokens of every
// record, taking the records in the given order; record i starts at off[i]
// in Index.toks.
func invert(records [][]int32, off []int, order []int32, plen []int32, dense bool, maxTok int32) postings {
	pre := func(r []int32) []int32 {
		if len(r) == 0 {
			return nil
		}
		return r[:plen[len(r)]]
	}
	var ix postings
	nPost := 0
	for _, r := range records {
		nPost += len(pre(r))
	}
	ix.post = make([]posting, nPost)
	ix.sizes = make([]int32, nPost)
	var next func(tok int32) *int32
	if dense {
		ix.dense = make([]int32, int(maxTok)+2)
		for _, r := range records {
			for _, tok := range pre(r) {
				ix.dense[tok+1]++
			}
		}
		for k := 1; k < len(ix.dense); k++ {
			ix.dense[k] += ix.dense[k-1]
		}
		at := slices.Clone(ix.dense)
		next = func(tok int32) *int32 { return &at[tok] }
	} else {
		count := make(map[int32]int32)
		for _, r := range records {
			for _, tok := range pre(r) {
				count[tok]++
			}
		}
		ix.keys = make([]int32, 0, len(count))
		for tok := range count {
			ix.keys = append(ix.keys, tok)
		}
		slices.Sort(ix.keys)
		ix.keyOff = make([]int32, len(ix.keys)+1)
		at := make(map[int32]*int32, len(count))
		for k, tok := range ix.keys {
			ix.keyOff[k+1] = ix.keyOff[k] + count[tok]
			start := ix.keyOff[k]
			at[tok] = &start
		}
		next = func(tok int32) *int32 { return at[tok] }
	}
	for _, i := range order {
		r := records[i]
		sig, start := signatureOf(r), uint32(off[i])
		for q, tok := range pre(r) {
			k := next(tok)
			ix.post[*k] = posting{doc: i, pos: int32(q), size: int32(len(r)), start: start, sig: sig}
			ix.sizes[*k] = int32(len(r))
			*k++
		}
	}
	return ix
}

// list returns the postings of token tok of sizes in [lo, hi].
func (ix *postings) list(tok, lo, hi int32) []posting {
	var from, to int32
	if ix.dense != nil {
		if int(tok)+1 >= len(ix.dense) {
			return nil
		}
		from, to = ix.dense[tok], ix.dense[tok+1]
	} else {
		k, ok := slices.BinarySearch(ix.keys, tok)
		if !ok {
			return nil
		}
		from, to = ix.keyOff[k], ix.keyOff[k+1]
	}
	sizes := ix.sizes[from:to]
	return ix.post[from+lowerBound(sizes, lo) : from+lowerBound(sizes, hi+1)]
}

// lowerBound returns the first index k of the sorted s with s[k] ≥ v, or len(s).
func lowerBound(s []int32, v int32) int32 {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return int32(lo)
}

// pass reports whether overlap o with union u ≥ 1 is a match: the one
// predicate every bound is derived from.
func (x *Index) pass(o, u int) bool { return float64(o)/float64(u) > x.t }

// bounds fills minO, bmin, bmax, long and short for sizes up to maxSize, each
// by an exact search over the integers with pass, which is monotone:
// increasing in o for a fixed n = o + u, decreasing in u for a fixed o.
func (x *Index) bounds(maxSize int) {
	x.minO = make([]int32, 2*maxSize+1)
	for n := range x.minO {
		half := n / 2 // o ≤ min(a, b) ≤ n/2
		x.minO[n] = int32(1 + sort.Search(half, func(k int) bool { return x.pass(k+1, n-(k+1)) }))
	}
	x.bmin = make([]int32, maxSize+1)
	x.bmax = make([]int32, maxSize+1)
	x.long = make([]int32, maxSize+1)
	x.short = make([]int32, maxSize+1)
	for a := 1; a <= maxSize; a++ {
		// b ≤ a can match iff o = b, u = a passes; b = a always does (1 > t).
		bmin := 1 + sort.Search(a, func(k int) bool { return x.pass(k+1, a) })
		// b ≥ a can match iff o = a, u = b passes.
		bmax := a + sort.Search(maxSize-a+1, func(k int) bool { return !x.pass(a, a+k) }) - 1
		x.bmin[a], x.bmax[a] = int32(bmin), int32(bmax)
		alpha := int(x.minO[a+bmin]) // the least overlap any match of r needs
		x.long[a] = int32(a - alpha + 1)
		x.short[a] = int32(a - int(x.minO[2*a]) + 1)
	}
}

// prefix returns plen[a], or 0 for a = 0.
func (x *Index) prefix(plen []int32, a int) int {
	if a == 0 {
		return 0
	}
	return int(plen[a])
}

// Len returns the number of records.
func (x *Index) Len() int { return len(x.off) - 1 }

// Threshold returns t.
func (x *Index) Threshold() float64 { return x.t }

func (x *Index) record(i int) []int32 { return x.toks[x.off[i]:x.off[i+1]] }

// Query returns every record j ≠ i with Jaccard(records[i], records[j]) > t,
// with its similarity, sorted by j; nil when there is none. An empty record
// matches nothing. It panics if i is not in [0, Len()). See the package
// comment for the filters.
func (x *Index) Query(i int) []Match {
	if i < 0 || i >= x.Len() {
		panic(fmt.Sprintf("simjoin: Query(%d) with %d records", i, x.Len()))
	}
	r := x.record(i)
	a := len(r)
	if a == 0 {
		return nil
	}
	sc := x.scratch.Get().(*scratch)
	defer x.scratch.Put(sc)
	sc.gen++
	if sc.gen == 0 {
		clear(sc.mark)
		sc.gen = 1
	}
	gen := sc.gen
	cands := append(sc.cands[:0], cand{doc: int32(i), count: -1}) // the query itself, pruned
	sc.mark[i] = mark{gen, 0}
	// Two sweeps over disjoint size ranges, so a candidate is met in one only,
	// in increasing position p.
	sweeps := [2]struct {
		ix     *postings
		probe  int32
		lo, hi int32
	}{
		{&x.shortIdx, x.long[a], x.bmin[a], int32(a)},     // partners no larger than r
		{&x.longIdx, x.short[a], int32(a) + 1, x.bmax[a]}, // larger partners
	}
	sig := signatureOf(r)
	for _, sw := range sweeps {
		if sw.lo > sw.hi {
			continue
		}
		hi := sw.hi
		for p, tok := range r[:sw.probe] {
			// A first shared token at p needs minO(a+b) ≤ a − p; minO grows
			// with b, so the sizes left shrink as p grows.
			for hi >= sw.lo && int(x.minO[a+int(hi)]) > a-p {
				hi--
			}
			if hi < sw.lo {
				break
			}
			for _, e := range sw.ix.list(tok, sw.lo, hi) {
				b, q := int(e.size), int(e.pos)
				need := int(x.minO[a+b])
				if maxOverlap(a, b, sig, e.sig) < need {
					continue // cannot match: skipping it only lowers its counts
				}
				var c *cand
				if m := &sc.mark[e.doc]; m.gen != gen {
					*m = mark{gen, int32(len(cands))}
					cands = append(cands, cand{doc: e.doc, start: e.start, size: e.size})
					c = &cands[len(cands)-1]
				} else if c = &cands[m.slot]; c.count < 0 {
					continue
				}
				if int(c.count)+1+min(a-p-1, b-q-1) < need {
					c.count = -1
					continue
				}
				c.count++
				c.p, c.q = int32(p), int32(q)
			}
		}
	}
	set := sc.bits
	if set != nil {
		for _, tok := range r {
			set[tok/64] |= 1 << (tok % 64)
		}
	}
	out := sc.out[:0]
	for _, c := range cands {
		if c.count <= 0 {
			continue
		}
		b, n, p, q := int(c.size), int(c.count), int(c.p), int(c.q)
		need := int(x.minO[a+b])
		P, Q := int(x.long[a]), int(x.short[b])
		if b > a {
			P, Q = int(x.short[a]), int(x.long[b])
		}
		P = min(P, a-need+1) // the positions probed for size b
		if n+max(min(a-P, b-q-1), min(b-Q, a-p-1)) < need {
			continue
		}
		// The shared tokens after q in s are after p in r: count them.
		s := x.toks[int(c.start) : int(c.start)+b]
		o := n
		if set != nil {
			for _, tok := range s[q+1:] {
				o += int(set[tok/64] >> (tok % 64) & 1)
			}
		} else {
			o += overlap(r[p+1:], s[q+1:], need-n)
		}
		if o >= need {
			out = append(out, Match{Doc: c.doc, Sim: float64(o) / float64(a+b-o)})
		}
	}
	if set != nil {
		for _, tok := range r {
			set[tok/64] = 0
		}
	}
	sc.cands, sc.out = cands, out
	return sortByDoc(out, sc)
}

// sortByDoc returns a new slice of the matches sorted by Doc (nil for none),
// sorting keys Doc<<32 | index, which is faster than sorting the structs.
func sortByDoc(out []Match, sc *scratch) []Match {
	if len(out) == 0 {
		return nil
	}
	keys := sc.keys[:0]
	for k, m := range out {
		keys = append(keys, uint64(m.Doc)<<32|uint64(k))
	}
	slices.Sort(keys)
	sorted := make([]Match, len(out))
	for k, key := range keys {
		sorted[k] = out[uint32(key)]
	}
	sc.keys = keys
	return sorted
}

// overlap returns |r ∩ s| for sorted sets r and s, or some smaller number
// once the overlap can no longer reach need.
func overlap(r, s []int32, need int) int {
	o, i, j := 0, 0, 0
	for i < len(r) && j < len(s) {
		if o+min(len(r)-i, len(s)-j) < need {
			return o
		}
		switch {
		case r[i] < s[j]:
			i++
		case r[i] > s[j]:
			j++
		default:
			o++
			i++
			j++
		}
	}
	return o
}
