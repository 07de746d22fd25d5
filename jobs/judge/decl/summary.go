package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is judge's part of the run summary: the judgments, and a
// warning when too many are invalid.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Judgments.Name); st != nil && st["judgments"] > 0 {
		share := float64(st["invalid"]) / float64(st["judgments"])
		s.Line("judgments", "%d over %d queries, %d invalid (%.1f%%)", st["judgments"], st["queries"], st["invalid"], 100*share)
		if share > 0.05 {
			s.Warn(fmt.Sprintf("%.1f%% of judgments are invalid (no \\boxed{1} or \\boxed{2}): check the judge model and prompt (judge.max_invalid_share bounds it)", 100*share))
		}
	}
	return nil
}
