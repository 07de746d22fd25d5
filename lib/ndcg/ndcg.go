// Package ndcg is the evaluation measure of SABER-Math (SPEC §3 "nDCG@10"):
// nDCG@k of a system's scores against a query's graded ratings, means over
// queries and over groups of queries (domains), and a seeded percentile
// bootstrap over queries for 95% confidence intervals.
//
// For one query with candidates d_1 … d_n, ratings rel_i and system scores
// s_i:
//
//   - the system's ranking sorts the candidates by score, descending, and
//     breaks ties by document id, ascending (so equal scores never make the
//     result depend on the input order);
//   - DCG@k = Σ_{r=1}^{min(k,n)} gain(rel at rank r) / log2(r + 1), with
//     gain(rel) = 2^rel − 1 (Exponential, the default) or rel (Linear);
//   - the ideal DCG@k is the same sum over all n ratings sorted descending:
//     the best ranking of the query's own candidates;
//   - nDCG@k = DCG@k / ideal DCG@k, and 0 when the ideal DCG is 0 (a query
//     whose candidates all have gain 0 cannot tell systems apart, and 0
//     keeps the mean over queries defined; trec_eval does the same).
//
// With Linear gain and ratings ≥ 0, this is trec_eval's ndcg_cut.k (gain =
// the qrels relevance, discount log2(rank + 1), ideal from the qrels),
// except for ties: trec_eval breaks equal scores by docno in descending
// order, we in ascending order, as the SPEC says. TestTrecEval works an
// example by hand.
package ndcg

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// DefaultK is the cutoff of nDCG@10.
const DefaultK = 10

// Gain is how a rating becomes a gain.
type Gain int

const (
	Exponential Gain = iota // 2^rel − 1, the default
	Linear                  // rel
)

func (g Gain) String() string {
	switch g {
	case Exponential:
		return "exponential"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("Gain(%d)", int(g))
}

// ParseGain parses "exponential" or "linear".
func ParseGain(s string) (Gain, error) {
	switch s {
	case "exponential":
		return Exponential, nil
	case "linear":
		return Linear, nil
	}
	return 0, fmt.Errorf("ndcg: unknown gain %q (known: exponential, linear)", s)
}

func (g Gain) of(rel float64) float64 {
	if g == Linear {
		return rel
	}
	return math.Exp2(rel) - 1
}

// Options are the cutoff and gain of nDCG. The zero value is nDCG@10 with
// exponential gain.
type Options struct {
	K    int // cutoff; 0 means DefaultK
	Gain Gain
}

func (o Options) resolve() (Options, error) {
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.K < 0 {
		return o, fmt.Errorf("ndcg: cutoff k = %d, want k ≥ 1", o.K)
	}
	if o.Gain != Exponential && o.Gain != Linear {
		return o, fmt.Errorf("ndcg: unknown %v", o.Gain)
	}
	return o, nil
}

// Ranking returns the indices of the documents in the system's order:
// scores descending, ties broken by ids ascending. The ids must be distinct
// (a tie between equal ids would have no defined order) and no score NaN.
func Ranking[ID cmp.Ordered](ids []ID, scores []float64) ([]int, error) {
	if len(ids) != len(scores) {
		return nil, fmt.Errorf("ndcg: %d ids but %d scores", len(ids), len(scores))
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
		if math.IsNaN(scores[i]) {
			return nil, fmt.Errorf("ndcg: score of document %v is NaN", ids[i])
		}
	}
	// No score is NaN, so < and > order them (cmp.Compare's NaN cases
	// cost as much again); ids are compared on ties only. This is inside
	// the timed region of every retriever (retrieval.Rank).
	slices.SortFunc(order, func(a, b int) int {
		switch sa, sb := scores[a], scores[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return cmp.Compare(ids[a], ids[b])
	})
	// Distinct ids, by a set rather than by sorting them: for 150 string
	// ids sorting took as long as the ranking.
	seen := make(map[ID]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			return nil, fmt.Errorf("ndcg: document id %v appears twice", id)
		}
		seen[id] = struct{}{}
	}
	return order, nil
}

// DCG returns Σ_{r=1}^{min(k,n)} gain(ranked[r−1]) / log2(r + 1) for
// ratings listed in rank order, summed in rank order.
func DCG(ranked []float64, k int, g Gain) float64 {
	sum := 0.0
	for r, rel := range ranked[:min(k, len(ranked))] {
		sum += g.of(rel) / math.Log2(float64(r+2))
	}
	return sum
}

// IdealDCG returns the DCG@k of the ratings sorted descending.
func IdealDCG(ratings []float64, k int, g Gain) float64 {
	best := slices.Clone(ratings)
	slices.SortFunc(best, func(a, b float64) int { return cmp.Compare(b, a) })
	return DCG(best, k, g)
}

// NDCG returns nDCG@k of one query: the ranking of ids by scores (see
// Ranking) against the ratings, 0 when the ideal DCG is 0. The three
// slices are parallel. Ratings must be finite.
func NDCG[ID cmp.Ordered](ids []ID, scores, ratings []float64, opt Options) (float64, error) {
	opt, err := opt.resolve()
	if err != nil {
		return 0, err
	}
	if len(ratings) != len(ids) {
		return 0, fmt.Errorf("ndcg: %d ids but %d ratings", len(ids), len(ratings))
	}
	for i, r := range ratings {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return 0, fmt.Errorf("ndcg: rating of document %v is %v", ids[i], r)
		}
	}
	order, err := Ranking(ids, scores)
	if err != nil {
		return 0, err
	}
	ideal := IdealDCG(ratings, opt.K, opt.Gain)
	if ideal == 0 {
		return 0, nil
	}
	ranked := make([]float64, min(opt.K, len(order)))
	for r := range ranked {
		ranked[r] = ratings[order[r]]
	}
	return DCG(ranked, opt.K, opt.Gain) / ideal, nil
}

// Mean returns the mean of values, summed in order. It is an error for
// values to be empty.
func Mean(values []float64) (float64, error) {
	if len(values) == 0 {
		return 0, fmt.Errorf("ndcg: mean of no values")
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values)), nil
}

// GroupMeans returns the mean of the values of each group: values[i]
// belongs to groups[i]. Every group in the result has at least one value.
func GroupMeans[G comparable](values []float64, groups []G) (map[G]float64, error) {
	if len(values) != len(groups) {
		return nil, fmt.Errorf("ndcg: %d values but %d groups", len(values), len(groups))
	}
	sums := map[G]float64{}
	counts := map[G]int{}
	for i, v := range values {
		sums[groups[i]] += v
		counts[groups[i]]++
	}
	for g, n := range counts {
		sums[g] /= float64(n)
	}
	return sums, nil
}
