package topics

import "github.com/saber-math/saber/lib/ontology"

// MinKeywordShare is the smallest share of an ontology's topics below the
// domains that must carry keywords for the lexical scorer to be trusted
// (see KeywordShare). On all 12,500 MATH problems the main domain agrees
// with MATH's subject for 80% of them with the default ontology, every
// topic keyworded, and for 57% with the same ontology stripped of its
// keywords (agreement_test.go's seeded sample of 400: 84% and 61%): under
// the 60% a tagger must reach to mean something. Labels alone match stray
// words ("Theta series" from θ, "Signatures and data streams" from
// "signature") and miss what a problem is about. Half keyworded is where
// the evidence is mostly the ontology's, not its labels'.
const MinKeywordShare = 0.5

// KeywordShare returns how many distinct topics below the domains the tree
// has (a topic with several parents counts once) and the share of them
// with at least one keyword: the evidence the lexical scorer has beyond
// the labels. An ontology of domains only has none and share 0.
func KeywordShare(t *ontology.Tree) (topics int, share float64) {
	seen := map[string]bool{}
	with := 0
	for i := 1; i < t.Len(); i++ {
		if t.Depth(i) < 2 || seen[t.ID(i)] {
			continue
		}
		seen[t.ID(i)] = true
		if len(t.Keywords(i)) > 0 {
			with++
		}
	}
	if len(seen) == 0 {
		return 0, 0
	}
	return len(seen), float64(with) / float64(len(seen))
}

// PlausibleShare is the largest share of a corpus that one of n topics can
// be expected to hold: the share of the commonest topic when documents
// spread over the n topics by Zipf's law (the k-th commonest holding a
// share proportional to 1/k), 1/H(n) with H the harmonic number. Real
// corpora are skewed, and Zipf is a steep skew; a topic above it is more
// likely a scorer matching words every text has (MSC2020's "Farey
// sequences" on 23.5% of MATH, one of 6,608 leaves where 1/H is 10.7%).
// One topic holds everything.
func PlausibleShare(n int) float64 {
	if n <= 1 {
		return 1
	}
	h := 0.0
	for k := 1; k <= n; k++ {
		h += 1 / float64(k)
	}
	return 1 / h
}

// TopicsAtDepth returns how many distinct topics (DAG ids) the tree has at
// each depth, index 0 unused: what a topic at that depth competes with for
// a document, and so what PlausibleShare is taken over.
func TopicsAtDepth(t *ontology.Tree) []int {
	type at struct {
		depth int
		id    string
	}
	seen := map[at]bool{}
	var out []int
	for i := 1; i < t.Len(); i++ {
		d := t.Depth(i)
		for len(out) <= d {
			out = append(out, 0)
		}
		if key := (at{d, t.ID(i)}); !seen[key] {
			seen[key] = true
			out[d]++
		}
	}
	return out
}
