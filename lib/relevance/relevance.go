// Package relevance finds, for a query document of a corpus, every
// document whose topic similarity (BMA of Lin over the ontology tree)
// or summary similarity (Jaccard of core-idea tokens) exceeds its floor
// threshold (paper §3.2.2, §3.3, §3.4; SPEC §3 "Pairs and selection").
// It is exact — the same set a brute-force scan gives — but never scores
// all N² pairs:
//
//   - Summaries: an exact Jaccard similarity join with prefix filtering
//     (lib/simjoin) over summtok token sets.
//   - Topics: sim_topic(x, y) > τ needs some t ∈ x, u ∈ y with
//     Lin(t, u) > τ, since BMA averages maxima of Lin. With a = lca(t, u),
//     IC(u) ≥ IC(a) (IC never decreases going down), so
//     2·IC(a) > τ·(IC(t)+IC(u)) ≥ τ·(IC(t)+IC(a)), i.e.
//     IC(a) > τ/(2−τ)·IC(t). So only documents with a topic under an
//     ancestor a of a query topic t (t itself included) with
//     IC(a) > τ/(2−τ)·IC(t) can qualify; they come from per-node posting
//     lists, and each is then scored exactly. Going up from t, IC only
//     falls, so the walk stops at the first ancestor that fails the bound.
//
// docs/algorithms.md#pairs-calibration-and-selection-pairs-calibrate-select
// specifies the pairs stage that calls it: the floors, and what it writes.
package relevance

import (
	"cmp"
	"slices"
	"sort"
	"sync"

	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/simjoin"
	"github.com/saber-math/saber/lib/summtok"
)

// Corpus is what the finder needs of every document, in id order.
type Corpus struct {
	IDs    []string
	Topics [][]int    // tree nodes
	Tokens [][]string // summary token sets (sorted)
	Tree   *ontology.Tree
	IC     []float64
}

