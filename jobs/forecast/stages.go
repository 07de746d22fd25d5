package forecast

import (
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/audit"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/domains"
	"github.com/saber-math/saber/lib/schedule"
)

// One function per stage step; each says in Basis how it counts.
func init() {
	Register("ingest", "map", ingestMap)
	Register("ingest", "reduce", ingestReduce)
	Register("dedup", "map", dedupMap)
	Register("dedup", "reduce", dedupReduce)
	Register("tag", "map", tagMap)
	Register("summarize", "map", summarizeMap)
	Register("pairs", "map", pairsMap)
	Register("select", "reduce", selectReduce)
	Register("judge", "map", judgeMap)
	Register("rate", "map", rateMap)
	Register("evaluate", "map", evaluateMap)
	Register("audit", "map", auditMap)
}

// rowsOr reads the rows of ds, or returns the ErrUnknown error that makes
// the step's forecast a note.
func rowsOr(ctx context.Context, in *Input, ds string) (float64, string, error) {
	return in.Rows(ctx, ds)
}

func ingestMap(ctx context.Context, in *Input, out *Step) error {
	if n := in.Config.Plan.Documents; n > 0 {
		// A what-if scale (the paper's corpus) whose files are not at
		// hand: the inputs are not read, so there are no bytes to count.
		out.Metrics = append(out.Metrics, Metric{Name: "rows staged", Value: float64(n), Rows: dataset.IngestRows.Name,
			Basis: fmt.Sprintf("plan.documents = %d (assumed, not counted: the inputs are not read)", n)})
		out.Rows[dataset.IngestRows.Name] = float64(n)
		return nil
	}
	rows, bytes, basis, err := inputRows(ctx, in.Config)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics,
		Metric{Name: "rows staged", Value: rows, Rows: dataset.IngestRows.Name, Basis: basis},
		Metric{Name: "bytes read", Value: bytes, Stats: []string{"bytes_read"}, Basis: "the input files' sizes"})
	out.Rows[dataset.IngestRows.Name] = rows
	return nil
}

// ingestReduce: the reduce counts the rows read and keeps the valid ones;
// which rows are invalid is known only once they are read.
func ingestReduce(ctx context.Context, in *Input, out *Step) error {
	n, basis, err := rowsOr(ctx, in, dataset.IngestRows.Name)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics,
		Metric{Name: "rows read", Value: n, Stats: []string{"rows_read"}, Basis: basis},
		Metric{Name: "problems", Value: n, Rows: dataset.Problems.Name, Basis: basis + ", none rejected (rejects are known only once read)"})
	out.Rows[dataset.Problems.Name] = n
	return nil
}

func dedupMap(ctx context.Context, in *Input, out *Step) error {
	n, basis, err := rowsOr(ctx, in, dataset.Problems.Name)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics, Metric{Name: "signatures", Value: n, Stats: []string{"signatures"}, Basis: "one per problem: " + basis})
	return nil
}

func dedupReduce(ctx context.Context, in *Input, out *Step) error {
	n, basis, err := rowsOr(ctx, in, dataset.Problems.Name)
	if err != nil {
		return err
	}
	// Duplicates are found only by comparing signatures: before dedup ran,
	// the forecast keeps every problem (the paper's run dropped 5.7%).
	out.Metrics = append(out.Metrics, Metric{Name: "kept (corpus)", Value: n, Stats: []string{"kept"},
		Basis: basis + ", none dropped (duplicates are known only after dedup; the paper dropped 5.7%)"})
	out.Rows[dataset.Corpus.Name] = n
	return nil
}

func tagMap(ctx context.Context, in *Input, out *Step) error {
	docs, basis, err := rowsOr(ctx, in, dataset.Corpus.Name)
	if err != nil {
		return err
	}
	cfg := tag.Section.Of(in.Config)
	out.Metrics = append(out.Metrics, Metric{Name: "documents", Value: docs, Stats: []string{"documents"}, Basis: basis})
	perDoc, how, err := tagCallsPerDoc(ctx, in, cfg)
	if err != nil {
		return err
	}
	calls := docs * perDoc
	out.Metrics = append(out.Metrics, Metric{Name: "scorer calls", Value: calls, Stats: []string{"scorer_calls"},
		Basis: fmt.Sprintf("%.2f calls per document (%s) × documents", perDoc, how)})
	out.Rows[dataset.Topics.Name] = docs
	if cfg.Backend == "llm" {
		// A document's traversal is a chain: each level's call waits
		// for the scores of the one above.
		return llmStep(ctx, in, out, calls, in.Config.LLMFor(cfg.LLM), "topics",
			work{phases: []plan.Phase{{Name: "documents", Items: docs, Chain: perDoc}}, workers: cfg.Workers})
	}
	return nil
}

