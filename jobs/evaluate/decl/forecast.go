package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecast: each system (retriever × setting) ranks every query's
// candidates.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	queries, perQuery, basis, err := stage.CandidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	ev := in.Config().Evaluate
	systems := float64(len(ev.Retrievers) * max(len(ev.Settings), 1))
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "queries", Value: queries * systems, Stats: []string{"queries"}, Basis: basis + " × retrievers × settings"},
		plan.Metric{Name: "ranked rows", Value: queries * perQuery * systems, Stats: []string{"rows"},
			Basis: fmt.Sprintf("candidates × %d retrievers × %d settings", len(ev.Retrievers), max(len(ev.Settings), 1))})
	return nil
}