// NewCorpus builds the corpus of the documents with topics or summary
// tokens (a document with neither is no one's pair), in id order, and the
// information content of the tree's nodes from the documents' topics.
func NewCorpus(tree *ontology.Tree, topics map[string][]int, tokens map[string][]string) *Corpus {
	ids := make([]string, 0, len(topics)+len(tokens))
	for id := range topics {
		ids = append(ids, id)
	}
	for id := range tokens {
		if _, ok := topics[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	c := &Corpus{IDs: ids, Tree: tree, Topics: make([][]int, len(ids)), Tokens: make([][]string, len(ids))}
	for i, id := range ids {
		c.Topics[i], c.Tokens[i] = topics[id], tokens[id]
	}
	c.IC = ontology.InformationContent(tree, c.Topics)
	return c
}

// Finder answers queries against a loaded corpus. It is safe for
// concurrent Query calls.
type Finder struct {
	c          *Corpus
	tauT, tauS float64
	summ       *simjoin.Index
	recs       [][]int32 // summary token sets as sorted ranked ids (Jaccard as summtok's)
	post       [][]int32 // tree node → documents with a topic at or under it
	packed     []packedTopics
	scratch    sync.Pool // *scratch, one per concurrent query
}

// packedTopics holds a document's topics inline when it has at most
// len(t) of them (n < 0: read Corpus.Topics): a query scores thousands of
// topic candidates scattered over the corpus, and reading each one's topics
// through a slice header cost a second cache miss per candidate. 32 bytes,
// so that one never straddles two cache lines.
type packedTopics struct {
	n int32
	t [7]int32
}

// topicsOf returns document d's topics as int32: a slice of its packed
// copy when it has one (nothing copied; not to be appended to), else
// copied into *buf.
func (f *Finder) topicsOf(d int32, buf *[]int32) []int32 {
	p := &f.packed[d]
	if p.n >= 0 {
		return p.t[:p.n]
	}
	*buf = (*buf)[:0]
	for _, t := range f.c.Topics[d] {
		*buf = append(*buf, int32(t))
	}
	return *buf
}

// scratch marks the documents a query has seen with a stamp per query
// instead of clearing maps: Query runs once per document, so per-call maps
// were a large share of its time.
type scratch struct {
	stamp []uint32 // document → the query number that last saw it
	slot  []int32  // document → its index in hits, valid when stamped
	n     uint32
	cands []int32
	hits  []hit
	lin   ontology.LinRows // the query's topics against every node
	tops  []int32          // a candidate's topics when they are not packed
}

type hit struct {
	doc         int32
	topic, summ float64
	hasT, hasS  bool
}

// NewFinder indexes the corpus for the two floors.
func NewFinder(c *Corpus, tauT, tauS float64) *Finder {
	f := &Finder{c: c, tauT: tauT, tauS: tauS, post: make([][]int32, c.Tree.Len())}
	vocab := map[string]int32{}
	records := make([][]int32, len(c.IDs))
	for i, toks := range c.Tokens {
		for _, t := range toks {
			id, ok := vocab[t]
			if !ok {
				id = int32(len(vocab))
				vocab[t] = id
			}
			records[i] = append(records[i], id)
		}
		sort.Slice(records[i], func(a, b int) bool { return records[i][a] < records[i][b] })
	}
	f.packed = make([]packedTopics, len(c.IDs))
	for i, ts := range c.Topics {
		p := &f.packed[i]
		if len(ts) > len(p.t) {
			p.n = -1
			continue
		}
		p.n = int32(len(ts))
		for k, t := range ts {
			p.t[k] = int32(t)
		}
	}
	f.recs = simjoin.Rank(records)
	f.summ = simjoin.Build(f.recs, tauS)
	n := len(c.IDs)
	f.scratch.New = func() any { return &scratch{stamp: make([]uint32, n), slot: make([]int32, n)} }
	root := c.Tree.Root()
	for i, ts := range c.Topics {
		seen := map[int]bool{}
		for _, t := range ts {
			for a := t; a != root && a >= 0; a = c.Tree.Parent(a) {
				if seen[a] {
					break
				}
				seen[a] = true
				f.post[a] = append(f.post[a], int32(i))
			}
		}
	}
	return f
}

// Pair is a document whose similarity to a query passes a floor.
type Pair struct {
	Doc               string
	SimTopic, SimSumm float64
	// Category is CategoryTopic, CategorySummary or CategoryBoth.
	Category string
}

// Hit is one of a query's pairs as the finder holds it: the document's
// index in the corpus, not its id.
type Hit struct {
	Doc               int32
	SimTopic, SimSumm float64
}

// Category names which floors the hit passes: CategoryTopic,
// CategorySummary or CategoryBoth.
func (f *Finder) Category(h Hit) string { return Category(h.SimTopic, h.SimSumm, f.tauT, f.tauS) }

// Hits appends the pairs of document q to buf, in no particular order, and
// returns it. It is Query without what only a listing needs (the ids, the
// categories' names and the sort): what counting a query's pairs over a
// grid needs, with a buffer the caller reuses, so that a corpus-wide count
// allocates nothing per query.
func (f *Finder) Hits(q int, buf []Hit) []Hit {
	c := f.c
	sc := f.scratch.Get().(*scratch)
	defer f.scratch.Put(sc)
	sc.n++
	if sc.n == 0 { // wrapped: old stamps could collide
		clear(sc.stamp)
		sc.n = 1
	}
	// Candidates by topic: documents under an ancestor deep enough (see the
	// package doc); the first stamp collects each once.
	rho := f.tauT / (2 - f.tauT)
	sc.cands, sc.hits = sc.cands[:0], sc.hits[:0]
	root := c.Tree.Root()
	for _, t := range c.Topics[q] {
		for a := t; a != root && a >= 0; a = c.Tree.Parent(a) {
			// The bound with a little slack: candidates are checked exactly below.
			if a != t && c.IC[a] <= rho*c.IC[t]-1e-9 {
				break
			}
			for _, d := range f.post[a] {
				if sc.stamp[d] != sc.n && int(d) != q {
					sc.stamp[d] = sc.n
					sc.cands = append(sc.cands, d)
				}
			}
		}
	}
	// The second use of the stamp (odd/even would not do: it holds query
	// numbers) marks documents with a hit: a fresh number for this query.
	sc.n++
	if sc.n == 0 {
		clear(sc.stamp)
		sc.n = 1
	}
	// The query's BMA against each candidate, from its Lin rows: the same
	// values as ontology.BMA, at a lookup per topic pair.
	sc.lin.Reset(c.Tree, c.IC, c.Topics[q])
	for _, d := range sc.cands {
		if st := sc.lin.BMA32(f.topicsOf(d, &sc.tops)); st > f.tauT {
			sc.stamp[d], sc.slot[d] = sc.n, int32(len(sc.hits))
			sc.hits = append(sc.hits, hit{doc: d, topic: st, hasT: true})
		}
	}
	for _, m := range f.summ.Query(q) {
		if sc.stamp[m.Doc] == sc.n {
			h := &sc.hits[sc.slot[m.Doc]]
			h.summ, h.hasS = m.Sim, true
			continue
		}
		sc.stamp[m.Doc], sc.slot[m.Doc] = sc.n, int32(len(sc.hits))
		sc.hits = append(sc.hits, hit{doc: m.Doc, summ: m.Sim, hasS: true})
	}
	for _, h := range sc.hits {
		p := Hit{Doc: h.doc, SimTopic: h.topic, SimSumm: h.summ}
		if !h.hasT {
			p.SimTopic = sc.lin.BMA32(f.topicsOf(h.doc, &sc.tops))
		}
		if !h.hasS {
			p.SimSumm = summtok.Jaccard(f.recs[q], f.recs[h.doc])
		}
		buf = append(buf, p)
	}
	return buf
}

// Query returns the pairs of document q, sorted by document id.
func (f *Finder) Query(q int) []Pair {
	hits := f.Hits(q, nil)
	// The corpus is in id order, so sorting by index sorts by id, without
	// comparing strings.
	slices.SortFunc(hits, func(a, b Hit) int { return cmp.Compare(a.Doc, b.Doc) })
	out := make([]Pair, len(hits))
	for i, h := range hits {
		out[i] = Pair{Doc: f.c.IDs[h.Doc], SimTopic: h.SimTopic, SimSumm: h.SimSumm, Category: f.Category(h)}
	}
	return out
}

// The categories of SPEC §3: which thresholds a pair passes.
const (
	CategoryTopic   = "topic"
	CategorySummary = "summary"
	CategoryBoth    = "both"
)

// Category names which thresholds a pair passes (strictly): topic,
// summary or both ("" for neither).
func Category(simTopic, simSumm, tauT, tauS float64) string {
	switch t, s := simTopic > tauT, simSumm > tauS; {
	case t && s:
		return CategoryBoth
	case t:
		return CategoryTopic
	case s:
		return CategorySummary
	}
	return ""
}
