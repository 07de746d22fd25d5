package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
	names                    []string // the input fields the source's config names (refs)
	rows, rejected, excluded int64
	filtered                 int64 // rows where: dropped, counted apart from rows
	reasons                  map[string]int64
	example                  map[string]dataset.Reject // the first reject of each reason
	objects                  int64                     // rows whose fields could be read
	mapped                   map[string]bool           // mapped input fields some row has
	seen                     map[string]bool           // input fields some row has (at most maxSeenFields)
}

func newTally(src *Source) *tally {
	var names []string
	for _, r := range refs(src) {
		names = append(names, r.name)
	}
	return &tally{names: names, reasons: map[string]int64{}, example: map[string]dataset.Reject{}, mapped: map[string]bool{}, seen: map[string]bool{}}
}

// filter counts a row that where: dropped: neither accepted nor
// rejected, but its fields count as seen.
func (t *tally) filter(r record) {
	t.filtered++
	t.keys(r)
}

// row counts one row; bad is its reject, if any.
func (t *tally) row(r record, bad *dataset.Reject) {
	t.rows++
	t.keys(r)
	t.reject(bad)
}

// span counts the rows of one span a map shard read: their number, the
// rows where: dropped, and the fields its rows have.
func (t *tally) span(sp *dataset.IngestSpan) {
	t.rows += sp.Rows
	t.filtered += sp.Filtered
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

// keys notes the input fields a row has (nil: it could not be read).
func (t *tally) keys(r record) {
	if r.keys == nil {
		return
	}
	t.objects++
	// Every row has the same few keys: look up before assigning, which
	// costs a map write per key and row.
	for _, k := range r.keys {
		if !t.mapped[k] && slices.Contains(t.names, k) {
			t.mapped[k] = true
		}
		if len(t.seen) < maxSeenFields && !t.seen[k] {
			t.seen[k] = true
		}
	}
}

// verdict stops ingest (exit 2) on a source that cannot be what its config
// meant: an input field the config names (fields:, files:, a template, a
// where: condition) that no row has (a typo such as unique_idd would
// otherwise give every row a content-hash id, silently), no accepted row
// (every row filtered included), or more rejected rows than
// max_reject_share allows. Below the share, a source with rejects is
// logged as a warning. Rows dropped by hand (exclude) count for neither
// side; rows dropped by where: are counted apart, not as rejects.
//
// It also records the source's counts, in the reduce's log line and its
// stats (saber stats).
func (t *tally) verdict(src *Source, i int, env *stage.Env) error {
	log := env.Log
	if t.objects > 0 {
		for _, r := range refs(src) {
			if t.mapped[r.name] {
				continue
			}
			return stage.BadInput(fmt.Errorf("source %s: ingest.sources[%d].%s, but no row of its files has that field; fields seen: %s",
				src.Name, i, r.what, t.seenList()))
		}
	}
	rows, rejected := t.rows-t.excluded, t.rejected-t.excluded
	accepted := rows - rejected
	log.Info().Str("source", src.Name).Int64("accepted", accepted).Int64("filtered", t.filtered).
		Int64("rejected", rejected).Int64("excluded", t.excluded).Msg("source read")
	env.Count("filtered", t.filtered)
	env.Count("source_"+src.Name+"_accepted", accepted)
	env.Count("source_"+src.Name+"_filtered", t.filtered)
	env.Count("source_"+src.Name+"_rejected", rejected)
	if rows == 0 && t.filtered > 0 {
		return stage.BadInput(fmt.Errorf("source %s: no row accepted, all %d filtered by ingest.sources[%d].where; loosen the conditions", src.Name, t.filtered, i))
	}
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