func summarizeMap(ctx context.Context, in *Input, out *Step) error {
	docs, basis, err := rowsOr(ctx, in, dataset.Corpus.Name)
	if err != nil {
		return err
	}
	cfg := summarize.Section.Of(in.Config)
	out.Metrics = append(out.Metrics,
		Metric{Name: "documents", Value: docs, Stats: []string{"documents"}, Basis: basis},
		Metric{Name: "summaries", Value: docs, Rows: dataset.Summaries.Name, Basis: "one per document (a rejected answer makes it fewer)"})
	out.Rows[dataset.Summaries.Name] = docs
	if cfg.Backend == "llm" {
		return llmStep(ctx, in, out, docs, in.Config.LLMFor(cfg.LLM), "summary",
			work{phases: []plan.Phase{{Name: "documents", Items: docs, Chain: 1}}, workers: cfg.Workers})
	}
	return nil
}

func pairsMap(ctx context.Context, in *Input, out *Step) error {
	docs, basis, err := rowsOr(ctx, in, dataset.Corpus.Name)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics, Metric{Name: "queries scanned", Value: docs, Stats: []string{"queries"}, Basis: "every document is a query: " + basis})
	out.Notes = append(out.Notes, "pairs over the floors depend on the similarities: counted by the run (saber stats)")
	return nil
}

// selectReduce: the wanted queries per domain, capped by the eligible ones
// calibrate counted when it has run and select may fall short.
func selectReduce(ctx context.Context, in *Input, out *Step) error {
	cfg := selection.Section.Of(in.Config)
	wanted := func(label string) float64 {
		for d, n := range cfg.DomainCounts {
			if domains.Key(d) == domains.Key(label) {
				return float64(n)
			}
		}
		return float64(cfg.PerDomain)
	}
	var labels []string
	basis := "select.per_domain (or domain_counts) per domain"
	eligible := map[string]float64{}
	if st := in.Stats(ctx, dataset.Thresholds.Name); st != nil {
		for k, v := range st {
			if d, ok := strings.CutPrefix(k, "eligible_at_final_"); ok {
				labels = append(labels, d)
				eligible[d] = float64(v)
			}
		}
		basis += ", capped by calibrate's eligible queries"
	}
	if len(labels) == 0 {
		tree, _, err := readers.LoadOntology(ctx, in.Config)
		if err != nil {
			return err
		}
		labels, err = readers.DomainOrderOf(tree, in.Config.Benchmark.Domains)
		if err != nil {
			return err
		}
	}
	var queries float64
	for _, l := range labels {
		n := wanted(strings.ReplaceAll(l, "_", " "))
		if e, ok := eligible[l]; ok && cfg.AllowShortfall && e < n {
			n = e
		}
		queries += n
	}
	k := float64(3 * in.Config.Benchmark.K)
	out.Metrics = append(out.Metrics,
		Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: fmt.Sprintf("%s over %d domains", basis, len(labels))},
		Metric{Name: "candidates", Value: queries * k, Stats: []string{"candidates"}, Basis: fmt.Sprintf("3 × benchmark.k = %.0f per query", k)})
	out.Rows[dataset.Queries.Name] = queries
	out.Rows[dataset.Candidates.Name] = queries * k
	return nil
}

// candidatesPerQuery is the candidates' rows over the queries' rows.
func candidatesPerQuery(ctx context.Context, in *Input) (queries, perQuery float64, basis string, err error) {
	queries, basis, err = rowsOr(ctx, in, dataset.Queries.Name)
	if err != nil {
		return 0, 0, "", err
	}
	cands, _, err := rowsOr(ctx, in, dataset.Candidates.Name)
	if err != nil {
		return 0, 0, "", err
	}
	if queries > 0 {
		perQuery = cands / queries
	}
	return queries, perQuery, basis, nil
}

