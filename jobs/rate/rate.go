// Package rate fits Bradley–Terry per query to the judge's tournaments
// (paper §3.5; SPEC §3 "Bradley–Terry") and writes `ratings`: each
// candidate's strength θ and its rating, θ rescaled to [0, 5] per query —
// the benchmark's relevance labels. Invalid judgments carry no preference:
// they are counted per candidate, never fitted.
package rate

import (
	"context"
	"fmt"
	"math"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/rate/decl"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/bt"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	qs, cands, err := readers.RangeQueries(ctx, env, env.Shard)
	if err != nil {
		return err
	}
	mine := make(map[string]bool, len(qs))
	for _, q := range qs {
		mine[q.ID] = true
	}
	js, err := readers.Judgments(ctx, env, mine)
	if err != nil {
		return err
	}
	var (
		rows   []dataset.Rating
		fitter bt.Fitter
		maxIt  int
		ll     float64
	)
	prog := env.Progress("queries", int64(len(qs)))
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return err
		}
		docs := cands[q.ID]
		index := make(map[string]int, len(docs))
		for i, d := range docs {
			index[d] = i
		}
		invalid := make([]int32, len(docs))
		var games []bt.Comparison
		for _, j := range js[q.ID] {
			a, ok1 := index[j.Sample1]
			b, ok2 := index[j.Sample2]
			if !ok1 || !ok2 {
				return stage.BadInput(fmt.Errorf("judgments: query %s round %d compares %s and %s, not both its candidates (judgments from another selection?)", q.ID, j.Round, j.Sample1, j.Sample2))
			}
			switch {
			case j.Invalid:
				invalid[a]++
				invalid[b]++
			case j.Winner == j.Sample1:
				games = append(games, bt.Comparison{Winner: a, Loser: b})
			case j.Winner == j.Sample2:
				games = append(games, bt.Comparison{Winner: b, Loser: a})
			default:
				return stage.BadInput(fmt.Errorf("judgments: query %s round %d match %d: winner %q is neither sample", q.ID, j.Round, j.Match, j.Winner))
			}
		}
		res, err := fitter.Fit(len(docs), games, bt.Options{Lambda: cfg.Lambda})
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		maxIt = max(maxIt, res.Iterations)
		ll += res.LogLik
		for i, d := range docs {
			rows = append(rows, dataset.Rating{Query: q.ID, Doc: d, Theta: res.Theta[i], Rating: res.Ratings[i],
				Games: int32(res.Games[i]), Wins: int32(res.Wins[i]), Invalid: invalid[i]})
			if res.Games[i] == 0 {
				env.Count("never_played", 1)
			}
		}
		env.Count("games", int64(len(games)))
		prog.Add(1)
	}
	prog.Finish()
	env.Count("queries", int64(len(qs)))
	env.Count("ratings", int64(len(rows)))
	env.Count("max_iterations", int64(maxIt))
	env.Log.Info().Int("queries", len(qs)).Int("ratings", len(rows)).Int("max_iterations", maxIt).
		Float64("mean_loglik", ll/math.Max(1, float64(len(qs)))).Msg("ratings fitted")
	return stage.WriteOutput(ctx, env, dataset.Ratings, rows)
}
