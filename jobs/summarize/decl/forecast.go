package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecast: one summary per document, one call each with the llm backend.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	docs, basis, err := in.Rows(ctx, dataset.Corpus.Name)
	if err != nil {
		return err
	}
	cfg := Section.Of(in.Config())
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "documents", Value: docs, Stats: []string{"documents"}, Basis: basis},
		plan.Metric{Name: "summaries", Value: docs, Rows: dataset.Summaries.Name, Basis: "one per document (a rejected answer makes it fewer)"})
	out.Rows[dataset.Summaries.Name] = docs
	if cfg.Backend != llmstage.BackendLLM {
		return nil
	}
	return in.LLM(ctx, out, docs, []plan.Phase{{Name: "documents", Items: docs, Chain: 1}}, &stage.LLMWork{
		LLM:     in.Config().LLMFor(cfg.LLM),
		Workers: cfg.Workers,
		// F.2, filled as the stage fills prompts.SummaryData (this package
		// links no prompt code).
		Prompt: "summary",
		Data: func(docs []dataset.Document, i int) any {
			return map[string]string{"Problem": docs[i].Statement, "Solution": docs[i].Solution}
		},
		CompletionGuess: 150, // the summary's JSON
	})
}
