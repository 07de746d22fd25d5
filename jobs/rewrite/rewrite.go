// Package rewrite is the first half of the deduplication experiment
// (paper App. B.4): each benchmark query's statement is restated with the
// same mathematical content and a different surface form — renamed
// variables, a restated story, reformulated notation — so that the
// downstream stage can ask each retriever to find the original from the
// rewrite.
//
// The map is sharded by query range. Backends:
//
//   - offline (the default): lib/rewrite's deterministic rewriter, seeded
//     by (run seed, stage, query id): consistent renaming of variables and
//     names, wording and notation swaps, reordered clauses.
//   - llm: prompt B.4 (lib/prompts, version b4.v1, ours), the rewrite the
//     last <rewrite>…</rewrite> of the answer; an answer without one is
//     asked again up to rewrite.parse_retries times. Answers go through the
//     run's LLM cache.
//
// Every rewrite is validated (lib/rewrite.Check: not empty, not identical
// to the original, its length within rewrite.min_ratio–max_ratio of the
// original's). Every query gets a row of `rewrites`; an invalid one is
// kept with its reason and counted, and downstream leaves its query out.
package rewrite

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/rewrite/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	librewrite "github.com/saber-math/saber/lib/rewrite"
)

// Reasons an llm rewrite is invalid besides lib/rewrite.Check's.
const (
	ReasonUnparseable = "unparseable"
	ReasonRefused     = "refused"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

// Rewriter restates a statement. key is the query id (the offline
// backend's seed comes from it).
type Rewriter interface {
	Rewrite(ctx context.Context, key, statement string) (Answer, error)
	Backend() string
	Model() string
	PromptVersion() string
}

// Answer is a backend's rewrite, or the reason it has none.
type Answer struct {
	Text   string
	Raw    string
	Reason string // "" or ReasonUnparseable, ReasonRefused
}

// Offline is lib/rewrite's rewriter with a seed per query.
type Offline struct{ Seed func(key string) uint64 }

func (o Offline) Rewrite(_ context.Context, key, statement string) (Answer, error) {
	out := librewrite.Rewrite(statement, o.Seed(key))
	return Answer{Text: out, Raw: out}, nil
}
func (Offline) Backend() string       { return "offline" }
func (Offline) Model() string         { return "" }
func (Offline) PromptVersion() string { return "" }

// LLM asks a model with prompt B.4; Retries are the re-asks after an
// answer without <rewrite>…</rewrite>.
type LLM struct {
	*llmcall.Client
}

var tagRE = regexp.MustCompile(`(?s)<rewrite>(.*?)</rewrite>`)

// ParseAnswer returns the text of the answer's last <rewrite>…</rewrite>
// (a reasoning model's <think> block removed first), or false.
func ParseAnswer(raw string) (string, bool) {
	if i := strings.LastIndex(raw, "</think>"); i >= 0 {
		raw = raw[i+len("</think>"):]
	}
	m := tagRE.FindAllStringSubmatch(raw, -1)
	if len(m) == 0 {
		return "", false
	}
	return strings.TrimSpace(m[len(m)-1][1]), true
}

var errNoTag = errors.New("no <rewrite>…</rewrite> in the answer")

func (l *LLM) Rewrite(ctx context.Context, _ string, statement string) (Answer, error) {
	var a Answer
	got, err := llmcall.Ask(ctx, l.Client, prompts.RewriteData{Problem: statement}, func(raw string) (string, error) {
		a.Raw = raw
		if s, ok := ParseAnswer(raw); ok {
			return s, nil
		}
		return "", errNoTag
	})
	var un *llmcall.UnparseableError
	switch {
	case err == nil:
		a.Text = got
	case errors.As(err, &un):
		a.Reason = ReasonUnparseable
	case errors.Is(err, llm.ErrPermanent):
		a.Reason, a.Raw = ReasonRefused, ""
	default:
		return a, err
	}
	return a, nil
}

func newRewriter(env *stage.Env) (Rewriter, func(), error) {
	cfg := Section.Of(env.Config)
	if !cfg.UsesLLM() {
		return Offline{Seed: env.Seed}, func() {}, nil
	}
	c, record, err := llmcall.New(env, &cfg.Options, prompts.Rewrite)
	if err != nil {
		return nil, nil, err
	}
	return &LLM{c}, record, nil
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	all, err := readers.Queries(ctx, env)
	if err != nil {
		return err
	}
	lo, hi := env.Shard.Range(len(all))
	qs := all[lo:hi]
	texts, err := readers.Texts(ctx, env, qs, nil)
	if err != nil {
		return err
	}
	rw, record, err := newRewriter(env)
	if err != nil {
		return err
	}
	defer record()
	workers := cfg.InFlight(env.Config)
	rows := make([]dataset.RewriteRow, len(qs))
	prog := env.Progress("queries", int64(len(qs)))
	err = parallel.For(ctx, len(qs), workers, func(ctx context.Context, i int) error {
		q := qs[i]
		orig := texts[q.ID].Statement
		// A started question finishes even after a signal, so its answer
		// reaches the cache.
		a, err := rw.Rewrite(context.WithoutCancel(ctx), q.ID, orig)
		if err != nil {
			return fmt.Errorf("query %s: %w", q.ID, err)
		}
		row := dataset.RewriteRow{Query: q.ID, Statement: a.Text, Reason: a.Reason,
			Backend: rw.Backend(), Model: rw.Model(), PromptVersion: rw.PromptVersion()}
		if a.Reason != ReasonRefused {
			row.AnswerSHA256 = llmcall.AnswerHash(a.Raw)
		}
		if row.Reason == "" {
			row.Reason = librewrite.Check(orig, a.Text, cfg.MinRatio, cfg.MaxRatio)
		}
		row.Valid = row.Reason == ""
		row.Ratio = float64(len([]rune(strings.TrimSpace(a.Text)))) / float64(max(1, len([]rune(strings.TrimSpace(orig)))))
		rows[i] = row
		prog.Add(1)
		return nil
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return stage.ErrInterrupted
	}
	prog.Finish()
	var invalid int64
	sample := ""
	for _, r := range rows {
		if r.Valid {
			env.Count("valid", 1)
			continue
		}
		invalid++
		env.Count("invalid_"+r.Reason, 1)
		if sample == "" {
			sample = fmt.Sprintf("query %s: %s", r.Query, r.Reason)
		}
		env.Log.Warn().Str("query", r.Query).Str("reason", r.Reason).Msg("invalid rewrite: kept, left out of the experiment")
	}
	env.Count("queries", int64(len(rows)))
	env.Count("invalid", invalid)
	env.Log.Info().Int("queries", len(rows)).Int64("invalid", invalid).Str("backend", rw.Backend()).Msg("queries rewritten")
	if err := llmcall.RecordInvalidShare(env, "queries with an invalid rewrite", invalid, int64(len(rows)), "rewrite.max_invalid_share", cfg.MaxInvalidShare, sample); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Rewrites, rows)
}
