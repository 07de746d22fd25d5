package ndcg_test

import (
	"fmt"

	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/seed"
)

// One query's candidates, a retriever's scores for them and their relevance
// ratings (the Bradley–Terry ratings, 0–5). The retriever ranks d3 first,
// though d1 is the most relevant.
func ExampleNDCG() {
	ids := []string{"d1", "d2", "d3", "d4"}
	scores := []float64{0.71, 0.40, 0.83, 0.40} // d2 and d4 tie: d2 ranks first
	ratings := []float64{5, 1.5, 3.2, 0}
	exp, err := ndcg.NDCG(ids, scores, ratings, ndcg.Options{}) // nDCG@10, gain 2^rel − 1
	if err != nil {
		fmt.Println(err)
		return
	}
	lin, err := ndcg.NDCG(ids, scores, ratings, ndcg.Options{K: 2, Gain: ndcg.Linear})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("nDCG@10 = %.3f\n", exp)
	fmt.Printf("nDCG@2, linear gain = %.3f\n", lin)
	// Output:
	// nDCG@10 = 0.773
	// nDCG@2, linear gain = 0.905
}

// The per-query nDCG@10 of a retriever, its mean and a 95% percentile
// bootstrap interval, seeded per run and measure as evaluate does.
func ExampleBootstrap() {
	perQuery := []float64{0.912, 0.634, 0.487, 0.958, 0.701, 0.553, 0.820, 0.399}
	ci, err := ndcg.Bootstrap(perQuery, ndcg.BootstrapOptions{}, seed.Rand(7, "evaluate", "bm25/ndcg@10"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("nDCG@10 = %.3f [%.3f, %.3f]\n", ci.Mean, ci.Lo, ci.Hi)
	// Output:
	// nDCG@10 = 0.683 [0.554, 0.819]
}
