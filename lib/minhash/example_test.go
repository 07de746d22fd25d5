package minhash_test

import (
	"fmt"

	"github.com/saber-math/saber/lib/minhash"
)

// Three problem statements: 1 re-posts 0 with a label and other spacing,
// 2 asks about another sum. Dedup's path for each: normalise,
// shingle, sign, index; then query the index with every signature, and
// confirm a candidate pair by its exact Jaccard and the Guard.
func ExampleIndex_Query() {
	problems := []string{
		"Find the number of ordered pairs of positive integers $(x, y)$ such that $x + y = 20$ and both $x$ and $y$ are even.",
		"Problem 3. Find the number of ordered pairs of positive integers $(x,y)$ such that $x+y=20$ and both $x$ and $y$ are even.",
		"Find the number of ordered pairs of positive integers $(x, y)$ such that $x + y = 30$ and both $x$ and $y$ are even.",
	}
	hasher := minhash.NewHasher(112, 42) // datatrove's 14 bands × 8 rows
	index, err := minhash.NewIndex(14, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	shingles := make([][]uint64, len(problems))
	sigs := make([][]uint64, len(problems))
	for i, p := range problems {
		shingles[i] = minhash.Shingles(minhash.Normalize(p), 5)
		sigs[i] = hasher.Signature(shingles[i])
		index.Add(i, sigs[i])
	}
	index.Build()
	for i, sig := range sigs {
		fmt.Printf("problem %d: candidates %v\n", i, index.Query(sig))
	}
	for _, pr := range [][2]int{{0, 1}, {0, 2}} {
		a, b := pr[0], pr[1]
		fmt.Printf("%d~%d: Jaccard %.3f, estimated %.3f, guard %q\n", a, b,
			minhash.Jaccard(shingles[a], shingles[b]), minhash.EstimatedJaccard(sigs[a], sigs[b]),
			minhash.Guard(problems[a], problems[b]))
	}
	fmt.Printf("threshold of 14×8: %.3f\n", minhash.Threshold(14, 8))
	// Output:
	// problem 0: candidates [0 1]
	// problem 1: candidates [0 1]
	// problem 2: candidates [2]
	// 0~1: Jaccard 0.905, estimated 0.920, guard ""
	// 0~2: Jaccard 0.583, estimated 0.616, guard "numbers differ"
	// threshold of 14×8: 0.719
}

// Normalize is the text shingles are taken from: punctuation and LaTeX
// markup separate words, numbers are kept.
func ExampleNormalize() {
	fmt.Println(minhash.Normalize(`Compute $\frac{1}{2} + x^2$ for x = 3.`))
	// Output:
	// compute frac 1 2 x 2 for x 3
}
