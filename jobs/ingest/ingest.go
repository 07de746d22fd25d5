// Package ingest is the first stage: it reads the configured sources (JSONL,
// gzip or zstd JSONL, JSON arrays, Parquet), maps their fields onto problem
// rows, and writes `problems` and `rejects`.
//
// The map shards each read only their share of the inputs: plan cuts the
// input list, in source order, into units — whole files, and byte ranges of
// large uncompressed JSONL files split at line boundaries — from the files'
// sizes alone, and gives each shard a contiguous run of units balanced by
// bytes, so the shards together read each input byte once. A shard judges
// each row of its share and writes it, accepted or rejected, with its
// place (file, span, line) to the staging dataset ingest_rows, sorted by
// id, and what it read to ingest_spans; the text of its accepted problems
// goes, compressed as problems stores it, to ingest_problems.
//
// The reduce (one task) merges the shards' ingest_rows by id: the rows of
// an id arrive together in source order, so the first occurrence is kept,
// as one reader of every input would keep it, and the others are
// duplicate_id rejects. It turns each span's local line numbers into the
// file's, comes to each source's verdict (max_reject_share, no accepted
// row, a mapped field no row has) from the spans' counts and the rejects,
// and writes problems and rejects as one part each: their bytes do not
// depend on ingest.shards. Problems' row groups end where their ids say
// (rowgroups.go), so most are a map shard's own, copied compressed.
package ingest

import (
	"fmt"
	"hash"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/ingest/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": mapShard, "reduce": reduce})

// validate turns a record into a problem or the reason it is rejected.
func validate(cfg *config.Config, in input, r record, h hashState) (dataset.Problem, *dataset.Reject) {
	// The rows of an exploded list share their line: say which element.
	elem := ""
	if r.elem > 0 {
		elem = fmt.Sprintf(" (element %d of %s)", r.elem, FieldOf(in.src, explodedField(in.src)))
	}
	// A reject carries the row's id whenever the row had a readable one,
	// so that it can be found in the source by id, not only by line.
	c := Section.Of(cfg) // once a row, not once a field: it was a tenth of validate
	rowID := ""
	if v := r.vals["id"]; v.present && v.badType == "" && !v.badUTF8 && realID(v.s, c.Placeholders) {
		rowID = in.src.IDPrefix + strings.TrimSpace(v.s)
	}
	rej := func(reason, field, detail string) *dataset.Reject {
		return &dataset.Reject{Input: in.src.Name, File: in.name, Line: r.line, ID: rowID, Field: field, Reason: reason, Detail: detail + elem}
	}
	if r.reject != nil {
		rr := *r.reject
		rr.Input, rr.File, rr.Line, rr.Detail = in.src.Name, in.name, r.line, rr.Detail+elem
		if rr.ID == "" {
			rr.ID = rowID
		}
		return dataset.Problem{}, &rr
	}
	fields := in.fields
	text := func(field string, required bool) (string, *dataset.Reject) {
		v := r.vals[field]
		// The input field's name, for a reject only: looking it up for
		// every field of every row was a twentieth of a map shard.
		name := func() string {
			if n := fields[field]; n != "" {
				return n
			}
			return field // built by a template
		}
		switch {
		case !v.present && required:
			return "", rej(dataset.ReasonMissingField, name(), fmt.Sprintf("no %q (mapped to %s)", name(), field))
		case !v.present:
			return "", nil
		case v.badUTF8 && v.note != "":
			return "", rej(dataset.ReasonInvalidUTF8, name(), "value is not valid UTF-8: "+v.note)
		case v.badUTF8:
			return "", rej(dataset.ReasonInvalidUTF8, name(), "value is not valid UTF-8")
		case v.badType != "":
			return "", rej(dataset.ReasonWrongType, name(), "want a string, got "+v.badType)
		case len(v.s) > c.MaxTextBytes:
			return "", rej(dataset.ReasonOversize, name(), fmt.Sprintf("%d bytes > max_text_bytes %d", len(v.s), c.MaxTextBytes))
		case required && strings.TrimSpace(v.s) == "":
			return "", rej(dataset.ReasonEmpty, name(), "empty after trimming white space")
		case required && isPlaceholder(v.s, c.Placeholders):
			return "", rej(dataset.ReasonPlaceholder, name(), fmt.Sprintf("%q is a placeholder (ingest.placeholders), not text", strings.TrimSpace(v.s)))
		case required && isPathOnly(v.s):
			return "", rej(dataset.ReasonPathOnly, name(), fmt.Sprintf("%q is only a file path or URL, not text (a side file is read with files: %s)", strings.TrimSpace(v.s), field))
		case v.list && len(v.elems) > 1 && field != "statement" && field != "solution":
			// A label joined from a list would hold the join's line
			// breaks: say it is a list, not that it has a line feed.
			return "", rej(dataset.ReasonWrongType, name(), fmt.Sprintf("a list of %d values; %s takes one (map one element, %s: %s[0])", len(v.elems), field, field, name()))
		}
		// Statements and solutions are text with line breaks and tabs;
		// ids, subjects, origins and sources are single-line labels.
		if c, at, ok := controlChar(v.s, field == "statement" || field == "solution"); ok {
			return "", rej(dataset.ReasonControlChar, name(), fmt.Sprintf("control character %s at byte %d", charName(c), at))
		}
		return v.s, nil
	}
	var p dataset.Problem
	var bad *dataset.Reject
	if p.Statement, bad = text("statement", true); bad != nil {
		return p, bad
	}
	if p.Solution, bad = text("solution", true); bad != nil {
		return p, bad
	}
	if _, bad = text("id", false); bad != nil { // checked here; its value is rowID's
		return p, bad
	}
	if p.Subject, bad = text("subject", false); bad != nil {
		return p, bad
	}
	if m, ok := in.src.SubjectMap[p.Subject]; ok {
		p.Subject = m
	}
	p.Source = in.src.Source
	if s, bad := text("source", false); bad != nil {
		return p, bad
	} else if s != "" {
		if !slices.Contains(dataset.Sources, s) {
			return p, rej(dataset.ReasonBadSource, fields["source"], fmt.Sprintf("%q is not one of %s", s, strings.Join(dataset.Sources, ", ")))
		}
		p.Source = s
	}
	p.Origin = in.src.Origin
	if o, bad := text("origin", false); bad != nil {
		return p, bad
	} else if o != "" {
		p.Origin = o
	}
	p.License = in.src.License
	p.NoTraining = in.src.NoTraining
	if t, ok := in.src.Terms[p.Source]; ok {
		p.License, p.NoTraining = t.License, t.NoTraining
	}
	// App. A.8: the AoPS portion is marked unavailable for training,
	// whichever source entry its rows came through (a mixed dump whose
	// rows name their source).
	if p.Source == "aops" {
		p.NoTraining = true
	}
	// text("id") passed, so rowID is the row's id, or "" where it has
	// none (blank or a placeholder).
	if rowID != "" {
		p.ID = rowID
	} else {
		p.ID = hashID(h.h, p.Source, p.Statement, p.Solution)
	}
	if !utf8.ValidString(p.ID) {
		return p, rej(dataset.ReasonInvalidUTF8, fields["id"], "id is not valid UTF-8")
	}
	if slices.Contains(c.Exclude, p.ID) {
		r := rej(dataset.ReasonExcluded, fields["id"], "listed in ingest.exclude")
		r.ID = p.ID
		return p, r
	}
	return p, nil
}

// hashState reuses one SHA-256 for ids made from content.
type hashState struct{ h hash.Hash }
