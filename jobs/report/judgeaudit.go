package report

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/stage"
)

// writeJudgeAudit writes reports/judge_audit.md, the judge's position
// audit (judge.position_audit, judge.both_orders) per domain in the
// report's order, from `judge_audit`. A run judged by a saber without the
// audit has no such dataset: the report says so instead of failing.
func writeJudgeAudit(ctx context.Context, env *stage.Env, domains []string) error {
	ms, err := layout.Manifests(ctx, env.In, env.Config.Run, dataset.JudgeAudit.Name)
	if err != nil {
		return fmt.Errorf("read %s manifests: %w", dataset.JudgeAudit.Name, err)
	}
	var rows []dataset.JudgeAuditRow
	if len(ms) > 0 {
		parts, err := env.Upstream(ctx, dataset.JudgeAudit.Name)
		if err != nil {
			return err
		}
		for _, p := range parts {
			if err := stage.ScanPart(ctx, env, p, func(rs []dataset.JudgeAuditRow) error {
				rows = append(rows, rs...)
				return nil
			}); err != nil {
				return err
			}
		}
	}
	md := judge.SummarizeAudit(rows, domains).Markdown()
	if len(ms) == 0 {
		md += "\n(The run has no `judge_audit` dataset: it was judged by a saber before the audit. Rerun judge to audit it.)\n"
	}
	return stage.WriteReport(ctx, env, judge.AuditReport, []byte(md))
}
