// Package lexical is the classical lexical baselines of SABER-Math (SPEC §3
// "Lexical baselines (C.4)", paper App. C.4): BM25, TF-IDF and Jaccard, each
// scoring one query against its own candidates, with the index (document
// frequencies, average length, vocabulary) built over those candidates only.
//
// The scores reproduce the reference implementations the paper ran:
//
//   - BM25 is rank_bm25 0.2.2's BM25Okapi at its defaults, operation for
//     operation (so that equal inputs give bit-identical floats):
//     idf(t) = ln(N − df + 0.5) − ln(df + 0.5), then every negative idf is
//     replaced by ε·mean(idf) (the mean over all the candidates' terms,
//     before replacement); score(q, d) = Σ over the query's tokens, each
//     occurrence counted, of idf·tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl)).
//     Query terms absent from the candidates add nothing.
//   - TF-IDF is scikit-learn 1.2's TfidfVectorizer at its defaults: raw
//     counts, idf(t) = ln((1+N)/(1+df)) + 1, rows scaled to unit L2 norm,
//     fitted on the candidates; the query is transformed with that
//     vocabulary (its other terms dropped), and the score is the cosine, the
//     dot product of the two unit vectors.
//   - Jaccard is |A∩B| / |A∪B| of the token sets, 0 when both are empty.
//
// Each is parameterised by a tokeniser of lib/text, and Lookup knows the six
// variants of the paper: "bm25", "tfidf" and "jaccard" with the math
// tokeniser (Table 1), and "bm25-no-tok" (plain white space),
// "tfidf-no-tok" (scikit-learn's token pattern) and "jaccard-no-tok" (plain
// white space) of Table 7. testdata/gen.py checks the -no-tok variants
// against Python on 20 MATH queries × 150 candidates: BM25 and Jaccard are
// bit-identical, TF-IDF within 1e-15 (the tests demand 1e-9). The math
// variants run the same code with other tokens, and are checked against
// straightforward implementations.
//
// Where the references fail, we return scores instead: with no candidates
// Score returns an empty slice, and when the candidates have no token at all
// (rank_bm25 divides by zero, scikit-learn raises "empty vocabulary") every
// score is 0. rank_bm25 also yields NaN for a document where
// k1·(1 − b + b·|d|/avgdl) is 0 (k1 = 0, or b = 1 and an empty document);
// we add 0 for a query term a document lacks, always. A query or document
// longer than text.MaxSpansText (128 MiB; the index's offsets are 32-bit)
// is an error.
//
// Scorers are safe for concurrent use. Score allocates little: tokens are
// interned to small integers per query in pooled buffers.
package lexical

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/text"
)

// A Scorer scores each candidate document against a query; higher is more
// relevant. Score returns one score per document, in the order of docs.
type Scorer interface {
	Name() string
	Score(query string, docs []string) ([]float64, error)
}

// The variants Lookup knows.
var variants = map[string]func() Scorer{
	"bm25":           func() Scorer { return NewBM25(text.Math) },
	"bm25-no-tok":    func() Scorer { return NewBM25(text.Plain) },
	"tfidf":          func() Scorer { return NewTFIDF(text.Math) },
	"tfidf-no-tok":   func() Scorer { return NewTFIDF(text.Sklearn) },
	"jaccard":        func() Scorer { return NewJaccard(text.Math) },
	"jaccard-no-tok": func() Scorer { return NewJaccard(text.Plain) },
}

