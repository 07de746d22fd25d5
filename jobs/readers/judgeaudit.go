package readers

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/stats"
)

// AuditScope is the position audit over one domain, or over all queries.
type AuditScope struct {
	Scope string
	// Comparisons audited; Answered of them have a verdict in both orders.
	Comparisons, Answered int
	// Consistent: of Answered, both orders name the same document.
	Consistent stats.Proportion
	// FirstWins: of every verdict in either order of an audited
	// comparison, those for the sample shown first. An unbiased judge is
	// at 0.5; one always choosing Sample 1 at 1.
	FirstWins stats.Proportion
}

// AuditSummary is the position audit: overall first, then per domain in
// the order given.
type AuditSummary struct {
	Source string // sample, both_orders, or both when shards differ
	Scopes []AuditScope
}

// Overall is the summary's row over all queries.
func (s AuditSummary) Overall() AuditScope {
	if len(s.Scopes) == 0 {
		return AuditScope{Scope: "overall", Consistent: stats.Prop(0, 0), FirstWins: stats.Prop(0, 0)}
	}
	return s.Scopes[0]
}

// SummarizeAudit counts the audit's rows, overall and per domain: domains
// in order, then any other domain the rows name, alphabetically.
func SummarizeAudit(rows []dataset.JudgeAuditRow, order []string) AuditSummary {
	type tally struct{ n, answered, consistent, first, verdicts int }
	per := map[string]*tally{}
	all := &tally{}
	sources := map[string]bool{}
	for _, r := range rows {
		sources[r.Source] = true
		t := per[r.Domain]
		if t == nil {
			t = &tally{}
			per[r.Domain] = t
		}
		for _, t := range []*tally{all, t} {
			t.n++
			if r.Winner != "" && r.SwappedWinner != "" {
				t.answered++
			}
			if r.Consistent {
				t.consistent++
			}
			// Sample1 is shown first in the tournament's order, Sample2
			// in the swapped one.
			if r.Winner != "" {
				t.verdicts++
				if r.Winner == r.Sample1 {
					t.first++
				}
			}
			if r.SwappedWinner != "" {
				t.verdicts++
				if r.SwappedWinner == r.Sample2 {
					t.first++
				}
			}
		}
	}
	scope := func(name string, t *tally) AuditScope {
		return AuditScope{Scope: name, Comparisons: t.n, Answered: t.answered,
			Consistent: stats.Prop(t.consistent, t.answered), FirstWins: stats.Prop(t.first, t.verdicts)}
	}
	var s AuditSummary
	switch {
	case len(sources) > 1:
		s.Source = "mixed"
	case sources[dataset.JudgeAuditBothOrders]:
		s.Source = dataset.JudgeAuditBothOrders
	case sources[dataset.JudgeAuditSample]:
		s.Source = dataset.JudgeAuditSample
	}
	s.Scopes = append(s.Scopes, scope("overall", all))
	var rest []string
	for d := range per {
		if !slices.Contains(order, d) {
			rest = append(rest, d)
		}
	}
	slices.Sort(rest)
	for _, d := range append(slices.Clone(order), rest...) {
		if t := per[d]; t != nil {
			name := d
			if name == "" {
				name = "(none)"
			}
			s.Scopes = append(s.Scopes, scope(name, t))
		}
	}
	return s
}

// Markdown is reports/judge_audit.md.
func (s AuditSummary) Markdown() string {
	var b bytes.Buffer
	b.WriteString("# Judge position audit\n\n")
	b.WriteString("Pairwise LLM judges can favour the sample shown in one position. The audit judges comparisons of the tournament " +
		"a second time with the two samples swapped.\n\n")
	switch s.Source {
	case dataset.JudgeAuditBothOrders:
		b.WriteString("With `judge.both_orders: true` every comparison was judged in both orders; both judgments fed Bradley–Terry, " +
			"so orders that disagree count as a tie.\n\n")
	case dataset.JudgeAuditSample, "mixed":
		fmt.Fprintf(&b, "`judge.position_audit`: a seeded sample of %d comparisons was judged again swapped; "+
			"the swapped judgments are only in `judge_audit` and change no rating.\n\n", s.Overall().Comparisons)
	default:
		b.WriteString("No comparison was audited (`judge.position_audit: 0`, `judge.both_orders: false`): set `judge.position_audit` to a share " +
			"of the comparisons, such as 0.05, to measure the judge's position bias.\n")
		return b.String()
	}
	b.WriteString("Self-consistency: of the comparisons with a verdict in both orders, the share where both name the same document. " +
		"First-position wins: of all verdicts in either order, the share for the sample shown first; an unbiased judge is at 0.5. " +
		"Intervals: 95% Wilson; p: two-sided exact binomial test against 0.5.\n\n")
	b.WriteString("| Scope | Comparisons | Both answered | Self-consistency | 95% CI | First-position wins | 95% CI | p (vs. 0.5) |\n")
	b.WriteString("| --- | ---: | ---: | ---: | --- | ---: | --- | ---: |\n")
	for _, sc := range s.Scopes {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s | %s |\n", sc.Scope, sc.Comparisons, sc.Answered,
			frac(sc.Consistent.P), ci(sc.Consistent), frac(sc.FirstWins.P), ci(sc.FirstWins), pv(sc.FirstWins.PValue))
	}
	if o := s.Overall(); o.FirstWins.N > 0 && (o.FirstWins.Lo > 0.5 || o.FirstWins.Hi < 0.5) {
		pos := "first"
		if o.FirstWins.Hi < 0.5 {
			pos = "second"
		}
		fmt.Fprintf(&b, "\nThe judge favours the %s position: its interval excludes 0.5. Consider `judge.both_orders: true`.\n", pos)
	}
	return b.String()
}

func frac(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return fmt.Sprintf("%.3f", p)
}

func ci(p stats.Proportion) string {
	if p.N == 0 {
		return "—"
	}
	return fmt.Sprintf("[%.3f, %.3f]", p.Lo, p.Hi)
}

func pv(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p < 0.001:
		return fmt.Sprintf("%.2g", p)
	}
	return fmt.Sprintf("%.3f", p)
}

// ReadAudit reads every `judge_audit` row of the run, for the reduces that
// report the audit (report, release; each declares the input). present is
// false for a run judged by a saber before the audit, which has no such
// dataset: those report that rather than fail.
func ReadAudit(ctx context.Context, env *stage.Env) (rows []dataset.JudgeAuditRow, present bool, err error) {
	ms, err := layout.Manifests(ctx, env.In, env.Config.Run, dataset.JudgeAudit.Name)
	if err != nil {
		return nil, false, fmt.Errorf("read %s manifests: %w", dataset.JudgeAudit.Name, err)
	}
	if len(ms) == 0 {
		return nil, false, nil
	}
	parts, err := env.Upstream(ctx, dataset.JudgeAudit.Name)
	if err != nil {
		return nil, true, err
	}
	for _, p := range parts {
		if err := stage.ScanPart(ctx, env, p, func(rs []dataset.JudgeAuditRow) error {
			rows = append(rows, rs...)
			return nil
		}); err != nil {
			return nil, true, err
		}
	}
	return rows, true, nil
}
