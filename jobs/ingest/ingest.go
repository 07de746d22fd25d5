// Package ingest is the first stage: it reads the configured sources (JSONL,
// gzip or zstd JSONL, Parquet), maps their fields onto problem rows, and
// writes `problems` and `rejects`.
//
// Every shard reads every input, because only the whole input decides which
// occurrence of a duplicate id is "the second one" and which ids exist. Each
// shard then writes its contiguous range of the sorted ids, and its range of
// the sorted rejects. Pass 1 validates and collects ids; pass 2 re-reads and
// keeps only this shard's rows, so memory holds one shard's text, not the
// corpus.
package ingest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the ingest stage.
var Stage = stage.Stage{
	Name:    "ingest",
	Summary: "read raw problem sources into the problems and rejects datasets",
	Section: Section,
	Steps: []stage.Step{{
		Name:    "map",
		Outputs: []string{dataset.Problems.Name, dataset.Rejects.Name},
		Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
		Run:     run,
	}},
}

// loc is where a row was read: input index and line, and the element of
// an exploded list (lists: explode; 0 for other rows).
type loc struct {
	file int
	line int64
	elem int
}

// validate turns a record into a problem or the reason it is rejected.
func validate(cfg *config.Config, in input, r record, h hashState) (dataset.Problem, *dataset.Reject) {
	// The rows of an exploded list share their line: say which element.
	elem := ""
	if r.elem > 0 {
		elem = fmt.Sprintf(" (element %d of %s)", r.elem, fieldOf(in.src, explodedField(in.src)))
	}
	rej := func(reason, field, detail string) *dataset.Reject {
		return &dataset.Reject{Input: in.src.Name, File: in.name, Line: r.line, Field: field, Reason: reason, Detail: detail + elem}
	}
	if r.reject != nil {
		rr := *r.reject
		rr.Input, rr.File, rr.Line, rr.Detail = in.src.Name, in.name, r.line, rr.Detail+elem
		return dataset.Problem{}, &rr
	}
	fields := fieldNames(in.src)
	text := func(field string, required bool) (string, *dataset.Reject) {
		v := r.vals[field]
		name := fields[field]
		if name == "" {
			name = field // built by a template
		}
		switch {
		case !v.present && required:
			return "", rej(dataset.ReasonMissingField, name, fmt.Sprintf("no %q (mapped to %s)", name, field))
		case !v.present:
			return "", nil
		case v.badUTF8 && v.note != "":
			return "", rej(dataset.ReasonInvalidUTF8, name, "value is not valid UTF-8: "+v.note)
		case v.badUTF8:
			return "", rej(dataset.ReasonInvalidUTF8, name, "value is not valid UTF-8")
		case v.badType != "":
			return "", rej(dataset.ReasonWrongType, name, "want a string, got "+v.badType)
		case len(v.s) > Section.Of(cfg).MaxTextBytes:
			return "", rej(dataset.ReasonOversize, name, fmt.Sprintf("%d bytes > max_text_bytes %d", len(v.s), Section.Of(cfg).MaxTextBytes))
		case required && strings.TrimSpace(v.s) == "":
			return "", rej(dataset.ReasonEmpty, name, "empty after trimming white space")
		}
		// Statements and solutions are text with line breaks and tabs;
		// ids, subjects, origins and sources are single-line labels.
		if c, at, ok := controlChar(v.s, field == "statement" || field == "solution"); ok {
			return "", rej(dataset.ReasonControlChar, name, fmt.Sprintf("control character %s at byte %d", charName(c), at))
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
	id, bad := text("id", false)
	if bad != nil {
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
	if strings.TrimSpace(id) != "" {
		p.ID = in.src.IDPrefix + strings.TrimSpace(id)
	} else {
		p.ID = hashID(h.h, p.Source, p.Statement, p.Solution)
	}
	if !utf8.ValidString(p.ID) {
		return p, rej(dataset.ReasonInvalidUTF8, fields["id"], "id is not valid UTF-8")
	}
	if slices.Contains(Section.Of(cfg).Exclude, p.ID) {
		r := rej(dataset.ReasonExcluded, fields["id"], "listed in ingest.exclude")
		r.ID = p.ID
		return p, r
	}
	return p, nil
}

// hashState reuses one SHA-256 for ids made from content.
type hashState struct{ h hash.Hash }

func run(ctx context.Context, env *stage.Env) error {
	cfg := env.Config
	sources := Section.Of(cfg).Sources
	if len(sources) == 0 {
		return stage.BadInput(fmt.Errorf("ingest.sources: no sources configured"))
	}
	var inputs []input
	for i := range sources {
		ins, err := expand(ctx, cfg, &sources[i])
		if err != nil {
			return err
		}
		inputs = append(inputs, ins...)
	}
	hs := hashState{h: sha256.New()}
	var totalBytes int64
	for _, in := range inputs {
		info, err := in.file.Store.Stat(ctx, in.file.Key)
		if err != nil {
			return stage.BadInput(fmt.Errorf("stat %s: %w", in.uri, err))
		}
		totalBytes += info.Size
	}

	// Pass 1: validate every row, find first occurrences of ids, collect rejects.
	c := Section.Of(cfg)
	first := map[string]loc{}
	var rejects []dataset.Reject
	tallies := make(map[*Source]*tally, len(sources))
	for i := range sources {
		tallies[&sources[i]] = newTally(&sources[i])
	}
	prog := env.Progress("validate bytes", totalBytes)
	for fi, in := range inputs {
		t := tallies[in.src]
		sum, size, err := scan(ctx, in, c.MaxLineBytes, prog, mapRows(ctx, env, in, t, func(r record) error {
			p, bad := validate(cfg, in, r, hs)
			if bad == nil {
				if at, dup := first[p.ID]; dup {
					bad = &dataset.Reject{
						Input: in.src.Name, File: in.name, Line: r.line, ID: p.ID, Field: fieldNames(in.src)["id"],
						Reason: dataset.ReasonDuplicateID, Detail: fmt.Sprintf("first seen at %s:%d", inputs[at.file].name, at.line),
					}
				} else {
					first[p.ID] = loc{fi, r.line, r.elem}
				}
			}
			t.row(r, bad)
			if bad != nil {
				rejects = append(rejects, *bad)
			}
			return nil
		}))
		if err != nil {
			return err
		}
		env.AddFile(layout.Object{URI: in.uri, SHA256: sum, Size: size})
	}
	prog.Finish()
	for i := range sources {
		if err := tallies[&sources[i]].verdict(&sources[i], i, env); err != nil {
			return err
		}
	}

	ids := make([]string, 0, len(first))
	for id := range first {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	lo, hi := env.Shard.Range(len(ids))
	want := make(map[loc]bool, hi-lo)
	for _, id := range ids[lo:hi] {
		want[first[id]] = true
	}
	sort.SliceStable(rejects, func(i, j int) bool { return dataset.Rejects.Compare(&rejects[i], &rejects[j]) < 0 })
	rlo, rhi := env.Shard.Range(len(rejects))
	mine := rejects[rlo:rhi]
	// Each shard counts its own rows, the ones it writes, so that the
	// shards' stats add up to the input's (saber stats sums them).
	env.Count("rows_read", int64(hi-lo+len(mine)))
	for _, r := range mine {
		env.Count("rejected_"+r.Reason, 1)
	}
	env.Count("problems_total", int64(hi-lo))
	env.Log.Info().Int("inputs", len(inputs)).Int("problems", len(ids)).Int("rejects", len(rejects)).
		Int("shard_problems", hi-lo).Int("shard_rejects", len(mine)).Msg("validated every input")

	// Pass 2: re-read, keeping this shard's rows only.
	problems := make([]dataset.Problem, 0, hi-lo)
	if hi > lo {
		prog = env.Progress("extract bytes", totalBytes)
		for fi, in := range inputs {
			_, _, err := scan(ctx, in, c.MaxLineBytes, prog, mapRows(ctx, env, in, nil, func(r record) error {
				if !want[loc{fi, r.line, r.elem}] {
					return nil
				}
				p, bad := validate(cfg, in, r, hs)
				if bad != nil {
					return fmt.Errorf("%s:%d: row changed between passes (file modified while reading?)", in.name, r.line)
				}
				problems = append(problems, p)
				return nil
			}))
			if err != nil {
				return err
			}
		}
		prog.Finish()
	}
	if len(problems) != hi-lo {
		return fmt.Errorf("pass 2 found %d of %d rows (inputs modified while reading?)", len(problems), hi-lo)
	}
	if err := stage.WriteOutput(ctx, env, dataset.Problems, problems); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Rejects, mine); err != nil {
		return err
	}
	return nil
}
