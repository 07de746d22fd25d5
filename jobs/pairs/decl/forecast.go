package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecast: every document is a query scanned; the pairs over the floors
// are known only from the similarities.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	docs, basis, err := in.Rows(ctx, dataset.Corpus.Name)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics, plan.Metric{Name: "queries scanned", Value: docs, Stats: []string{"queries"}, Basis: "every document is a query: " + basis})
	out.Notes = append(out.Notes, "pairs over the floors depend on the similarities: counted by the run (saber stats)")
	return nil
}
