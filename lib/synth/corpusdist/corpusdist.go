// Package corpusdist generates what the pairs stage sees of a corpus — each
// document's topic set (nodes of an ontology tree) and its core-idea summary
// tokens — with the shape of a real corpus tagged against the default
// ontology, for benchmarking pairs at scale (jobs/bench). lib/synth's problems
// are no use for that: every instance of a template gets the template's
// topics, so a corpus of N problems has only a few hundred distinct topic sets
// and an unrealistically large share of its pairs pass the topic threshold.
//
// # Topics
//
// A document draws 1, 2, 3 or 4 topics with probabilities Params.TopicCount
// (0.55, 0.30, 0.11, 0.04; after merging, about 58% / 29% / 10% / 3%, mean
// 1.57 — MATH as tagged by the offline lexical scorer has 80% single topics,
// an LLM tagger gives more). The first topic is drawn by a popularity over
// the tree's nodes,
//
//	w(v) = share(domain of v) · depthWeight(depth v) · (1 + rank(v))^(−s) / Z(domain),
//
// with the domain mix Params.DomainShare (Algebra 30%, Geometry, Number Theory
// and Combinatorics 20% each, Calculus and Analysis 10%), per-node depth
// weights Params.DepthWeight (a domain node 0.1, depth 2 0.8, deeper 1: with
// 54 tree nodes at depth 2 and 322 below, about 90% of assigned topics are at
// depth ≥ 3; MATH tagged offline: 81%), and a Zipf factor over a seeded random
// ranking of the domain's nodes, exponent Params.TopicZipf = 0.3. Each further
// topic is correlated with the first: with probability Params.SameParent (0.6)
// it is drawn, by the same popularity, from the first topic's parent's
// subtree (a sibling or cousin), with probability Params.SameDomain (0.25)
// from its domain, else from the whole tree. As the tagger does, a topic that
// is an ancestor of another is dropped, and repeats are merged.
//
// # Summaries
//
// A fraction Params.NoCoreIdea (3%) of documents has no core idea (no
// tokens). The others get a text of 8 to 30 words, L = 8 + ⌊23·u^1.2⌋ for a
// uniform u (mean about 18), each word
//
//   - with probability Params.FuncWord (0.35) a function word ("the", "of",
//     "using", "apply", ...), all of them stop words that summtok drops;
//   - with probability Params.TopicWord (0.50) a word of one of the document's
//     topics (the first with probability 0.6): from the node's own pool (0.6),
//     its parent's (0.25) or its domain's (0.15), Zipf with exponent 1 within
//     the pool. A pool is the node's label and keyword words (from the
//     ontology) padded to Params.PoolSize (12) words with general words chosen
//     by seed and DAG node, so documents sharing or neighbouring topics share
//     words and summary overlap correlates with topic overlap;
//   - else a word of the general vocabulary: Params.Vocab (4,000) words with
//     Zipf frequencies of exponent Params.WordZipf (0.9), a few hundred real
//     method and object words and a few small numbers at the head,
//     pronounceable pseudo-words ("kelamo") in the tail. Only token identity
//     matters to Jaccard, so pseudo-words stand in for the long tail of real
//     words without changing the statistics.
//
// The tokens are summtok.Set of that text, exactly what the pairs stage takes
// of a summary: 9.5 distinct tokens on average.
//
// # Calibration
//
// For a fixed distribution the fraction of all pairs over a threshold does not
// depend on N (IC depends only on topic frequencies), so pairs kept per query
// grow linearly with N and all kept pairs as N²; that is inherent, not a
// defect of the generator. The knobs were tuned (TopicZipf, TopicWord,
// FuncWord, WordZipf, PoolSize, LengthSkew; measured with jobs/bench at 10K and
// 20K documents) so that at the paper's floors τ_topic = 0.858 and τ_summ =
// 0.211 about 0.39% of ordered pairs are kept: 0.25% topic-only, 0.10%
// summary-only and 0.04% both, i.e. at the paper's 283K documents about 1,100
// pairs per query (700 / 270 / 120), the median query about 1,000 and the
// tenth percentile about 140 — hundreds to low thousands per query — and
// about 46% of queries with at least K = 50 in every category, the paper's
// eligibility (its selection needs 1,000 eligible queries).
//
// That is below MATH tagged and summarised offline (2.6M pairs among 12.4K
// documents, 1.7%: 1.3% topic-only, 0.31% summary-only, 0.05% both), which we
// take to be inflated by the offline tagger's coarse single-topic tags (one
// node, simplifying-expressions, holds 10% of MATH, so Σ p² of the topic
// popularity alone is about 1%): an LLM tagger spreads a corpus wider, and a
// steeper topic Zipf over the default ontology's 382 tree nodes would make
// topic-only pairs dominate everything else. The summary-only share (0.10%)
// is a third of MATH's and "both" is close to MATH's, where topic-relevant
// pairs share a summary 3.4% of the time; here about 15%, since LLM core ideas
// name their method in topic words more than the offline summariser's
// extracts do.
//
// Every document is a pure function of (seed, Params, tree, i): documents can
// be generated in any order, and the first k documents of an N-document corpus
// are the k-document corpus.
//
// docs/benchmarks.md#stage-throughput-and-memory-make-bench says how the
// benchmarks use it.
package corpusdist

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/summtok"
)

