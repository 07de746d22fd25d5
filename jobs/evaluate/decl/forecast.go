package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/jobs/config"
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
	rs, ss := config.EvaluateRetrievers.Get(in.Config()), config.EvaluateSettings.Get(in.Config())
	systems := float64(len(rs) * max(len(ss), 1))
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "queries", Value: queries * systems, Stats: []string{"queries"}, Basis: basis + " × retrievers × settings"},
		plan.Metric{Name: "ranked rows", Value: queries * perQuery * systems, Stats: []string{"rows"},
			Basis: fmt.Sprintf("candidates × %d retrievers × %d settings", len(rs), max(len(ss), 1))})
	return nil
}