// Names lists the variants Lookup knows, sorted.
func Names() []string {
	names := make([]string, 0, len(variants))
	for n := range variants {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the variant called name, at the references' defaults.
func Lookup(name string) (Scorer, error) {
	if f, ok := variants[name]; ok {
		return f(), nil
	}
	return nil, fmt.Errorf("lexical: unknown scorer %q (known: %s)", name, strings.Join(Names(), ", "))
}

// variantName is base for the math tokeniser, base-no-tok for the
// tokeniser of the reference's -no-tok variant, and base(tokeniser)
// otherwise, so that every scorer's name says what it computes.
func variantName(base string, tok text.Tokenizer, noTok text.Tokenizer) string {
	switch {
	case tok == nil:
		return base + "(nil)"
	case tok.Name() == text.Math.Name():
		return base
	case tok.Name() == noTok.Name():
		return base + "-no-tok"
	}
	return base + "(" + tok.Name() + ")"
}

// BM25 is rank_bm25 0.2.2's BM25Okapi. Make it with NewBM25, which sets the
// library's defaults; a zero K1, B or Epsilon is a legal value, not a
// default.
type BM25 struct {
	Tokenizer text.Tokenizer
	K1        float64 // term-frequency saturation, ≥ 0; default 1.5
	B         float64 // length normalisation, in [0, 1]; default 0.75
	Epsilon   float64 // floor of negative idfs, as a fraction of the mean idf; default 0.25

	// Team, when not nil, builds a query's index on the team's members:
	// the documents in flight of paper C.5. Each member indexes a run of
	// the candidates and the parts are merged (score); the scores are the
	// same, bit for bit, with any team or none. It pays with the Math
	// tokeniser, whose tokenising is most of the work (1.3–1.6× on 2 threads
	// in docs/benchmarks.md), and hardly with the others, which are bound by
	// interning. A team serves one Score at a time: concurrent callers
	// that find it busy build alone, in parts, which is slower than with no
	// team, so give each concurrent caller its own team or none, as
	// evaluate does.
	Team *parallel.Team
}

// minPartDocs is the fewest candidates a team member indexes: below it,
// merging the parts' vocabularies costs more than building in parallel
// saves.
const minPartDocs = 32

// maxParts bounds the parts of one index.
const maxParts = 16

// NewBM25 returns BM25 with rank_bm25's defaults k1 = 1.5, b = 0.75,
// ε = 0.25.
func NewBM25(tok text.Tokenizer) *BM25 {
	return &BM25{Tokenizer: tok, K1: 1.5, B: 0.75, Epsilon: 0.25}
}

// Name is "bm25" with the math tokeniser, "bm25-no-tok" with the plain one.
func (s *BM25) Name() string { return variantName("bm25", s.Tokenizer, text.Plain) }

func (s *BM25) check() error {
	switch {
	case s.Tokenizer == nil:
		return fmt.Errorf("lexical: %s: no tokenizer", s.Name())
	case !(s.K1 >= 0) || math.IsInf(s.K1, 0):
		return fmt.Errorf("lexical: %s: k1 = %v, want a finite value ≥ 0", s.Name(), s.K1)
	case !(s.B >= 0 && s.B <= 1):
		return fmt.Errorf("lexical: %s: b = %v, want a value in [0, 1]", s.Name(), s.B)
	case math.IsNaN(s.Epsilon) || math.IsInf(s.Epsilon, 0):
		return fmt.Errorf("lexical: %s: epsilon = %v, want a finite value", s.Name(), s.Epsilon)
	}
	return nil
}

// Score returns the BM25 score of every document for query.
func (s *BM25) Score(query string, docs []string) ([]float64, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	scores, done, err := begin(s.Name(), s.Tokenizer, query, docs)
	if done {
		return scores, err
	}
	return s.score(scores, texts{query: query, docs: docs}, s.parts(len(docs)))
}

// parts is the number of parts Score builds the index of n documents in.
func (s *BM25) parts(n int) int { return max(1, min(s.Team.Size(), n/minPartDocs, maxParts)) }

// scoreTokens is Score from the tokens of the query and of each document,
// made beforehand by s.Tokenizer's Spans.Tokenize: the same scores, bit
// for bit, by the same code from the tokens on. It is what
// BenchmarkBM25PerQuery's bm25-tokens times, the work rank_bm25 does on
// tokens it is handed. query must not be nil.
func (s *BM25) scoreTokens(query *text.Spans, docs []text.Spans) ([]float64, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return []float64{}, nil
	}
	return s.score(make([]float64, len(docs)), texts{qsp: query, dsp: docs}, s.parts(len(docs)))
}

// score is Score with the index of in built in np parts (1 ≤ np ≤
// maxParts), run on s.Team, into scores (all 0).
func (s *BM25) score(scores []float64, in texts, np int) ([]float64, error) {
	// The parts' runs of documents. (Giving part 0 more, as the others
	// export after building, changed nothing measurable.)
	cut := runs(in, np)
	var parts [maxParts]*index
	s.Team.Run(np, func(p int) {
		y := newQueryFirstIndex(s.Tokenizer, in.slice(cut[p], cut[p+1]))
		if p > 0 {
			y.export()
		}
		parts[p] = y
	})
	// Each part goes back to the pool of the core that built it, which
	// has its buffers in cache.
	defer s.Team.Run(np, func(p int) { parts[p].release() })
	x := parts[0]
	for p := 1; p < np; p++ {
		x.merge(parts[p], p == np-1)
	}
	n, v := in.len(), x.norder+len(x.tail)
	if v == 0 {
		return scores, nil
	}

	// idf in rank_bm25's order: its dict of document frequencies is
	// ordered by first occurrence, as x.order then x.tail are, and the
	// mean is taken before negative values are floored. The logarithms
	// are correctly rounded, as glibc's are (see lnhalf.go).
	order := x.order[:x.norder]
	logs := grow(&x.f3, n+1) // logs[k] = ln(k + 0.5), for the k needed
	need := x.need[:0]
	if v >= n+1 {
		// Every k: fewer than the tokens to look at for the k they need.
		for k := range int32(n + 1) {
			need = append(need, k)
		}
	} else {
		needs := func(df int32) {
			for _, k := range [2]int32{int32(n) - df, df} {
				if logs[k] == 0 {
					logs[k] = 1 // needed; lnHalfInto sets it
					need = append(need, k)
				}
			}
		}
		for _, id := range order {
			needs(x.df[id])
		}
		for _, df := range x.tail {
			needs(df)
		}
	}
	lnHalfInto(logs, need)
	x.need = need
	sum := 0.0
	for _, id := range order {
		df := x.df[id]
		sum += logs[int32(n)-df] - logs[df]
	}
	for _, df := range x.tail {
		sum += logs[int32(n)-df] - logs[df]
	}
	eps := s.Epsilon * (sum / float64(v))

	// k1·(1 − b + b·|d|/avgdl) per document.
	total := 0
	for _, y := range parts[:np] {
		for _, l := range y.dlen {
			total += int(l)
		}
	}
	avgdl := float64(total) / float64(n)
	norm := grow(&x.f2, n)
	dense := true // every norm > 0 (addTerm)
	for p, y := range parts[:np] {
		for d, l := range y.dlen {
			v := s.lengthNorm(l, avgdl)
			norm[cut[p]+d] = v
			dense = dense && v > 0
		}
	}

	k1p1 := s.K1 + 1
	for _, id := range x.query {
		df := x.df[id]
		if df == 0 {
			continue // in no document
		}
		w := logs[int32(n)-df] - logs[df]
		if w < 0 {
			w = eps
		}
		for p, y := range parts[:np] {
			nd := y.ndocs
			row := y.tf[int(id)*nd:][:nd]
			addTerm(scores[cut[p]:][:nd], row, norm[cut[p]:][:nd], w, k1p1, dense)
		}
	}
	return scores, nil
}

// runs cuts the documents of in into np runs (1 ≤ np ≤ maxParts) of
// about equal size (in.size: bytes of text, or tokens): run p is
// documents cut[p]…cut[p+1]−1.
func runs(in texts, np int) (cut [maxParts + 1]int) {
	n := in.len()
	total := 0
	for d := range n {
		total += in.size(d)
	}
	for p, acc, d := 1, 0, 0; p < np; p++ {
		for d < n && acc < total*p/np {
			acc += in.size(d)
			d++
		}
		cut[p] = d
	}
	cut[np] = n
	return cut
}

// lengthNorm is k1·(1 − b + b·|d|/avgdl) for a document of l tokens,
// evaluated as numpy does.
func (s *BM25) lengthNorm(l int32, avgdl float64) float64 {
	return s.K1 * ((1 - s.B) + s.B*float64(l)/avgdl)
}

// addTerm adds one query token's BM25 term, w·(f·(k1+1) / (f + norm[d])),
// to the scores of the documents whose counts of it are row, with
// lengthNorm norm and idf w.
//
// Where every norm is above 0, it adds every document's term (addTermDense),
// 0 where f is 0, as rank_bm25 does with numpy arrays: x + 0 is x, and
// the test that skipped them, as unpredictable as the counts, was ~3% of
// BM25's time. A norm of 0 (k1 = 0, or b = 1 and an empty document) would
// make those terms 0/0, so there only the documents with f > 0 are added.
func addTerm(scores []float64, row []int32, norm []float64, w, k1p1 float64, dense bool) {
	if dense {
		addTermDense(scores, row, norm, w, k1p1)
		return
	}
	for d, f := range row {
		if f != 0 {
			scores[d] += bm25Term(f, norm[d], w, k1p1)
		}
	}
}

// bm25Term is w·(f·(k1+1) / (f + norm)), rounded as numpy rounds it:
// float64(…) forbids fusing into an FMA, which numpy does not do either.
// The kernel (addTermAVX2) does the same operations in the same order.
func bm25Term(f int32, norm, w, k1p1 float64) float64 {
	ff := float64(f)
	return float64(w * (ff * k1p1 / (ff + norm)))
}

// addTermDenseGo is addTermDense in Go: addTerm's sum for every document,
// as numpy computes it.
func addTermDenseGo(scores []float64, row []int32, norm []float64, w, k1p1 float64) {
	norm = norm[:len(row)]
	scores = scores[:len(row)]
	for d, f := range row {
		scores[d] += bm25Term(f, norm[d], w, k1p1)
	}
}

// begin does what every Score does first: it rejects a missing tokeniser
// and a text too long for the index, and makes the scores, all 0. done
// reports that scores (or err) is the answer already: with an error, or
// with no documents.
func begin(name string, tok text.Tokenizer, query string, docs []string) (scores []float64, done bool, err error) {
	if tok == nil {
		return nil, true, fmt.Errorf("lexical: %s: no tokenizer", name)
	}
	if len(docs) == 0 {
		return []float64{}, true, nil
	}
	if len(query) > maxText {
		return nil, true, fmt.Errorf("lexical: %s: query of %d bytes (max %d)", name, len(query), maxText)
	}
	for d, doc := range docs {
		if len(doc) > maxText {
			return nil, true, fmt.Errorf("lexical: %s: document %d of %d bytes (max %d)", name, d, len(doc), maxText)
		}
	}
	return make([]float64, len(docs)), false, nil
}

// TFIDF is scikit-learn's TfidfVectorizer at its defaults, scored by cosine
// similarity. With a tokeniser other than Sklearn, the tokeniser is the
// whole analyzer (as TfidfVectorizer(analyzer=callable)).
type TFIDF struct {
	Tokenizer text.Tokenizer
}

// NewTFIDF returns TFIDF with the given tokeniser.
func NewTFIDF(tok text.Tokenizer) *TFIDF { return &TFIDF{Tokenizer: tok} }

// Name is "tfidf" with the math tokeniser, "tfidf-no-tok" with Sklearn's.
func (s *TFIDF) Name() string { return variantName("tfidf", s.Tokenizer, text.Sklearn) }

// Score returns the cosine between the TF-IDF vectors of query and of every
// document.
func (s *TFIDF) Score(query string, docs []string) ([]float64, error) {
	scores, done, err := begin(s.Name(), s.Tokenizer, query, docs)
	if done {
		return scores, err
	}
	x := newIndex(s.Tokenizer, query, docs)
	defer x.release()
	n, v := len(docs), x.nvocab
	if v == 0 {
		return scores, nil
	}
	idf := grow(&x.f1, v)
	for t, df := range x.df[:v] {
		idf[t] = math.Log(float64(n+1)/float64(df+1)) + 1
	}

	// The query's unit vector, over its terms in id order. Sums here and
	// below run over ids in increasing order, so that two documents with
	// the same counts get bit-identical scores, as in scikit-learn.
	terms := x.queryTerms()
	slices.Sort(terms)
	qw := grow(&x.f2, len(terms))
	cnt := x.counts()
	for _, id := range x.query {
		if int(id) < v {
			cnt[id]++
		}
	}
	qn := 0.0
	for k, id := range terms {
		qw[k] = float64(cnt[id]) * idf[id]
		qn += float64(qw[k] * qw[k])
		cnt[id] = 0
	}
	qn = math.Sqrt(qn)
	if qn == 0 {
		return scores, nil
	}
	for k := range qw {
		qw[k] /= qn
	}

	touched := x.ints[:0]
	for d := range n {
		touched = touched[:0]
		for _, id := range x.docTokens(d) {
			if cnt[id] == 0 {
				touched = append(touched, id)
			}
			cnt[id]++
		}
		slices.Sort(touched)
		dn := 0.0
		for _, id := range touched {
			w := float64(cnt[id]) * idf[id]
			dn += float64(w * w)
		}
		dn = math.Sqrt(dn)
		if dn > 0 {
			dot := 0.0
			for k, id := range terms {
				if c := cnt[id]; c != 0 {
					dot += float64(qw[k] * (float64(c) * idf[id] / dn))
				}
			}
			scores[d] = dot
		}
		for _, id := range touched {
			cnt[id] = 0
		}
	}
	x.ints = touched
	x.clearSlots(terms)
	return scores, nil
}

// Jaccard is |A∩B| / |A∪B| of the query's and a document's token sets.
type Jaccard struct {
	Tokenizer text.Tokenizer
}

// NewJaccard returns Jaccard with the given tokeniser.
func NewJaccard(tok text.Tokenizer) *Jaccard { return &Jaccard{Tokenizer: tok} }

// Name is "jaccard" with the math tokeniser, "jaccard-no-tok" with the
// plain one.
func (s *Jaccard) Name() string { return variantName("jaccard", s.Tokenizer, text.Plain) }

// Score returns the Jaccard similarity of the query's and every document's
// token sets, computed as float64(|A∩B|) / float64(|A∪B|), 0 when both are
// empty.
func (s *Jaccard) Score(query string, docs []string) ([]float64, error) {
	scores, done, err := begin(s.Name(), s.Tokenizer, query, docs)
	if done {
		return scores, err
	}
	x := newIndex(s.Tokenizer, query, docs)
	defer x.release()
	// All the query's distinct tokens count, also those no document has.
	inQuery := x.counts()
	nq := 0
	for _, id := range x.query {
		if inQuery[id] == 0 {
			inQuery[id] = 1
			nq++
		}
	}
	seen := grow(&x.stamp, len(x.df))
	for d := range len(docs) {
		stamp := int32(d + 1)
		nd, inter := 0, 0
		for _, id := range x.docTokens(d) {
			if seen[id] != stamp {
				seen[id] = stamp
				nd++
				inter += int(inQuery[id])
			}
		}
		if union := nq + nd - inter; union > 0 {
			scores[d] = float64(inter) / float64(union)
		}
	}
	clear(seen)
	for _, id := range x.query {
		inQuery[id] = 0
	}
	return scores, nil
}
