package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	releasedecl "github.com/saber-math/saber/jobs/release/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is the audit's part of the run summary: its outcome, and what
// the release will do with a flagged pair. The reduce counts the rows of
// audit and leaks that reports/audit.md and index.html list; its map's
// manifests have no flagged count.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Leaks.Name); st != nil {
		a := LeakageOf(st)
		s.Line("leakage audit", "%s (%s)", a, s.Root.URI(layout.ReportsPrefix(s.Config.Run)+Report))
		s.Warn(leakWarning(a, len(releasedecl.Section.Of(s.Config).AcceptLeaks)))
	}
	return nil
}

// Leakage is the leakage audit's outcome, from its reduce's statistics:
// the pairs audited, those flagged as stating the query's problem (each a
// row of leaks) and those without a usable answer (kept, never flagged).
type Leakage struct {
	Pairs, Flagged, Invalid int64
}

// LeakageOf reads Leakage from the statistics of the audit's reduce.
func LeakageOf(st map[string]int64) Leakage {
	return Leakage{Pairs: st["pairs"], Flagged: st["leaks"], Invalid: st["invalid"]}
}

func (a Leakage) String() string {
	return fmt.Sprintf("%d pairs audited, %d flagged, %d without a usable answer", a.Pairs, a.Flagged, a.Invalid)
}

// leakWarning tells what the release will do with the flagged pairs: it
// refuses every one neither dropped nor accepted after review.
func leakWarning(a Leakage, accepted int) string {
	if a.Flagged == 0 {
		return ""
	}
	return fmt.Sprintf("the leakage audit flagged %d pair(s) as the same problem as their query (reports/audit.md): the release refuses each one until its document is dropped (ingest.exclude, then --rerun-stale) or the pair is accepted after review (release.accept_leaks: %d listed now)", a.Flagged, accepted)
}
