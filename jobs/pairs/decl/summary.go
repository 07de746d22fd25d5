package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is pairs' part of the run summary: the pairs by category.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Pairs.Name); st != nil {
		s.Line("pairs", "%d (topic %d, summary %d, both %d)", st["pairs"], st["pairs_topic"], st["pairs_summary"], st["pairs_both"])
	}
	return nil
}
