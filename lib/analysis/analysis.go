// Package analysis holds the pure computations of the benchmark's
// analyses (paper §4.2 and App. A.6, A.7, D.1, D.8, D.10): which side of a
// query, its maths or its words, a retriever finds closer to the query's
// best documents; how fast each signal group of candidates rises in the
// final ratings; how the problems' weight splits over domains; and the
// frontier of scores over release dates. No I/O, no randomness: the
// analyze stage reads the data and writes the reports.
package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/saber-math/saber/lib/text"
)

// MathRatio is the share of a query's tokens that are maths (the x axis of
// paper Figure 9): the Math tokeniser's single tokens of its maths part
// over those of both parts (pair tokens are not counted). 0 for a text
// with no tokens.
func MathRatio(maths, words string) float64 {
	m, w := singles(maths), singles(words)
	if m+w == 0 {
		return 0
	}
	return float64(m) / float64(m+w)
}

func singles(s string) int {
	n := 0
	for _, t := range text.Tokens(text.Math, s) {
		if !strings.Contains(t, " ") { // a pair token holds one space
			n++
		}
	}
	return n
}

// MathTextQuery is one query's outcome for one retriever: the mean score
// of its maths-only part and of its words-only part against the full text
// of its best-rated candidates.
type MathTextQuery struct {
	Query, Domain      string
	Ratio              float64
	MathMean, TextMean float64
}

// MathWins says whether the maths side scored higher. Ties (rare with
// averaged real scores, paper D.10) count as a loss for maths.
func (q MathTextQuery) MathWins() bool { return q.MathMean > q.TextMean }

// Share is a count out of a total, reported as a percentage.
type Share struct{ Wins, Of int }

// Percent is 100·Wins/Of, NaN when Of is 0.
func (s Share) Percent() float64 {
	if s.Of == 0 {
		return math.NaN()
	}
	return 100 * float64(s.Wins) / float64(s.Of)
}

// MathWinShares is the share of queries where maths wins, over all of qs
// and per domain (in the order of domains; a domain with no query gets
// Share{}).
func MathWinShares(qs []MathTextQuery, domains []string) (overall Share, byDomain []Share) {
	byDomain = make([]Share, len(domains))
	for _, q := range qs {
		w := 0
		if q.MathWins() {
			w = 1
		}
		overall.Wins += w
		overall.Of++
		if d := slices.Index(domains, q.Domain); d >= 0 {
			byDomain[d].Wins += w
			byDomain[d].Of++
		}
	}
	return overall, byDomain
}

// RatioBin is the queries whose maths-token ratio falls in [Lo, Hi).
type RatioBin struct {
	Lo, Hi float64
	Share  Share
}