// Params are the distribution's knobs; DefaultParams documents the defaults.
type Params struct {
	// DomainShare is each domain's share of first topics, by domain label;
	// domains not named get none. Shares are normalised.
	DomainShare map[string]float64
	// DepthWeight[d] multiplies the popularity of a node at depth d (1 for a
	// domain); depths past the end use the last entry.
	DepthWeight []float64
	// TopicZipf is the Zipf exponent of node popularity within a domain.
	TopicZipf float64
	// TopicCount[k] is the probability of k+1 topics.
	TopicCount []float64
	// SameParent and SameDomain: where a further topic is drawn (see the
	// package comment).
	SameParent, SameDomain float64
	// NoCoreIdea is the fraction of documents without a core idea.
	NoCoreIdea float64
	// MinWords and MaxWords bound a core idea's length in words; it is
	// MinWords + ⌊(MaxWords−MinWords+1)·u^LengthSkew⌋ for a uniform u, so
	// LengthSkew > 1 favours short texts.
	MinWords, MaxWords int
	LengthSkew         float64
	// FuncWord and TopicWord are the probabilities of a function word and of
	// a topic word; the rest are general words.
	FuncWord, TopicWord float64
	// Vocab is the size of the general vocabulary, WordZipf its exponent.
	Vocab    int
	WordZipf float64
	// PoolSize is the number of words of a node's pool.
	PoolSize int
}

// DefaultParams returns the calibrated distribution (see the package comment).
func DefaultParams() Params {
	return Params{
		DomainShare: map[string]float64{
			"Algebra": 0.30, "Geometry": 0.20, "Number Theory": 0.20, "Combinatorics": 0.20, "Calculus and Analysis": 0.10,
		},
		DepthWeight: []float64{0, 0.1, 0.8, 1},
		TopicZipf:   0.3,
		TopicCount:  []float64{0.55, 0.30, 0.11, 0.04},
		SameParent:  0.6,
		SameDomain:  0.25,
		NoCoreIdea:  0.03,
		MinWords:    8,
		MaxWords:    30,
		LengthSkew:  1.2,
		FuncWord:    0.35,
		TopicWord:   0.50,
		Vocab:       4000,
		WordZipf:    0.9,
		PoolSize:    12,
	}
}

// Doc is one generated document.
type Doc struct {
	ID         string   // 16 hex digits, unique within a seed
	Topics     []int    // tree nodes, ascending, none an ancestor of another
	CoreIdea   string   // "" when NoCoreIdea
	NoCoreIdea bool     //
	Tokens     []string // summtok.Set(CoreIdea)
}

// Generator draws documents; it is immutable and safe for concurrent use.
type Generator struct {
	tree *ontology.Tree
	seed uint64
	p    Params

	end     []int     // subtree of v = [v, end[v])
	cum     []float64 // cum[v] = Σ_{u<v} w(u), over preorder
	vocab   []string
	wordCum []float64
	pools   [][]string // by tree node
	poolCum []float64  // Zipf over a pool's positions, exponent 1
	countC  []float64
}

