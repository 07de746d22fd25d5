package lexical_test

import (
	"fmt"

	"github.com/saber-math/saber/lib/lexical"
)

// BM25 (Table 1's "bm25": rank_bm25's BM25Okapi over the math tokeniser)
// scores a query against its own candidates: the index is built over
// those candidates only. Candidate 2 shares only "the" with the query, a
// word every candidate has: its idf is negative, and rank_bm25 floors it at
// ε·mean(idf), so the score is small but not zero.
func ExampleLookup() {
	query := "Find the sum of the roots of x^2 - 5x + 6 = 0."
	docs := []string{
		"By Vieta's formulas the sum of the roots of x^2 - 5x + 6 = 0 is 5.",
		"The product of the roots of a quadratic is c/a.",
		"Count the primes below 100.",
	}
	bm25, err := lexical.Lookup("bm25")
	if err != nil {
		fmt.Println(err)
		return
	}
	scores, err := bm25.Score(query, docs)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range scores {
		fmt.Printf("%s %d: %.3f\n", bm25.Name(), i, s)
	}
	// Output:
	// bm25 0: 2.844
	// bm25 1: 0.454
	// bm25 2: 0.179
}
