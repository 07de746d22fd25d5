package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is calibrate's part of the run summary: the final thresholds,
// which every row of its output carries.
func summary(ctx context.Context, s *stage.Summarizer) error {
	ms, err := layout.Complete(ctx, s.Root, s.Config.Run, dataset.Thresholds.Name)
	if err != nil {
		return nil // not complete: no line
	}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Thresholds.Name) {
			th, err := dataset.Read[dataset.Threshold](ctx, s.Root, o.Key)
			if err != nil {
				return fmt.Errorf("read %s: %w", s.Root.URI(o.Key), err)
			}
			if len(th) > 0 {
				t := th[0]
				s.Line("thresholds", "τ_topic %.6g, τ_summ %.6g, feasible %t", t.TauTopic, t.TauSumm, t.Feasible)
				if !t.Feasible {
					s.Warn("the thresholds are not feasible: some domain has fewer eligible queries than calibrate.min_eligible (reports/calibrate.md)")
				}
			}
		}
	}
	return nil
}
