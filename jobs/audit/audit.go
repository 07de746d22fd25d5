// Package audit is the duplicate-leakage audit of the benchmark (paper
// App. A.5; SPEC §1): for each query, the documents ranked highest under
// the final ratings — the region where a leaked copy of the query would
// most distort the metrics — are inspected for a statement of an
// equivalent problem (the same mathematical content up to renaming,
// rewording or notation).
//
// The map is sharded by query range. For each query of its range it takes
// the query's `top` rated documents (audit.top, paper 50; rating
// descending, ties by document id ascending; fewer when the query has
// fewer) and has each (query, document) pair judged by the backend:
//
//   - llm: the judge model with prompt A.1 (lib/prompts, version a1.v1,
//     ours: the paper gives none), the verdict the last \boxed{equivalent}
//     or \boxed{distinct} of the answer. An answer without one is asked
//     again up to audit.parse_retries times; after that the pair is
//     invalid ("unparseable"), as is a pair the server refuses
//     ("refused"). Invalid pairs are kept and counted, never flagged.
//     Answers go through the run's LLM cache: a rerun repeats no call.
//   - lexical (the default, offline): lib/leak's deterministic
//     near-duplicate test — shingles of the statements with variables
//     masked, the multiset of their numbers, the solutions' final answers —
//     with the thresholds of audit.lexical. Its limits (renamings that
//     change numbers, synonyms and notation are missed; templated problems
//     with equal answers may be flagged) are in lib/leak's doc and in the
//     report.
//
// Every pair is a row of `audit`. The reduce writes the flagged pairs to
// `leaks`, which the release refuses unless its config accepts each by id
// (dataset.LeakID), and reports/audit.md: the pairs audited (in total and
// per backend), every flagged pair with both statements and both final
// answers, every invalid answer, and the method with its limits.
//
// Outputs depend only on the inputs and the config: the same bytes
// whatever the shard count, and no clock in them.
package audit

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/audit/decl"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": runMap, "reduce": runReduce})

// newAuditor builds the configured backend and the function that records
// its statistics when the shard is done.
func newAuditor(env *stage.Env) (Auditor, func(), error) {
	cfg := Section.Of(env.Config)
	if !cfg.UsesLLM() {
		return &LexicalAuditor{Rule: cfg.Lexical.Rule()}, func() {}, nil
	}
	c, record, err := llmcall.New(env, &cfg.Options, prompts.Audit)
	if err != nil {
		return nil, nil, err
	}
	return &LLMAuditor{c}, record, nil
}

// TopDocuments orders a query's ratings by rating descending, ties by
// document id ascending, and keeps the first top (all when fewer).
func TopDocuments(ratings []dataset.Rating, top int) []dataset.Rating {
	rs := slices.Clone(ratings)
	slices.SortFunc(rs, func(a, b dataset.Rating) int {
		return cmp.Or(cmp.Compare(b.Rating, a.Rating), cmp.Compare(a.Doc, b.Doc))
	})
	return rs[:min(top, len(rs))]
}

// pair is one (query, document) to audit.
type pair struct {
	query  string
	rating dataset.Rating
	rank   int
}

