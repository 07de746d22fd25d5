package judge

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
)

// Sources of `judge_audit` rows.
const (
	AuditSample     = dataset.JudgeAuditSample
	AuditBothOrders = dataset.JudgeAuditBothOrders
)

// positionAudit returns the shard's `judge_audit` rows. With
// judge.both_orders every comparison was judged in both orders already:
// the rows pair each judgment with its swapped twin, and no call is made.
// Otherwise the comparisons Audited picks are judged again with the
// samples swapped, after the tournament (the swapped verdicts change no
// pairing and no rating); their answers go through the LLM cache like the
// tournament's, so a rerun replays them without a call.
func positionAudit(ctx context.Context, env *stage.Env, j Judge, ts []*tournament, rows []dataset.Judgment, workers int) ([]dataset.JudgeAuditRow, error) {
	cfg := Section.Of(env.Config)
	byQuery := make(map[string]*tournament, len(ts))
	for _, tr := range ts {
		byQuery[tr.query.ID] = tr
	}
	if cfg.BothOrders {
		out := bothOrdersAudit(rows, byQuery)
		countAudit(env, out)
		return out, nil
	}
	var picked []dataset.Judgment
	for _, r := range rows {
		if Audited(env.RunSeed(), r.Query, r.Round, r.Match, cfg.PositionAudit) {
			picked = append(picked, r)
		}
	}
	if len(picked) == 0 {
		return nil, nil
	}
	prog := env.Progress("audited comparisons", int64(len(picked)))
	out := make([]dataset.JudgeAuditRow, len(picked))
	err := parallel.For(ctx, len(picked), workers, func(ctx context.Context, i int) error {
		r := picked[i]
		tr := byQuery[r.Query]
		s1, s2 := tr.docs[tr.index[r.Sample1]], tr.docs[tr.index[r.Sample2]]
		// As in the rounds: a started comparison finishes after a signal.
		v, err := j.Compare(context.WithoutCancel(ctx), tr.query, s2, s1)
		if err != nil {
			return fmt.Errorf("position audit: query %s round %d match %d: %w", r.Query, r.Round, r.Match, err)
		}
		swapped := ""
		switch v.Winner {
		case 1:
			swapped = r.Sample2
		case 2:
			swapped = r.Sample1
		}
		out[i] = auditRow(r, tr.domain, swapped, AuditSample)
		out[i].SwappedAnswerSHA256, out[i].SwappedAsks = llmcall.AnswerHash(v.Raw), int32(v.Asks)
		out[i].PromptTokens, out[i].CompletionTokens = int32(v.PromptTokens), int32(v.CompletionTokens)
		prog.Add(1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, stage.ErrInterrupted
	}
	prog.Finish()
	countAudit(env, out)
	return out, nil
}

// bothOrdersAudit pairs every judgment of a both-orders tournament with
// its swapped twin (match M+k of a round of M matches; the replay has
// checked that every comparison has one).
func bothOrdersAudit(rows []dataset.Judgment, byQuery map[string]*tournament) []dataset.JudgeAuditRow {
	type key struct {
		q      string
		r      int32
		s1, s2 string
	}
	first := map[key]int{}
	for i, r := range rows {
		first[key{r.Query, r.Round, r.Sample1, r.Sample2}] = i
	}
	var out []dataset.JudgeAuditRow
	for _, r := range rows {
		i, ok := first[key{r.Query, r.Round, r.Sample2, r.Sample1}]
		if !ok || rows[i].Match < r.Match {
			continue // r is the swapped twin (or has none)
		}
		out = append(out, auditRow(r, byQuery[r.Query].domain, rows[i].Winner, AuditBothOrders))
		out[len(out)-1].SwappedAnswerSHA256, out[len(out)-1].SwappedAsks = rows[i].AnswerSHA256, rows[i].Asks
		out[len(out)-1].PromptTokens, out[len(out)-1].CompletionTokens = rows[i].PromptTokens, rows[i].CompletionTokens
	}
	return out
}

func auditRow(r dataset.Judgment, domain, swapped, source string) dataset.JudgeAuditRow {
	return dataset.JudgeAuditRow{Query: r.Query, Domain: domain, Round: r.Round, Match: r.Match,
		Sample1: r.Sample1, Sample2: r.Sample2, Winner: r.Winner, SwappedWinner: swapped,
		Consistent: r.Winner != "" && r.Winner == swapped, Source: source}
}

func countAudit(env *stage.Env, rows []dataset.JudgeAuditRow) {
	var consistent int64
	for _, r := range rows {
		if r.Consistent {
			consistent++
		}
	}
	env.Count("audit_comparisons", int64(len(rows)))
	env.Count("audit_consistent", consistent)
}
