package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is report's part of the run summary: the systems scored.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Results.Name); st != nil {
		s.Line("evaluated", "%d systems over %d queries", st["systems"], st["queries"])
	}
	return nil
}
