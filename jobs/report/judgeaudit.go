package report

import (
	"context"

	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
)

// writeJudgeAudit writes reports/judge_audit.md, the judge's position
// audit (judge.position_audit, judge.both_orders) overall and per domain
// in the report's order, from `judge_audit`.
func writeJudgeAudit(ctx context.Context, env *stage.Env, domains []string) error {
	rows, present, err := readers.ReadAudit(ctx, env)
	if err != nil {
		return err
	}
	md := readers.SummarizeAudit(rows, domains).Markdown()
	if !present {
		md += "\n(The run has no `judge_audit` dataset: it was judged by a saber before the audit. Rerun judge to audit it.)\n"
	}
	return stage.WriteReport(ctx, env, ReportJudgeAudit, []byte(md))
}
