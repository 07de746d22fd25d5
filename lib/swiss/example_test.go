package swiss_test

import (
	"fmt"

	"github.com/saber-math/saber/lib/swiss"
)

// A driver with checkpoints: pair a round, ask the judge about each match,
// record the judgments, pair the next round. Here the judge prefers the
// lower-numbered candidate. Round 2 pairs candidates of equal wins, but
// for one of the three with none, who meets a winner of round 1.
func ExampleTournament_Pair() {
	t, err := swiss.New(6, swiss.SeedRounds(7, "judge", "query-0042"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		round := t.Pair()
		var js []swiss.Judgment
		fmt.Printf("round %d:", round.Number)
		for _, m := range round.Matches {
			fmt.Printf(" %d–%d", m.First, m.Second) // First is shown as Sample 1
			js = append(js, swiss.Judgment{Match: m, Winner: min(m.First, m.Second)})
		}
		fmt.Println()
		if err := t.Record(js); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("wins:", t.Wins())
	// Output:
	// round 1: 2–5 1–3 4–0
	// round 2: 3–4 0–5 1–2
	// wins: [2 2 1 1 0 0]
}

// Run plays whole rounds without checkpoints, as simulations do; an
// Invalid judgment counts as played but is a win for nobody.
func ExampleTournament_Run() {
	t, err := swiss.New(5, swiss.SeedRounds(7, "judge", "query-0043"))
	if err != nil {
		fmt.Println(err)
		return
	}
	judge := func(m swiss.Match) int {
		if m.First+m.Second == 5 {
			return swiss.Invalid // the judge gave no usable answer
		}
		return max(m.First, m.Second)
	}
	if err := t.Run(4, judge); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("wins:  ", t.Wins())
	fmt.Println("played:", t.Played())
	fmt.Println("byes:  ", t.Byes())
	// Output:
	// wins:   [0 1 2 2 2]
	// played: [4 3 3 4 2]
	// byes:   [0 1 1 0 2]
}

// Matches forecasts the comparisons of a tournament before any judge
// answers: 150 candidates, 20 rounds.
func ExampleMatches() {
	n, err := swiss.Matches(150, swiss.DefaultRounds, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n)
	// Output:
	// 1495
}
