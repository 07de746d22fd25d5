// Package simjoin is an exact Jaccard similarity self-join with prefix
// filtering (AllPairs, Bayardo et al. 2007; PPJoin, Xiao et al. 2008): for a
// query record it finds every other record whose Jaccard similarity exceeds a
// threshold t, without scoring all N² pairs. The pairs stage uses it for
// summary relevance, sim_summ > τ_summ (SPEC §3 "Pairs and selection").
//
// Records are sets of token ids (sorted, de-duplicated []int32). For records r
// and s with overlap o = |r ∩ s|,
//
//	J(r, s) = o / (|r| + |s| − o),
//
// and a pair matches when J(r, s) > t, strictly. "J > t" is decided on the
// float64 value that is reported, Sim = float64(o)/float64(|r|+|s|−o) (a
// correctly rounded quotient of exact integers), so every Match has Sim > t,
// and a pair whose similarity rounds to t itself (e.g. J = 3/10 at t = 0.3,
// or J = 1/3 at t = 1.0/3) is excluded. For a dyadic t such as 0.5 or 0.25
// this is the same as the exact rational test o/(|r|+|s|−o) > t. All the
// filters below are integer bounds derived from that one predicate by exact
// search over integers, never by rounding t·n, so the join returns exactly the
// pairs that brute force returns.
//
// The filters, for sizes a = |r|, b = |s| and n = a + b:
//
//   - Overlap bound: J > t ⇔ o ≥ minO(n), the least o with
//     float64(o)/float64(n−o) > t (for the exact rational test,
//     o > t/(1+t)·n). minO is non-decreasing in n.
//   - Size filter: the pair can only match if o = min(a, b) can, that is
//     min(a,b)/max(a,b) > t, roughly t·a < b < a/t.
//   - Prefix filter: with tokens in one global order, if o ≥ α then the first
//     |r| − α + 1 tokens of r and the first |s| − α + 1 of s share a token.
//     Record r is indexed and probed with α(a), the smallest minO(a+b) over
//     the sizes b it can match, about ⌊t·a⌋ + 1, so its prefix is about
//     a − ⌊t·a⌋ tokens.
//   - Positional filter: the first shared token, at positions p in r and q in
//     s (0-based), bounds o ≤ 1 + min(a−p−1, b−q−1).
//
// Candidates that survive are verified by merging the rest of the two
// records. Prefix filtering prunes best when rare tokens come first, so
// records should be re-ranked with Rank before Build.
package simjoin

import (
	"cmp"
	"fmt"
	"math"
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

	minO []int32 // minO[n], n = a+b ≤ 2·maxSize: least overlap with J > t; ⌊n/2⌋+1 when none
	bmin []int32 // bmin[a]: least size b that can match a record of size a
	bmax []int32 // bmax[a]: largest size b (≤ maxSize) that can match size a
	pfx  []int32 // pfx[a]: prefix length of a record of size a, a − α(a) + 1

	// Postings of the prefix tokens, grouped by token and, within a token,
	// sorted by (record size, record). Token tok's postings are
	// post[dense[tok]:dense[tok+1]] when dense is not nil; otherwise
	// post[keyOff[k]:keyOff[k+1]] for keys[k] == tok.
	post   []posting
	dense  []int32
	keys   []int32
	keyOff []int32

	scratch sync.Pool // *scratch
}

type posting struct {
	doc  int32 // record
	pos  int32 // position of the token in the record
	size int32 // the record's size
}

