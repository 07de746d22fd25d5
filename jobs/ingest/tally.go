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
	subjectKeys              map[string]bool           // the keys of subject_map
	subjects                 map[string]bool           // subjects rows have: every subject_map key, others up to maxSeenFields
	whereHit                 map[string]bool           // where: values some row equals (whereKey)
	whereCase                map[string]string         // where: values only a case variant of matched: the first variant
	lastKeys                 []string                  // the keys of the last row keys noted
}

func newTally(src *Source) *tally {
	var names []string
	for _, r := range refs(src) {
		names = append(names, r.name)
	}
	keys := map[string]bool{}
	for k := range src.SubjectMap {
		keys[k] = true
	}
	return &tally{names: names, reasons: map[string]int64{}, example: map[string]dataset.Reject{}, mapped: map[string]bool{}, seen: map[string]bool{},
		subjectKeys: keys, subjects: map[string]bool{}, whereHit: map[string]bool{}, whereCase: map[string]string{}}
}

// where notes, for every value of every where: condition without
// ignore_case, whether this row's field equals it, or only equals it in
// another letter case: all conditions, not only those keep reaches.
func (t *tally) where(conds []Cond, vals map[string]value) {
	for i, c := range conds {
		if c.IgnoreCase {
			continue
		}
		v := vals[refKey(c.Field)]
		if !v.present || v.badType != "" || v.badUTF8 {
			continue
		}
		_, ws := condValues(c)
		for j, w := range ws {
			if _, isList := w.([]any); isList {
				continue
			}
			k := whereKey(i, j)
			if t.whereHit[k] {
				continue
			}
			switch want := matchText(w); {
			case v.s == want:
				t.whereHit[k] = true
			case strings.EqualFold(v.s, want):
				if _, ok := t.whereCase[k]; !ok {
					// A copy: the value may be a text in a map shard's
					// textArena, valid only until its row is written.
					t.whereCase[k] = strings.Clone(v.s)
				}
			}
		}
	}
}

// subject notes a row's subject, for the check that every subject_map key
// is some row's subject.
func (t *tally) subject(v value) {
	if !v.present || v.badType != "" || v.badUTF8 || t.subjects[v.s] {
		return
	}
	if t.subjectKeys[v.s] || len(t.subjects) < maxSeenFields+len(t.subjectKeys) {
		t.subjects[v.s] = true
	}
}

// spanLists are what the tally holds for the reduce beyond counts, as an
// IngestSpan's lists.
func (t *tally) spanLists(sp *dataset.IngestSpan) {
	sp.Mapped = slices.Sorted(maps.Keys(t.mapped))
	sp.Seen = slices.Sorted(maps.Keys(t.seen))
	sp.Subjects = slices.Sorted(maps.Keys(t.subjects))
	sp.WhereHits = slices.Sorted(maps.Keys(t.whereHit))
	for k, v := range t.whereCase {
		sp.WhereCase = append(sp.WhereCase, k+"="+v)
	}
	slices.Sort(sp.WhereCase)
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
	t.subject(r.vals["subject"])
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
	for _, k := range sp.Subjects {
		t.subject(value{s: k, present: true})
	}
	for _, k := range sp.WhereHits {
		t.whereHit[k] = true
	}
	for _, kv := range sp.WhereCase {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := t.whereCase[k]; !ok {
			t.whereCase[k] = v
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
	// Rows nearly always have the keys of the row before, in the same
	// order (interned strings, so each compare is a pointer's): those are
	// noted already. Two map lookups per key and row were a twentieth of
	// a map shard.
	if slices.Equal(r.keys, t.lastKeys) {
		return
	}
	t.lastKeys = append(t.lastKeys[:0], r.keys...)
	// Look up before assigning, which costs a map write per key.
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
	if err := t.typos(src, i); err != nil {
		return err
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

// typos stops on a where: value or a subject_map key that no row has: a
// filter on a value in the wrong case keeps (not) or drops (is) every
// row, and a map key with a typo leaves its subject unmapped, both
// silently. A where: value is an error only when some row has it in
// another case (a value no row has at all may be a sentinel that this
// release of the corpus happens not to use).
func (t *tally) typos(src *Source, i int) error {
	for ci, c := range src.Where {
		if c.IgnoreCase {
			continue
		}
		op, ws := condValues(c)
		for j, w := range ws {
			k := whereKey(ci, j)
			variant, ok := t.whereCase[k]
			if t.whereHit[k] || !ok {
				continue
			}
			at := op
			if op == "in" || op == "not_in" {
				at = fmt.Sprintf("%s[%d]", op, j)
			}
			return stage.BadInput(fmt.Errorf("source %s: ingest.sources[%d].where[%d].%s is %q, but no row's %s is that, while rows have %q: values compare in exact case; write %q, or set ignore_case: true on the condition",
				src.Name, i, ci, at, matchText(w), c.Field, variant, variant))
		}
	}
	if t.rows == 0 {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(src.SubjectMap)) {
		if t.subjects[k] {
			continue
		}
		hint := ""
		for _, s := range slices.Sorted(maps.Keys(t.subjects)) {
			if strings.EqualFold(s, k) {
				hint = fmt.Sprintf(" (rows have %q: keys compare in exact case)", s)
				break
			}
		}
		seen := "none"
		if len(t.subjects) > 0 {
			seen = strings.Join(slices.Sorted(maps.Keys(t.subjects)), ", ")
		}
		return stage.BadInput(fmt.Errorf("source %s: ingest.sources[%d].subject_map has key %q, but no row's subject is that%s; a key must be a subject as the rows spell it; subjects seen: %s",
			src.Name, i, k, hint, seen))
	}
	return nil
}
