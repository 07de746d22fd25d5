package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/lib/ndcg"
)

// Variant is one way of turning ratings into nDCG: a gain and the top of
// the rating scale. Ratings are on [0, 5]; a Scale of 3 rescales them to
// [0, 3] (r·3/5) before the gain, as in the paper's App. D.3.
type Variant struct {
	Gain  ndcg.Gain
	Scale int
}

// Variants are the four of the sensitivity table; the first is the default
// every other table uses.
var Variants = []Variant{
	{ndcg.Exponential, trec.MaxRating},
	{ndcg.Linear, trec.MaxRating},
	{ndcg.Exponential, 3},
	{ndcg.Linear, 3},
}

// Index of the [0, 5] variants of each gain in Variants.
const (
	vExp = 0
	vLin = 1
)

func (v Variant) String() string { return fmt.Sprintf("[0,%d] + %s gain", v.Scale, v.Gain) }

// rescale maps a rating on [0, 5] onto [0, v.Scale].
func (v Variant) rescale(r float64) float64 {
	if v.Scale == trec.MaxRating {
		return r
	}
	return r * float64(v.Scale) / trec.MaxRating
}

// QueryNDCG returns nDCG@k of one query's run. docs are the documents the
// system returned with their scores; rated[i] is the rating of docs[i]
// (0 for an unjudged document); all are every rating of the query. The
// documents are ordered by ndcg.Ranking — score descending, ties by id
// ascending (SPEC §3) — and the DCG@k of that order is divided by the ideal
// DCG@k of all the query's ratings, so a run that returns only some of the
// candidates is still measured against the best ranking of all of them;
// 0 when the ideal DCG is 0. When docs are all the candidates this is
// exactly ndcg.NDCG(docs, scores, rated, opt), to the last bit.
func QueryNDCG(docs []string, scores, rated, all []float64, opt ndcg.Options) (float64, error) {
	if len(rated) != len(docs) {
		return 0, fmt.Errorf("report: %d documents but %d ratings", len(docs), len(rated))
	}
	order, err := ndcg.Ranking(docs, scores)
	if err != nil {
		return 0, err
	}
	return ofOrder(order, rated, all, opt), nil
}

// ofOrder is nDCG@k of the documents in order (indices into rated).
func ofOrder(order []int, rated, all []float64, opt ndcg.Options) float64 {
	k := opt.K
	if k == 0 {
		k = ndcg.DefaultK
	}
	ideal := ndcg.IdealDCG(all, k, opt.Gain)
	if ideal == 0 {
		return 0
	}
	ranked := make([]float64, min(k, len(order)))
	for r := range ranked {
		ranked[r] = rated[order[r]]
	}
	return ndcg.DCG(ranked, k, opt.Gain) / ideal
}

// Inversions counts the pairs (i, j) that x and y order strictly
// oppositely: (x_i − x_j)(y_i − y_j) < 0. A pair tied in either is not
// counted. It returns the count and the number of pairs, n(n−1)/2.
func Inversions(x, y []float64) (inv, pairs int) {
	if len(x) != len(y) {
		panic("report: Inversions of unequal lengths")
	}
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if (x[i]-x[j])*(y[i]-y[j]) < 0 {
				inv++
			}
		}
	}
	return inv, len(x) * (len(x) - 1) / 2
}

// Judged is a benchmark's relevance labels for scoring an external run:
// per query, each judged document's relevance.
type Judged map[string]map[string]float64