type scratch struct {
	stamp []uint32 // stamp[j] == gen: record j already seen by this query
	gen   uint32
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
	n := len(records)
	x := &Index{t: t, off: make([]int, n+1)}
	total, maxSize := 0, 0
	for i, r := range records {
		for k, tok := range r {
			if tok < 0 || (k > 0 && tok <= r[k-1]) {
				panic(fmt.Sprintf("simjoin: Build: record %d is not a sorted set of non-negative ids at position %d", i, k))
			}
		}
		if len(r) > math.MaxInt32/2 {
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

	// Order the records by (size, index) with a counting sort on size, then
	// emit postings in that order: each token's list comes out sorted.
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
	nPost, maxTok := 0, int32(-1)
	for _, r := range records {
		p := x.prefix(len(r))
		nPost += p
		for _, tok := range r[:p] {
			maxTok = max(maxTok, tok)
		}
	}
	x.post = make([]posting, nPost)
	if int64(maxTok) < 4*int64(nPost)+1<<16 {
		// Dense: offsets indexed by token id.
		x.dense = make([]int32, int(maxTok)+2)
		for _, r := range records {
			for _, tok := range r[:x.prefix(len(r))] {
				x.dense[tok+1]++
			}
		}
		for k := 1; k < len(x.dense); k++ {
			x.dense[k] += x.dense[k-1]
		}
		next := slices.Clone(x.dense)
		for _, i := range order {
			r := records[i]
			for q, tok := range r[:x.prefix(len(r))] {
				x.post[next[tok]] = posting{doc: i, pos: int32(q), size: int32(len(r))}
				next[tok]++
			}
		}
	} else {
		// Sparse ids: a sorted key list searched by binary search.
		count := make(map[int32]int32)
		for _, r := range records {
			for _, tok := range r[:x.prefix(len(r))] {
				count[tok]++
			}
		}
		x.keys = make([]int32, 0, len(count))
		for tok := range count {
			x.keys = append(x.keys, tok)
		}
		slices.Sort(x.keys)
		x.keyOff = make([]int32, len(x.keys)+1)
		next := make(map[int32]int32, len(count))
		for k, tok := range x.keys {
			next[tok] = x.keyOff[k]
			x.keyOff[k+1] = x.keyOff[k] + count[tok]
		}
		for _, i := range order {
			r := records[i]
			for q, tok := range r[:x.prefix(len(r))] {
				x.post[next[tok]] = posting{doc: i, pos: int32(q), size: int32(len(r))}
				next[tok]++
			}
		}
	}
	x.scratch.New = func() any { return &scratch{stamp: make([]uint32, n)} }
	return x
}

// pass reports whether overlap o with union u ≥ 1 is a match: the one
// predicate every bound is derived from.
func (x *Index) pass(o, u int) bool { return float64(o)/float64(u) > x.t }

// bounds fills minO, bmin, bmax and pfx for sizes up to maxSize, each by an
// exact search over the integers with pass, which is monotone: increasing in
// o for a fixed n = o + u, decreasing in u for a fixed o.
func (x *Index) bounds(maxSize int) {
	x.minO = make([]int32, 2*maxSize+1)
	for n := range x.minO {
		half := n / 2 // o ≤ min(a, b) ≤ n/2
		x.minO[n] = int32(1 + sort.Search(half, func(k int) bool { return x.pass(k+1, n-(k+1)) }))
	}
	x.bmin = make([]int32, maxSize+1)
	x.bmax = make([]int32, maxSize+1)
	x.pfx = make([]int32, maxSize+1)
	for a := 1; a <= maxSize; a++ {
		// b ≤ a can match iff o = b, u = a passes; b = a always does (1 > t).
		bmin := 1 + sort.Search(a, func(k int) bool { return x.pass(k+1, a) })
		// b ≥ a can match iff o = a, u = b passes.
		bmax := a + sort.Search(maxSize-a+1, func(k int) bool { return !x.pass(a, a+k) }) - 1
		x.bmin[a], x.bmax[a] = int32(bmin), int32(bmax)
		alpha := int(x.minO[a+bmin]) // the least overlap any match of r needs
		x.pfx[a] = int32(a - alpha + 1)
	}
}

// prefix returns the prefix length of a record of size a (0 for a = 0).
func (x *Index) prefix(a int) int {
	if a == 0 {
		return 0
	}
	return int(x.pfx[a])
}

// Len returns the number of records.
func (x *Index) Len() int { return len(x.off) - 1 }

// Threshold returns t.
func (x *Index) Threshold() float64 { return x.t }

func (x *Index) record(i int) []int32 { return x.toks[x.off[i]:x.off[i+1]] }

func (x *Index) postings(tok int32) []posting {
	if x.dense != nil {
		if int(tok)+1 >= len(x.dense) {
			return nil
		}
		return x.post[x.dense[tok]:x.dense[tok+1]]
	}
	k, ok := slices.BinarySearch(x.keys, tok)
	if !ok {
		return nil
	}
	return x.post[x.keyOff[k]:x.keyOff[k+1]]
}

// Query returns every record j ≠ i with Jaccard(records[i], records[j]) > t,
// with its similarity, sorted by j; nil when there is none. An empty record
// matches nothing. It panics if i is not in [0, Len()).
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
		clear(sc.stamp)
		sc.gen = 1
	}
	gen := sc.gen
	sc.stamp[i] = gen
	lo, hi := x.bmin[a], x.bmax[a]
	var out []Match
	for p, tok := range r[:x.pfx[a]] {
		list := x.postings(tok)
		k, _ := slices.BinarySearchFunc(list, lo, func(e posting, size int32) int { return cmp.Compare(e.size, size) })
		for _, e := range list[k:] {
			if e.size > hi {
				break
			}
			if sc.stamp[e.doc] == gen {
				continue
			}
			// First time j is seen: tok is the first token r and s share,
			// since any earlier shared token is in both prefixes too.
			sc.stamp[e.doc] = gen
			b, q := int(e.size), int(e.pos)
			need := int(x.minO[a+b])
			if 1+min(a-p-1, b-q-1) < need {
				continue
			}
			s := x.record(int(e.doc))
			o := 1 + overlap(r[p+1:], s[q+1:], need-1)
			if o >= need {
				out = append(out, Match{Doc: e.doc, Sim: float64(o) / float64(a+b-o)})
			}
		}
	}
	slices.SortFunc(out, func(m, n Match) int { return cmp.Compare(m.Doc, n.Doc) })
	return out
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