// New prepares a generator for tree (usually artifacts/ontology.DefaultTree).
func New(tree *ontology.Tree, seed uint64, p Params) (*Generator, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	g := &Generator{tree: tree, seed: seed, p: p}
	n := tree.Len()
	g.end = make([]int, n)
	for v := n - 1; v >= 0; v-- {
		g.end[v] = v + 1
		if ch := tree.Children(v); len(ch) > 0 {
			g.end[v] = g.end[ch[len(ch)-1]]
		}
	}

	// Node popularity.
	w := make([]float64, n)
	total := 0.0
	for _, d := range tree.Children(tree.Root()) {
		share := p.DomainShare[tree.Label(d)]
		if share <= 0 {
			continue
		}
		total += share
		nodes := make([]int, 0, g.end[d]-d)
		for v := d; v < g.end[d]; v++ {
			nodes = append(nodes, v)
		}
		r := rand.New(rand.NewPCG(seed, hashString("rank/"+tree.ID(d))))
		r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		z := 0.0
		for rank, v := range nodes {
			dw := p.DepthWeight[min(tree.Depth(v), len(p.DepthWeight)-1)]
			w[v] = dw * math.Pow(float64(rank+1), -p.TopicZipf)
			z += w[v]
		}
		if z == 0 {
			return nil, fmt.Errorf("corpusdist: domain %q has no node with a positive weight", tree.Label(d))
		}
		for _, v := range nodes {
			w[v] *= share / z
		}
	}
	if total == 0 {
		return nil, errors.New("corpusdist: no domain of the tree has a share in Params.DomainShare")
	}
	g.cum = make([]float64, n+1)
	for v := range n {
		g.cum[v+1] = g.cum[v] + w[v]/total
	}

	// General vocabulary: base words, then pseudo-words.
	seen := map[string]bool{}
	addWord := func(s string) {
		if len(g.vocab) < p.Vocab && !seen[s] && !summtok.IsStopWord(s) && len(summtok.Tokens(s)) == 1 {
			seen[s] = true
			g.vocab = append(g.vocab, s)
		}
	}
	for _, s := range baseWords {
		addWord(s)
	}
	for _, s := range pseudoWords() {
		addWord(s)
	}
	if len(g.vocab) < p.Vocab {
		return nil, fmt.Errorf("corpusdist: only %d words for a vocabulary of %d", len(g.vocab), p.Vocab)
	}
	g.wordCum = zipfCum(len(g.vocab), p.WordZipf)
	g.poolCum = zipfCum(p.PoolSize, 1)
	g.countC = cumOf(p.TopicCount)

	// Pools, per DAG node (copies of a multi-parent node share theirs).
	byDAG := map[string][]string{}
	g.pools = make([][]string, n)
	for v := 1; v < n; v++ {
		id := tree.ID(v)
		pool, ok := byDAG[id]
		if !ok {
			pool = g.makePool(id, tree.Label(v), tree.Keywords(v))
			byDAG[id] = pool
		}
		g.pools[v] = pool
	}
	return g, nil
}

func (p Params) check() error {
	switch {
	case len(p.DepthWeight) == 0 || len(p.TopicCount) == 0:
		return errors.New("corpusdist: DepthWeight and TopicCount must not be empty")
	case p.MinWords < 1 || p.MaxWords < p.MinWords:
		return errors.New("corpusdist: need 1 ≤ MinWords ≤ MaxWords")
	case p.FuncWord < 0 || p.TopicWord < 0 || p.FuncWord+p.TopicWord > 1:
		return errors.New("corpusdist: FuncWord and TopicWord must be probabilities summing to ≤ 1")
	case p.SameParent < 0 || p.SameDomain < 0 || p.SameParent+p.SameDomain > 1:
		return errors.New("corpusdist: SameParent and SameDomain must be probabilities summing to ≤ 1")
	case p.Vocab < 1 || p.PoolSize < 1:
		return errors.New("corpusdist: Vocab and PoolSize must be positive")
	}
	return nil
}

// makePool returns a node's word pool: its label and keyword tokens, then
// general words chosen by (seed, DAG id) from past the vocabulary's head.
func (g *Generator) makePool(id, label string, keywords []string) []string {
	var pool []string
	seen := map[string]bool{}
	add := func(s string) {
		if len(pool) < g.p.PoolSize && !seen[s] {
			seen[s] = true
			pool = append(pool, s)
		}
	}
	for _, s := range append([]string{label}, keywords...) {
		for _, tok := range summtok.Tokens(s) {
			add(tok)
		}
	}
	r := rand.New(rand.NewPCG(g.seed, hashString("pool/"+id)))
	lo := min(200, len(g.vocab)/2)
	for len(pool) < g.p.PoolSize {
		add(g.vocab[lo+r.IntN(len(g.vocab)-lo)])
	}
	return pool
}

// Doc returns document i.
func (g *Generator) Doc(i int) Doc {
	id := fmt.Sprintf("%016x", mix64(g.seed*0x9E3779B97F4A7C15+uint64(i)))
	return g.draw(rand.New(rand.NewPCG(g.seed, uint64(i))), id)
}

// DocFor returns the labels of the document with this id: drawn as Doc's,
// from a stream seeded by the generator's seed and the id, so that every
// stage that labels a document draws the same topics and core idea for it
// (the synthetic backends of tag and summarize).
func (g *Generator) DocFor(id string) Doc {
	return g.draw(rand.New(rand.NewPCG(g.seed, hashString("doc\x00"+id))), id)
}

func (g *Generator) draw(r *rand.Rand, id string) Doc {
	d := Doc{ID: id}
	d.Topics = g.topics(r)
	if r.Float64() < g.p.NoCoreIdea {
		d.NoCoreIdea = true
		return d
	}
	// A text of function words only (rare) is drawn again: a core idea
	// names at least one thing.
	for d.Tokens == nil {
		d.CoreIdea = g.coreIdea(r, d.Topics)
		d.Tokens = summtok.Set(d.CoreIdea)
	}
	return d
}