func runMap(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	all, err := readers.Queries(ctx, env)
	if err != nil {
		return err
	}
	lo, hi := env.Shard.Range(len(all))
	qs := all[lo:hi]
	mine := make(map[string]bool, len(qs))
	for _, q := range qs {
		mine[q.ID] = true
	}
	byQuery, err := readRatings(ctx, env, mine)
	if err != nil {
		return err
	}
	var pairs []pair
	docs := map[string][]string{}
	short := 0
	for _, q := range qs {
		rs := byQuery[q.ID]
		if len(rs) == 0 {
			return stage.BadInput(fmt.Errorf("query %s has no ratings (are queries and ratings from the same selection?)", q.ID))
		}
		seen := make(map[string]bool, len(rs))
		for _, r := range rs {
			if r.Doc == q.ID {
				return stage.BadInput(fmt.Errorf("ratings: query %s is rated as its own document", q.ID))
			}
			if seen[r.Doc] {
				return stage.BadInput(fmt.Errorf("ratings: query %s rates document %s twice", q.ID, r.Doc))
			}
			seen[r.Doc] = true
		}
		if len(rs) < cfg.Top {
			short++
		}
		for k, r := range TopDocuments(rs, cfg.Top) {
			pairs = append(pairs, pair{query: q.ID, rating: r, rank: k + 1})
			docs[q.ID] = append(docs[q.ID], r.Doc)
		}
	}
	texts, err := readers.Texts(ctx, env, qs, docs)
	if err != nil {
		return err
	}
	auditor, record, err := newAuditor(env)
	if err != nil {
		return err
	}
	defer record()

	workers := cfg.InFlight(env.Config)
	prog := env.Progress("pairs", int64(len(pairs)))
	verdicts := make([]Verdict, len(pairs))
	err = parallel.For(ctx, len(pairs), workers, func(ctx context.Context, i int) error {
		// A started question finishes even after a signal, so its answer
		// reaches the cache and the rerun repeats no call; the client's
		// own timeout bounds the wait.
		p := pairs[i]
		v, err := auditor.Audit(context.WithoutCancel(ctx), texts[p.query], texts[p.rating.Doc])
		if err != nil {
			return fmt.Errorf("query %s document %s: %w", p.query, p.rating.Doc, err)
		}
		verdicts[i] = v
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

	rows := make([]dataset.AuditRow, len(pairs))
	var invalid int64
	sample := ""
	for i, p := range pairs {
		v := verdicts[i]
		rows[i] = dataset.AuditRow{
			Query: p.query, Doc: p.rating.Doc, Rank: int32(p.rank), Rating: p.rating.Rating,
			Verdict: v.Verdict, Flagged: v.Verdict == Equivalent, Score: v.Score, Reason: v.Reason,
			Asks:    int32(v.Asks),
			Backend: auditor.Backend(), Model: auditor.Model(), PromptVersion: auditor.PromptVersion(),
		}
		if v.Reason != ReasonRefused { // a refusal has no answer
			rows[i].AnswerSHA256 = llmcall.AnswerHash(v.Raw)
		}
		env.Count(v.Verdict, 1)
		switch v.Verdict {
		case Invalid:
			invalid++
			if sample == "" {
				sample = fmt.Sprintf("query %s document %s: %s", p.query, p.rating.Doc, v.Reason)
				if v.Detail != "" {
					sample += ": " + v.Detail
				} else {
					sample += ", answer " + llmcall.Excerpt(v.Raw)
				}
			}
			env.Count("invalid_"+v.Reason, 1)
			env.Log.Warn().Str("query", p.query).Str("doc", p.rating.Doc).Str("reason", v.Reason).Str("detail", v.Detail).Msg("invalid answer: kept, not flagged")
		case Equivalent:
			env.Log.Info().Str("query", p.query).Str("doc", p.rating.Doc).Int("rank", p.rank).Str("reason", v.Reason).Msg("flagged: equivalent problem")
		}
	}
	env.Count("queries", int64(len(qs)))
	env.Count("queries_under_top", int64(short))
	env.Count("pairs", int64(len(rows)))
	env.Log.Info().Int("queries", len(qs)).Int("pairs", len(rows)).Str("backend", auditor.Backend()).Msg("pairs audited")
	if err := llmcall.RecordInvalidShare(env, "pairs with an invalid answer", invalid, int64(len(rows)), "audit.max_invalid_share", cfg.MaxInvalidShare, sample); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Audit, rows)
}

// readRatings reads the ratings of the given queries, by query. Every
// part is read: rate's shards need not be audit's.
func readRatings(ctx context.Context, env *stage.Env, queries map[string]bool) (map[string][]dataset.Rating, error) {
	parts, err := env.Upstream(ctx, dataset.Ratings.Name)
	if err != nil {
		return nil, err
	}
	out := map[string][]dataset.Rating{}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Rating) error {
			for _, r := range rows {
				if queries[r.Query] {
					out[r.Query] = append(out[r.Query], r)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func runReduce(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	qs, err := readers.Queries(ctx, env)
	if err != nil {
		return err
	}
	parts, err := env.Upstream(ctx, dataset.Audit.Name)
	if err != nil {
		return err
	}
	var rows []dataset.AuditRow
	for _, p := range parts {
		rs, err := stage.ReadPart[dataset.AuditRow](ctx, env, p)
		if err != nil {
			return err
		}
		rows = append(rows, rs...)
	}
	// Shards are contiguous query ranges, so this is already the order;
	// sorting makes the report independent of how the parts were cut.
	slices.SortStableFunc(rows, func(a, b dataset.AuditRow) int { return dataset.Audit.Compare(&a, &b) })
	known := make(map[string]bool, len(qs))
	for _, q := range qs {
		known[q.ID] = true
	}
	audited := map[string]bool{}
	for _, r := range rows {
		if !known[r.Query] {
			return stage.BadInput(fmt.Errorf("audit: query %s is not in queries (audit from another selection? rerun audit's map)", r.Query))
		}
		audited[r.Query] = true
	}
	for _, q := range qs {
		if !audited[q.ID] {
			return stage.BadInput(fmt.Errorf("audit: no audited pair for query %s (audit from another selection? rerun audit's map)", q.ID))
		}
	}

	var leaks []dataset.Leak
	var invalid []dataset.AuditRow
	need := map[string][]string{}
	for _, r := range rows {
		switch {
		case r.Flagged:
			leaks = append(leaks, dataset.Leak{Query: r.Query, Doc: r.Doc, Rank: r.Rank, Rating: r.Rating,
				Score: r.Score, Reason: r.Reason, Backend: r.Backend})
			need[r.Query] = append(need[r.Query], r.Doc)
		case r.Verdict == Invalid:
			invalid = append(invalid, r)
		}
	}
	var needQ []dataset.Query
	for _, q := range qs {
		if len(need[q.ID]) > 0 {
			needQ = append(needQ, q)
		}
	}
	texts, err := readers.Texts(ctx, env, needQ, need)
	if err != nil {
		return err
	}
	md := report(cfg, qs, rows, invalid, texts)
	env.Count("queries", int64(len(qs)))
	env.Count("pairs", int64(len(rows)))
	env.Count("leaks", int64(len(leaks)))
	env.Count("invalid", int64(len(invalid)))
	env.Log.Info().Int("pairs", len(rows)).Int("leaks", len(leaks)).Int("invalid", len(invalid)).Msg("audit reduced")
	if err := stage.WriteOutput(ctx, env, dataset.Leaks, leaks); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, Report, md)
}
