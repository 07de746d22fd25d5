package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecast: one rating per candidate.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	queries, perQuery, basis, err := stage.CandidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: basis},
		plan.Metric{Name: "ratings", Value: queries * perQuery, Stats: []string{"ratings"}, Basis: "one per candidate"})
	out.Rows[dataset.Ratings.Name] = queries * perQuery
	return nil
}