// Docs returns documents 0 … n−1.
func (g *Generator) Docs(n int) []Doc {
	out := make([]Doc, n)
	for i := range out {
		out[i] = g.Doc(i)
	}
	return out
}

func (g *Generator) topics(r *rand.Rand) []int {
	k := 1 + search(g.countC, r.Float64())
	first := g.drawIn(r, 0, g.tree.Len())
	ts := []int{first}
	for len(ts) < k {
		lo, hi := 0, g.tree.Len()
		switch u := r.Float64(); {
		case u < g.p.SameParent:
			if p := g.tree.Parent(first); p > 0 {
				lo, hi = p, g.end[p]
			}
		case u < g.p.SameParent+g.p.SameDomain:
			d := g.tree.Domain(first)
			lo, hi = d, g.end[d]
		}
		// A draw that repeats a topic, or has no weight in the range, is
		// retried a few times and then given up: the set is just smaller.
		added := false
		for try := 0; try < 8 && !added; try++ {
			v := g.drawIn(r, lo, hi)
			if v >= 0 && !slices.Contains(ts, v) {
				ts = append(ts, v)
				added = true
			}
		}
		if !added {
			break
		}
	}
	// Drop ancestors of other topics, as the tagger does.
	out := ts[:0]
	for _, v := range ts {
		anc := false
		for _, u := range ts {
			if u != v && g.tree.IsAncestor(v, u) {
				anc = true
				break
			}
		}
		if !anc {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// drawIn draws a node of [lo, hi) by popularity; −1 when none has weight.
func (g *Generator) drawIn(r *rand.Rand, lo, hi int) int {
	a, b := g.cum[lo], g.cum[hi]
	if b <= a {
		return -1
	}
	x := a + r.Float64()*(b-a)
	// The node v with cum[v] ≤ x < cum[v+1], which has a positive weight.
	v := lo + sort.Search(hi-lo, func(k int) bool { return g.cum[lo+k+1] > x })
	for v >= hi || g.cum[v+1] == g.cum[v] { // x rounded up to b: the last node with weight
		v--
	}
	return v
}

func (g *Generator) coreIdea(r *rand.Rand, topics []int) string {
	span := g.p.MaxWords - g.p.MinWords + 1
	n := g.p.MinWords + min(span-1, int(float64(span)*math.Pow(r.Float64(), g.p.LengthSkew)))
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		var w string
		switch u := r.Float64(); {
		case u < g.p.FuncWord:
			w = funcWords[r.IntN(len(funcWords))]
		case u < g.p.FuncWord+g.p.TopicWord && len(topics) > 0:
			v := topics[0]
			if len(topics) > 1 && r.Float64() >= 0.6 {
				v = topics[1+r.IntN(len(topics)-1)]
			}
			switch u := r.Float64(); {
			case u < 0.6:
			case u < 0.85:
				if p := g.tree.Parent(v); p > 0 {
					v = p
				}
			default:
				v = g.tree.Domain(v)
			}
			w = g.pools[v][search(g.poolCum, r.Float64())]
		default:
			w = g.vocab[search(g.wordCum, r.Float64())]
		}
		b.WriteString(w)
	}
	return b.String()
}

// zipfCum returns the cumulative Zipf distribution over n ranks, exponent s,
// normalised so that the last entry is 1.
func zipfCum(n int, s float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -s)
	}
	return cumOf(w)
}

func cumOf(w []float64) []float64 {
	c := make([]float64, len(w))
	sum := 0.0
	for i, x := range w {
		sum += x
		c[i] = sum
	}
	for i := range c {
		c[i] /= sum
	}
	return c
}

// search returns the first index with cum[i] > u (u in [0, 1)).
func search(cum []float64, u float64) int {
	i := sort.Search(len(cum), func(i int) bool { return cum[i] > u })
	return min(i, len(cum)-1)
}

// pseudoWords returns pronounceable two- and three-syllable words in a fixed
// order, for the tail of the vocabulary.
func pseudoWords() []string {
	cons := []string{"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z"}
	vows := []string{"a", "e", "i", "o", "u"}
	var syl []string
	for _, c := range cons {
		for _, v := range vows {
			syl = append(syl, c+v)
		}
	}
	var out []string
	// A fixed stride through the syllable pairs, then triples, so that
	// neighbouring ranks do not share a prefix.
	m := len(syl)
	for k := 0; k < m*m; k++ {
		j := k * 37 % (m * m)
		out = append(out, syl[j/m]+syl[j%m])
	}
	for k := 0; k < m*m; k++ {
		j := k * 53 % (m * m)
		out = append(out, syl[j/m]+syl[j%m]+syl[k%m])
	}
	return out
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// mix64 is the splitmix64 finaliser, a bijection of uint64.
func mix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}