// judgeMap: each query's Swiss schedule, played with coin flips, gives the
// comparisons; one judge call each, two under judge.both_orders (every
// comparison also judged swapped, a judgment row each), and one more for
// each comparison judge.position_audit samples to judge again swapped.
func judgeMap(ctx context.Context, in *Input, out *Step) error {
	queries, perQuery, basis, err := candidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	cfg := judge.Section.Of(in.Config)
	n := int(perQuery + 0.5)
	sched := cfg.Schedule()
	per, err := schedule.Matches(sched, n, cfg.Rounds, in.Config.Seed)
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
		Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: basis},
		Metric{Name: "judgments", Value: judgments, Stats: []string{"judgments"},
			Basis: fmt.Sprintf("%d per query: %s of %d candidates over judge.rounds = %d, %s", per, rule, n, cfg.Rounds, orders)})
	if audited > 0 {
		out.Metrics = append(out.Metrics, Metric{Name: "audited comparisons", Value: audited, Stats: []string{"audit_comparisons"}, Basis: auditBasis})
	}
	out.Rows[dataset.Judgments.Name] = judgments
	if audited > 0 {
		out.Rows[dataset.JudgeAudit.Name] = audited
	}
	if cfg.Backend == "llm" {
		calls := judgments
		if !cfg.BothOrders {
			calls += audited
		}
		// Rounds run in lockstep over a shard's queries: a round's
		// comparisons (both orders of each under judge.both_orders) are
		// sent together, the next round's only once they are answered,
		// and the audit's after the last.
		rounds := max(cfg.Rounds, 1)
		phases := []plan.Phase{{Name: "rounds", Items: judgments / float64(rounds), Chain: 1, Times: rounds}}
		if !cfg.BothOrders && audited > 0 {
			phases = append(phases, plan.Phase{Name: "position audit", Items: audited, Chain: 1})
		}
		return llmStep(ctx, in, out, calls, in.Config.LLMFor(cfg.LLM), "judge", work{phases: phases, workers: cfg.Workers})
	}
	return nil
}

// auditedComparisons forecasts the comparisons judge.position_audit judges
// again. The audit's sample is drawn per (query, round, match) from the
// run seed (judge.Audited), so once the queries are known the draw is
// replayed over each query's schedule — its per matches spread evenly
// over the rounds — instead of taking the share of the total, whose
// sampling error at a few hundred comparisons exceeds the 10% a forecast
// is held to.
func auditedComparisons(ctx context.Context, in *Input, cfg *judge.Config, per int) (float64, string, error) {
	ms, err := in.Complete(ctx, dataset.Queries.Name)
	if err != nil {
		queries, _, err := rowsOr(ctx, in, dataset.Queries.Name)
		return queries * float64(per) * cfg.PositionAudit, fmt.Sprintf("judge.position_audit = %g of the comparisons, judged again swapped: one call each", cfg.PositionAudit), err
	}
	perRound := float64(per) / float64(max(cfg.Rounds, 1))
	var n float64
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Queries.Name) {
			qs, err := dataset.Read[dataset.Query](ctx, in.Root, o.Key)
			if err != nil {
				return 0, "", fmt.Errorf("read %s: %w", o.Key, err)
			}
			for _, q := range qs {
				for r := 1; r <= cfg.Rounds; r++ {
					// Matches of round r: the schedule's per spread evenly.
					k0, k1 := int(perRound*float64(r-1)+0.5), int(perRound*float64(r)+0.5)
					for k := range k1 - k0 {
						if judge.Audited(in.Config.Seed, q.ID, int32(r), int32(k), cfg.PositionAudit) {
							n++
						}
					}
				}
			}
		}
	}
	return n, fmt.Sprintf("judge.position_audit = %g: its seeded draw replayed over each query's %d scheduled comparisons; one call each", cfg.PositionAudit, per), nil
}

func rateMap(ctx context.Context, in *Input, out *Step) error {
	queries, perQuery, basis, err := candidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics,
		Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: basis},
		Metric{Name: "ratings", Value: queries * perQuery, Stats: []string{"ratings"}, Basis: "one per candidate"})
	out.Rows[dataset.Ratings.Name] = queries * perQuery
	return nil
}

func evaluateMap(ctx context.Context, in *Input, out *Step) error {
	queries, perQuery, basis, err := candidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	ev := in.Config.Evaluate
	systems := float64(len(ev.Retrievers) * max(len(ev.Settings), 1))
	out.Metrics = append(out.Metrics,
		Metric{Name: "queries", Value: queries * systems, Stats: []string{"queries"}, Basis: basis + " × retrievers × settings"},
		Metric{Name: "ranked rows", Value: queries * perQuery * systems, Stats: []string{"rows"},
			Basis: fmt.Sprintf("candidates × %d retrievers × %d settings", len(ev.Retrievers), max(len(ev.Settings), 1))})
	return nil
}

func auditMap(ctx context.Context, in *Input, out *Step) error {
	queries, perQuery, basis, err := candidatesPerQuery(ctx, in)
	if err != nil {
		return err
	}
	cfg := audit.Section.Of(in.Config)
	top := min(float64(cfg.Top), perQuery)
	out.Metrics = append(out.Metrics,
		Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: basis},
		Metric{Name: "pairs audited", Value: queries * top, Stats: []string{"pairs"}, Basis: fmt.Sprintf("each query's top min(audit.top = %d, candidates)", cfg.Top)})
	if cfg.Backend == "llm" {
		return llmStep(ctx, in, out, queries*top, in.Config.LLMFor(cfg.LLM), "audit",
			work{phases: []plan.Phase{{Name: "pairs", Items: queries * top, Chain: 1}}, workers: cfg.Workers})
	}
	return nil
}
