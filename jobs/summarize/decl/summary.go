package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is summarize's part of the run summary: the summaries and their
// mean length.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Summaries.Name); st != nil {
		mean := 0.0
		if n := st["summaries"]; n > 0 {
			mean = float64(st["core_idea_words_total"]) / float64(n)
		}
		s.Line("summaries", "%d, mean %.1f words, %d without a core idea (%s)", st["summaries"], mean, st["no_core_idea"], s.Where(dataset.Summaries.Name))
	}
	return nil
}