// MathWinsByRatio bins qs by maths-token ratio into bins equal-width bins
// over [0, 1] (the last one closed) and gives the share of maths wins in
// each: paper Figure 9's percentage against the ratio. Empty bins are
// kept, with Share{}.
func MathWinsByRatio(qs []MathTextQuery, bins int) []RatioBin {
	if bins < 1 {
		bins = 1
	}
	out := make([]RatioBin, bins)
	for i := range out {
		out[i].Lo, out[i].Hi = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	for _, q := range qs {
		i := min(int(q.Ratio*float64(bins)), bins-1)
		i = max(i, 0)
		out[i].Share.Of++
		if q.MathWins() {
			out[i].Share.Wins++
		}
	}
	return out
}

// Rated is a candidate with its rating.
type Rated struct {
	Doc    string
	Rating float64
}

// TopRated returns the ids of the n best-rated candidates, by rating
// descending, ties by id ascending (the order the benchmark ranks its
// ratings in everywhere).
func TopRated(cands []Rated, n int) []string {
	s := slices.Clone(cands)
	slices.SortFunc(s, func(a, b Rated) int { return cmp.Or(cmp.Compare(b.Rating, a.Rating), strings.Compare(a.Doc, b.Doc)) })
	out := make([]string, 0, min(n, len(s)))
	for _, c := range s[:min(n, len(s))] {
		out = append(out, c.Doc)
	}
	return out
}

// Mean is the mean of xs (NaN for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// CategoryRanks counts, for one query, where its candidates of each
// category land in the final ratings: rank 1 is the best-rated (ties by
// document id). It returns the categories' ranks.
func CategoryRanks(cands []Rated, category map[string]string) map[string][]int {
	s := slices.Clone(cands)
	slices.SortFunc(s, func(a, b Rated) int { return cmp.Or(cmp.Compare(b.Rating, a.Rating), strings.Compare(a.Doc, b.Doc)) })
	out := map[string][]int{}
	for i, c := range s {
		cat := category[c.Doc]
		out[cat] = append(out[cat], i+1)
	}
	return out
}

// Curve is one signal group's cumulative curve (paper D.1, Figure 6):
// Frac[r-1] is the share of the group's candidates, over all queries,
// ranked within the top r by the final ratings.
type Curve struct {
	Category string
	N        int // candidates of the group, over all queries
	Frac     []float64
}

// Cumulative builds each category's curve from the ranks of its
// candidates (pooled over queries), for r = 1 … maxRank, where maxRank is
// the largest rank seen. Every curve is non-decreasing and ends at 1.
// Categories are returned in the order given; one with no candidates is
// left out.
func Cumulative(ranks map[string][]int, categories []string) []Curve {
	maxRank := 0
	for _, rs := range ranks {
		for _, r := range rs {
			maxRank = max(maxRank, r)
		}
	}
	var out []Curve
	for _, cat := range categories {
		rs := ranks[cat]
		if len(rs) == 0 {
			continue
		}
		at := make([]int, maxRank+1)
		for _, r := range rs {
			at[r]++
		}
		c := Curve{Category: cat, N: len(rs), Frac: make([]float64, maxRank)}
		sum := 0
		for r := 1; r <= maxRank; r++ {
			sum += at[r]
			c.Frac[r-1] = float64(sum) / float64(len(rs))
		}
		out = append(out, c)
	}
	return out
}

// Area is the mean of a curve over its ranks: higher rises faster.
func (c Curve) Area() float64 { return Mean(c.Frac) }

// SplitWeights gives each item a total weight of 1 split equally over its
// distinct labels (paper A.6: a problem with two domains counts half in
// each); items with no label add to none. It returns the weight per label
// and the number of unlabelled items.
func SplitWeights(labels [][]string) (weights map[string]float64, unlabelled int) {
	weights = map[string]float64{}
	for _, ls := range labels {
		u := slices.Compact(slices.Sorted(slices.Values(ls)))
		if len(u) == 0 {
			unlabelled++
			continue
		}
		for _, l := range u {
			weights[l] += 1 / float64(len(u))
		}
	}
	return weights, unlabelled
}

// Dated is a system's score at its release date (YYYY-MM-DD).
type Dated struct {
	Name, Date string
	Score      float64
}

// TimeFrontier marks the systems on the frontier over time (paper D.8):
// those scoring higher than every system released before them or on the
// same day (a tie with an earlier one is not a new best). pts need not be
// sorted; dates must be YYYY-MM-DD so that they sort as strings.
func TimeFrontier(pts []Dated) ([]bool, error) {
	idx := make([]int, len(pts))
	for i, p := range pts {
		if len(p.Date) != 10 || p.Date[4] != '-' || p.Date[7] != '-' {
			return nil, fmt.Errorf("analysis: %s has the release date %q, not YYYY-MM-DD", p.Name, p.Date)
		}
		idx[i] = i
	}
	// By date, then score descending: of systems released the same day
	// only the best can be a new best.
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(strings.Compare(pts[a].Date, pts[b].Date), cmp.Compare(pts[b].Score, pts[a].Score), strings.Compare(pts[a].Name, pts[b].Name))
	})
	on := make([]bool, len(pts))
	best := math.Inf(-1)
	for _, i := range idx {
		if pts[i].Score > best {
			on[i], best = true, pts[i].Score
		}
	}
	return on, nil
}
