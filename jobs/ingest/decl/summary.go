package decl

import (
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// summary is ingest's part of the run summary: the rows it read and what
// became of them.
func summary(ctx context.Context, s *stage.Summarizer) error {
	if st := s.Stats(ctx, dataset.Problems.Name); st != nil {
		s.Line("rows in", "%s (%s)", RowsInOf(st), s.Where(dataset.Rejects.Name))
	}
	return nil
}

// RowsIn is what ingest made of its sources' rows, from its reduce's
// statistics: every row read was filtered out by a where: condition,
// rejected (rows excluded by hand with ingest.exclude among them) or
// accepted, so Read = Filtered + Rejected + Accepted.
type RowsIn struct {
	Read, Filtered, Rejected, Excluded, Accepted int64
}

// RowsInOf reads RowsIn from the statistics of ingest's reduce. Its
// rows_read counts the rows the map shards staged, which where: had
// already dropped; filtered counts those apart.
func RowsInOf(st map[string]int64) RowsIn {
	r := RowsIn{Filtered: st["filtered"], Excluded: st["rejected_"+dataset.ReasonExcluded], Accepted: st["problems_total"]}
	for k, v := range st {
		if strings.HasPrefix(k, "rejected_") {
			r.Rejected += v
		}
	}
	r.Read = st["rows_read"] + r.Filtered
	return r
}

func (r RowsIn) String() string {
	s := fmt.Sprintf("%d read: %d filtered out by where:, %d rejected", r.Read, r.Filtered, r.Rejected)
	if r.Excluded > 0 {
		s += fmt.Sprintf(" (%d of them by ingest.exclude)", r.Excluded)
	}
	return s + fmt.Sprintf(", %d accepted", r.Accepted)
}
