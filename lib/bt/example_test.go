package bt_test

import (
	"fmt"

	"github.com/saber-math/saber/lib/bt"
)

// Three candidate solutions to one query, judged pairwise: candidate 0
// wins every game, 1 beats 2 twice and loses to it once. The fit puts them
// on one scale, and Ratings rescales that to [0, 5].
func ExampleFit() {
	games := []bt.Comparison{
		{Winner: 0, Loser: 1},
		{Winner: 0, Loser: 2},
		{Winner: 1, Loser: 2},
		{Winner: 1, Loser: 2},
		{Winner: 2, Loser: 1},
	}
	res, err := bt.Fit(3, games, bt.Options{}) // λ = 0.01, the SPEC's default
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range res.Theta {
		fmt.Printf("candidate %d: %d/%d wins, θ = %.3f, rating %.3f\n", i, res.Wins[i], res.Games[i], res.Theta[i], res.Ratings[i])
	}
	// Output:
	// candidate 0: 2/2 wins, θ = 2.859, rating 5.000
	// candidate 1: 2/4 wins, θ = -1.089, rating 0.736
	// candidate 2: 1/4 wins, θ = -1.770, rating 0.000
}

// A Fitter reuses its work space across fits: one per goroutine, one fit
// per query.
func ExampleFitter() {
	var f bt.Fitter
	queries := [][]bt.Comparison{
		{{Winner: 0, Loser: 1}, {Winner: 1, Loser: 2}},
		{{Winner: 2, Loser: 0}, {Winner: 2, Loser: 1}, {Winner: 0, Loser: 1}},
	}
	for q, games := range queries {
		res, err := f.Fit(3, games, bt.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("query %d: ratings %.3f\n", q, res.Ratings)
	}
	// Output:
	// query 0: ratings [5.000 2.500 0.000]
	// query 1: ratings [2.500 0.000 5.000]
}
