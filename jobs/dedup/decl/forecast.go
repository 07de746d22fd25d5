package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecastMap: one signature per problem.
func forecastMap(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	n, basis, err := in.Rows(ctx, dataset.Problems.Name)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics, plan.Metric{Name: "signatures", Value: n, Stats: []string{"signatures"}, Basis: "one per problem: " + basis})
	return nil
}

// forecastReduce: every problem kept, as duplicates are known only once
// the signatures are compared.
func forecastReduce(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	n, basis, err := in.Rows(ctx, dataset.Problems.Name)
	if err != nil {
		return err
	}
	// Duplicates are found only by comparing signatures: before dedup ran,
	// the forecast keeps every problem (the paper's run dropped 5.7%).
	out.Metrics = append(out.Metrics, plan.Metric{Name: "kept (corpus)", Value: n, Stats: []string{"kept"},
		Basis: basis + ", none dropped (duplicates are known only after dedup; the paper dropped 5.7%)"})
	out.Rows[dataset.Corpus.Name] = n
	return nil
}
