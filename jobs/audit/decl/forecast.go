package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecastMap: each query's top audit.top candidates are audited, one
// call each with the llm backend.
func forecastMap(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	queries, perQuery, basis, err := stage.CandidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	cfg := Section.Of(in.Config())
	top := min(float64(cfg.Top), perQuery)
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: basis},
		plan.Metric{Name: "pairs audited", Value: queries * top, Stats: []string{"pairs"}, Basis: fmt.Sprintf("each query's top min(audit.top = %d, candidates)", cfg.Top)})
	if cfg.Backend != llmstage.BackendLLM {
		return nil
	}
	return in.LLM(ctx, out, queries*top, []plan.Phase{{Name: "pairs", Items: queries * top, Chain: 1}}, &stage.LLMWork{
		LLM:     in.Config().LLMFor(cfg.LLM),
		Workers: cfg.Workers,
		// A.1, filled as the stage fills prompts.AuditData (this package
		// links no prompt code): a sampled document against the next.
		Prompt: "audit",
		Data: func(docs []dataset.Document, i int) any {
			d, o := docs[i], docs[(i+1)%len(docs)]
			return map[string]string{"QueryProblem": d.Statement, "QuerySolution": d.Solution, "DocumentProblem": o.Statement, "DocumentSolution": o.Solution}
		},
		CompletionGuess: 120, // a verdict
		NoLookup:        "the comparisons depend on pairings and answers only the run makes",
	})
}