// JudgedFrom builds the labels from a qrels file, a ratings TSV, or both.
// With both, they must judge the same (query, document) pairs and each
// qrels level must be trec.Level of the TSV's rating (the TSV's exact
// ratings are used); that catches a qrels and a TSV of different runs.
// Negative relevance is an error: SABER-Math's gains are defined for
// ratings ≥ 0.
func JudgedFrom(qrels []trec.Qrel, qrelsName string, ratings []trec.Rating, ratingsName string) (Judged, error) {
	j := Judged{}
	put := func(q, d string, v float64, where string) error {
		if v < 0 {
			return fmt.Errorf("%s: query %s doc %s has relevance %v; want ≥ 0", where, q, d, v)
		}
		if j[q] == nil {
			j[q] = map[string]float64{}
		}
		j[q][d] = v
		return nil
	}
	if ratings == nil {
		for _, r := range qrels {
			if err := put(r.Query, r.Doc, float64(r.Level), fmt.Sprintf("%s:%d", qrelsName, r.Line)); err != nil {
				return nil, err
			}
		}
		return j, nil
	}
	for _, r := range ratings {
		if err := put(r.Query, r.Doc, r.Rating, fmt.Sprintf("%s:%d", ratingsName, r.Line)); err != nil {
			return nil, err
		}
	}
	if qrels == nil {
		return j, nil
	}
	n := 0
	for _, q := range qrels {
		v, ok := j[q.Query][q.Doc]
		if !ok {
			return nil, fmt.Errorf("%s:%d: query %s doc %s is not in %s: the qrels and the ratings TSV must come from the same run", qrelsName, q.Line, q.Query, q.Doc, ratingsName)
		}
		if l, err := trec.Level(v); err != nil || l != q.Level {
			return nil, fmt.Errorf("%s:%d: query %s doc %s has level %d but its rating in %s is %v (level %d): the qrels and the ratings TSV must come from the same run", qrelsName, q.Line, q.Query, q.Doc, q.Level, ratingsName, v, l)
		}
		n++
	}
	if n != len(ratings) {
		return nil, fmt.Errorf("%s rates %d documents but %s judges %d: the qrels and the ratings TSV must come from the same run", ratingsName, len(ratings), qrelsName, n)
	}
	return j, nil
}

// What EvalOptions.Unjudged and EvalOptions.Missing accept.
const (
	PolicyError = "error"
	PolicyZero  = "zero"
	PolicySkip  = "skip"
)

// EvalOptions say how EvalRun scores.
type EvalOptions struct {
	// K and Gain of nDCG (K 0 means 10).
	K    int
	Gain ndcg.Gain
	// Unjudged is what a retrieved document without a judgment means:
	// "error" (the default: SABER-Math's runs rerank each query's own
	// candidates, all judged) or "zero" (gain 0, as trec_eval).
	Unjudged string
	// Missing is what a judged query without a run line means: "error"
	// (the default, as report), "skip" (left out of the mean, as
	// trec_eval) or "zero" (nDCG 0, as trec_eval -c).
	Missing string
}

// QueryScore is one query's nDCG.
type QueryScore struct {
	Query string
	NDCG  float64
	// TrecTies is the nDCG under trec_eval's tie order (score descending,
	// document id descending); it differs from NDCG only when tied scores
	// straddle a change of rating within the top K.
	TrecTies float64
	// Retrieved counts the query's run lines; Unjudged those without a
	// judgment (scored as gain 0).
	Retrieved, Unjudged int
	// Missing: the run has no line for this judged query (scored 0).
	Missing bool
}

// EvalResult is a run's score.
type EvalResult struct {
	Tag     string
	Queries []QueryScore // sorted by query id; skipped queries left out
	// Mean is the mean nDCG over Queries; MeanTrecTies the same under
	// trec_eval's tie order.
	Mean, MeanTrecTies float64
	// Skipped lists judged queries without run lines (Missing "skip").
	Skipped []string
	// TieDiffers counts queries whose nDCG depends on the tie order.
	TieDiffers int
}

func policy(v, def string, allowed ...string) (string, error) {
	if v == "" {
		return def, nil
	}
	if !slices.Contains(allowed, v) {
		return "", fmt.Errorf("%q is not one of %s", v, strings.Join(allowed, ", "))
	}
	return v, nil
}

