package decl

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is dedup's part of the run summary: its clusters and what it
// kept.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Corpus.Name); st != nil {
		s.Line("deduplicated", "%d duplicate clusters, %d dropped, %d kept (%s)", st["clusters"], st["dropped"], st["kept"], s.Where(dataset.Corpus.Name))
	}
	return nil
}
