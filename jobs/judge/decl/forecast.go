package decl

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/schedule"
)

// forecast: each query's Swiss schedule, played with coin flips, gives the
// comparisons; one judge call each, two under judge.both_orders (every
// comparison also judged swapped, a judgment row each), and one more for
// each comparison judge.position_audit samples to judge again swapped.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	queries, perQuery, basis, err := stage.CandidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	cfg := Section.Of(in.Config())
	n := int(perQuery + 0.5)
	sched := cfg.Schedule()
	per, err := schedule.Matches(sched, n, cfg.Rounds, config.Seed.Get(in.Config()))
	if err != nil {
		return err
	}
	comparisons := queries * float64(per)
	rule := "the Swiss schedule"
	if sched.Kind != "" && sched.Kind != schedule.Swiss {
		rule = "judge.scheduler " + sched.Kind + " played against a simulated judge (an estimate: it stops when the ranking settles)"
	}
	judgments, orders := comparisons, "one judgment each"
	audited, auditBasis := 0.0, ""
	switch {
	case cfg.BothOrders:
		judgments, orders = 2*comparisons, "two judgments each (judge.both_orders)"
		audited, auditBasis = comparisons, "every comparison is its own audit under judge.both_orders: no extra call"
	case cfg.PositionAudit > 0:
		audited, auditBasis, err = auditedComparisons(ctx, in, cfg, per)
		if err != nil {
			return err
		}
	}
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: basis},
		plan.Metric{Name: "judgments", Value: judgments, Stats: []string{"judgments"},
			Basis: fmt.Sprintf("%d per query: %s of %d candidates over judge.rounds = %d, %s", per, rule, n, cfg.Rounds, orders)})
	if audited > 0 {
		out.Metrics = append(out.Metrics, plan.Metric{Name: "audited comparisons", Value: audited, Stats: []string{"audit_comparisons"}, Basis: auditBasis})
	}
	out.Rows[dataset.Judgments.Name] = judgments
	if audited > 0 {
		out.Rows[dataset.JudgeAudit.Name] = audited
	}
	if cfg.Backend != llmstage.BackendLLM {
		return nil
	}
	calls := judgments
	if !cfg.BothOrders {
		calls += audited
	}
	// Rounds run in lockstep over a shard's queries: a round's
	// comparisons (both orders of each under judge.both_orders) are sent
	// together, the next round's only once they are answered, and the
	// audit's after the last.
	rounds := max(cfg.Rounds, 1)
	phases := []plan.Phase{{Name: "rounds", Items: judgments / float64(rounds), Chain: 1, Times: rounds}}
	if !cfg.BothOrders && audited > 0 {
		phases = append(phases, plan.Phase{Name: "position audit", Items: audited, Chain: 1})
	}
	return in.LLM(ctx, out, calls, phases, &stage.LLMWork{
		LLM:     in.Config().LLMFor(cfg.LLM),
		Workers: cfg.Workers,
		// F.3, filled as the stage fills prompts.JudgeData (this package
		// links no prompt code): a sampled document against the next two.
		Prompt: "judge",
		Data: func(docs []dataset.Document, i int) any {
			d, o1, o2 := docs[i], docs[(i+1)%len(docs)], docs[(i+2)%len(docs)]
			return map[string]string{"TargetProblem": d.Statement, "TargetSolution": d.Solution,
				"Sample1Problem": o1.Statement, "Sample1Solution": o1.Solution, "Sample2Problem": o2.Statement, "Sample2Solution": o2.Solution}
		},
		// A short justification and \boxed{n}; reasoning models write far
		// more: measure them.
		CompletionGuess: 300,
		NoLookup:        "the comparisons depend on pairings and answers only the run makes",
	})
}

// auditedComparisons forecasts the comparisons judge.position_audit judges
// again. The audit's sample is drawn per (query, round, match) from the
// run seed (Audited), so once the queries are known the draw is replayed
// over each query's schedule — its per matches spread evenly over the
// rounds — instead of taking the share of the total, whose sampling error
// at a few hundred comparisons exceeds the 10% a forecast is held to.
func auditedComparisons(ctx context.Context, in stage.ForecastInput, cfg *Config, per int) (float64, string, error) {
	ms, err := in.Complete(ctx, dataset.Queries.Name)
	if err != nil {
		queries, _, err := in.Rows(ctx, dataset.Queries.Name)
		return queries * float64(per) * cfg.PositionAudit, fmt.Sprintf("judge.position_audit = %g of the comparisons, judged again swapped: one call each", cfg.PositionAudit), err
	}
	perRound := float64(per) / float64(max(cfg.Rounds, 1))
	var n float64
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Queries.Name) {
			qs, err := dataset.Read[dataset.Query](ctx, in.Root(), o.Key)
			if err != nil {
				return 0, "", fmt.Errorf("read %s: %w", o.Key, err)
			}
			for _, q := range qs {
				for r := 1; r <= cfg.Rounds; r++ {
					// Matches of round r: the schedule's per spread evenly.
					k0, k1 := int(perRound*float64(r-1)+0.5), int(perRound*float64(r)+0.5)
					for k := range k1 - k0 {
						if Audited(config.Seed.Get(in.Config()), q.ID, int32(r), int32(k), cfg.PositionAudit) {
							n++
						}
					}
				}
			}
		}
	}
	return n, fmt.Sprintf("judge.position_audit = %g: its seeded draw replayed over each query's %d scheduled comparisons; one call each", cfg.PositionAudit, per), nil
}
