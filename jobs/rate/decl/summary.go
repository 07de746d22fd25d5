package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is rate's part of the run summary: the ratings.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Ratings.Name); st != nil {
		s.Line("ratings", "%d, %d never played (%s)", st["ratings"], st["never_played"], s.Where(dataset.Ratings.Name))
	}
	return nil
}
