package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// maxSeenFields bounds the input field names a tally keeps for messages:
// rows with ever new keys must not grow memory without end.
const maxSeenFields = 64

// tally counts what ingest made of one source's rows, over all its files:
// each map shard counts the fields of the rows of each span it reads
// (IngestSpan), and the reduce adds the spans and the rejects up, so the
// verdict is the whole source's, whatever the shard count.
type tally struct {
	names                    []string // the input fields the source maps
	rows, rejected, excluded int64
	reasons                  map[string]int64
	example                  map[string]dataset.Reject // the first reject of each reason
	objects                  int64                     // rows whose fields could be read
	mapped                   map[string]bool           // mapped input fields some row has
	seen                     map[string]bool           // input fields some row has (at most maxSeenFields)
}

func newTally(src *Source) *tally {
	return &tally{names: slices.Collect(maps.Values(fieldNames(src))), reasons: map[string]int64{}, example: map[string]dataset.Reject{}, mapped: map[string]bool{}, seen: map[string]bool{}}
}

// row counts one row; bad is its reject, if any.
func (t *tally) row(r record, bad *dataset.Reject) {
	t.rows++
	if r.keys != nil {
		t.objects++
		for _, k := range r.keys {
			if slices.Contains(t.names, k) {
				t.mapped[k] = true
			}
			if len(t.seen) < maxSeenFields {
				t.seen[k] = true
			}
		}
	}
	t.reject(bad)
}

// span counts the rows of one span a map shard read: their number, and
// the fields its rows have.
func (t *tally) span(sp *dataset.IngestSpan) {
	t.rows += sp.Rows
	t.objects += sp.Objects
	for _, k := range sp.Mapped {
		t.mapped[k] = true
	}
	for _, k := range sp.Seen {
		if len(t.seen) < maxSeenFields {
			t.seen[k] = true
		}
	}
}

// reject counts one reject (nil: none) of a row counted already.
func (t *tally) reject(bad *dataset.Reject) {
	if bad == nil {
		return
	}
	t.rejected++
	if bad.Reason == dataset.ReasonExcluded {
		t.excluded++
		return
	}
	if t.reasons[bad.Reason] == 0 {
		t.example[bad.Reason] = *bad
	}
	t.reasons[bad.Reason]++
}

// verdict stops ingest (exit 2) on a source that cannot be what its config
// meant: a mapped field that no row has (a typo such as unique_idd would
// otherwise give every row a content-hash id, silently), no accepted row,
// or more rejected rows than max_reject_share allows. Below the share, a
// source with rejects is logged as a warning. Rows dropped by hand
// (exclude) count for neither side.
func (t *tally) verdict(src *Source, i int, log zerolog.Logger) error {
	if t.objects > 0 {
		fields := fieldNames(src)
		for _, field := range fieldOrder {
			name, ok := fields[field]
			if !ok || t.mapped[name] {
				continue
			}
			return stage.BadInput(fmt.Errorf("source %s: ingest.sources[%d].fields.%s is %q, but no row of its files has that field; fields seen: %s",
				src.Name, i, field, name, t.seenList()))
		}
	}
	rows, rejected := t.rows-t.excluded, t.rejected-t.excluded
	if rows == 0 || rejected == 0 {
		return nil
	}
	share := float64(rejected) / float64(rows)
	reason := t.commonest()
	ex := t.example[reason]
	why := fmt.Sprintf("commonest reason %s (%d rows), e.g. %s:%d", reason, t.reasons[reason], ex.File, ex.Line)
	if ex.Field != "" {
		why += " field " + ex.Field
	}
	if ex.Detail != "" {
		why += ": " + ex.Detail
	}
	if reason == dataset.ReasonDuplicateID {
		why += " (do two sources number their rows alike? give each an id_prefix)"
	}
	switch {
	case rejected == rows:
		return stage.BadInput(fmt.Errorf("source %s: no row accepted, all %d rejected; %s", src.Name, rows, why))
	case share > src.MaxRejectShare:
		return stage.BadInput(fmt.Errorf("source %s: %d of %d rows rejected (%.1f%%, over max_reject_share %g); %s; fix the source or its field map, or raise ingest.max_reject_share (or the source's own max_reject_share)",
			src.Name, rejected, rows, 100*share, src.MaxRejectShare, why))
	}
	log.Warn().Str("source", src.Name).Int64("rows", rows).Int64("rejected", rejected).Float64("share", share).
		Float64("max_reject_share", src.MaxRejectShare).Str("commonest", reason).Msg("source has rejected rows (see rejects)")
	return nil
}

// commonest is the reason most rejects have, the first by name on a tie.
func (t *tally) commonest() string {
	var best string
	for _, r := range slices.Sorted(maps.Keys(t.reasons)) {
		if t.reasons[r] > t.reasons[best] {
			best = r
		}
	}
	return best
}

func (t *tally) seenList() string {
	if len(t.seen) == 0 {
		return "none"
	}
	s := strings.Join(slices.Sorted(maps.Keys(t.seen)), ", ")
	if len(t.seen) == maxSeenFields {
		s += ", …"
	}
	return s
}