// EvalRun scores a TREC run (one tag) against judged labels the way the
// report stage does: per query, QueryNDCG of the run's documents ordered
// by score (descending, ties by document id ascending; the rank column is
// ignored, as trec_eval ignores it), then the mean over the judged queries.
// A run query that is not judged is an error naming its line. runName is
// used in errors.
func EvalRun(j Judged, lines []trec.RunLine, runName string, opt EvalOptions) (*EvalResult, error) {
	var err error
	if opt.Unjudged, err = policy(opt.Unjudged, PolicyError, PolicyError, PolicyZero); err != nil {
		return nil, fmt.Errorf("unjudged: %w", err)
	}
	if opt.Missing, err = policy(opt.Missing, PolicyError, PolicyError, PolicySkip, PolicyZero); err != nil {
		return nil, fmt.Errorf("missing: %w", err)
	}
	if opt.K == 0 {
		opt.K = ndcg.DefaultK
	}
	if opt.K < 0 {
		return nil, fmt.Errorf("k = %d, want ≥ 1", opt.K)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no run lines", runName)
	}
	res := &EvalResult{Tag: lines[0].Tag}
	byQuery := map[string][]trec.RunLine{}
	for _, l := range lines {
		if l.Tag != res.Tag {
			return nil, fmt.Errorf("%s:%d: tag %q, but line %d has %q: one run per file", runName, l.Line, l.Tag, lines[0].Line, res.Tag)
		}
		if _, ok := j[l.Query]; !ok {
			return nil, fmt.Errorf("%s:%d: query %s is not judged (not a benchmark query of these labels)", runName, l.Line, l.Query)
		}
		byQuery[l.Query] = append(byQuery[l.Query], l)
	}
	queries := make([]string, 0, len(j))
	for q := range j {
		queries = append(queries, q)
	}
	slices.Sort(queries)
	nopt := ndcg.Options{K: opt.K, Gain: opt.Gain}
	var missing []string
	for _, q := range queries {
		rel := j[q]
		all := make([]float64, 0, len(rel))
		for _, v := range rel {
			all = append(all, v)
		}
		// IdealDCG sorts; the map's order cannot reach the result.
		ls := byQuery[q]
		if len(ls) == 0 {
			switch opt.Missing {
			case PolicyError:
				missing = append(missing, q)
			case PolicySkip:
				res.Skipped = append(res.Skipped, q)
			case PolicyZero:
				res.Queries = append(res.Queries, QueryScore{Query: q, Missing: true})
			}
			continue
		}
		docs := make([]string, len(ls))
		scores := make([]float64, len(ls))
		rated := make([]float64, len(ls))
		qs := QueryScore{Query: q, Retrieved: len(ls)}
		for i, l := range ls {
			docs[i], scores[i] = l.Doc, l.Score
			v, ok := rel[l.Doc]
			if !ok {
				if opt.Unjudged == PolicyError {
					return nil, fmt.Errorf("%s:%d: query %s retrieves doc %s, which is not judged (not one of its candidates); --unjudged zero scores it as gain 0, as trec_eval does", runName, l.Line, q, l.Doc)
				}
				qs.Unjudged++
			}
			rated[i] = v
		}
		order, err := ndcg.Ranking(docs, scores)
		if err != nil {
			return nil, fmt.Errorf("%s: query %s: %w", runName, q, err)
		}
		qs.NDCG = ofOrder(order, rated, all, nopt)
		trecOrder := slices.Clone(order)
		slices.SortStableFunc(trecOrder, func(a, b int) int {
			return cmp.Or(cmp.Compare(scores[b], scores[a]), cmp.Compare(docs[b], docs[a]))
		})
		qs.TrecTies = ofOrder(trecOrder, rated, all, nopt)
		if qs.TrecTies != qs.NDCG {
			res.TieDiffers++
		}
		res.Queries = append(res.Queries, qs)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: %d judged queries have no run line (first: %s); --missing skip leaves them out of the mean (as trec_eval), --missing zero scores them 0 (as trec_eval -c)",
			runName, len(missing), strings.Join(missing[:min(5, len(missing))], ", "))
	}
	if len(res.Queries) == 0 {
		return nil, fmt.Errorf("%s: no judged query to score", runName)
	}
	vals := make([]float64, len(res.Queries))
	tv := make([]float64, len(res.Queries))
	for i, q := range res.Queries {
		vals[i], tv[i] = q.NDCG, q.TrecTies
	}
	res.Mean, _ = ndcg.Mean(vals)
	res.MeanTrecTies, _ = ndcg.Mean(tv)
	return res, nil
}
