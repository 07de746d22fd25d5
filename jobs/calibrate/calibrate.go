// Package calibrate picks the final thresholds (τ_topic, τ_summ) from the
// pairs found above the floors (paper App. B.2; SPEC §3): for every point of
// a grid above the floors it counts, per domain, the queries with at least
// K documents in each category, then applies SPEC's rule (lib/thresholds).
// It runs as one task, streaming `pairs` one query at a time, so memory is
// the grid, not the pairs.
package calibrate

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/calibrate/decl"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/thresholds"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"reduce": run})

// Result is what calibration found.
type Result struct {
	Grid    thresholds.Grid
	Domains []string
	// Eligible[d][i][j] is domain d's eligible queries at (Topic[i], Summ[j]).
	Eligible [][][]int64
	// Queries[d] is domain d's queries with any pair; NoDomain counts
	// queries whose document has no domain among Domains.
	Queries  []int64
	NoDomain int64
	Choice   thresholds.Choice
	K        int
	Min      int64
	// Provenance names the backends and models of the topics and
	// summaries the pairs were scored from.
	Provenance readers.Provenance
}

// Calibrate scans pairs and counts eligibility over the grid.
func Calibrate(ctx context.Context, env *stage.Env) (*Result, error) {
	cfg := Section.Of(env.Config)
	domains, docDomain, err := readers.Domains(ctx, env, "", nil)
	if err != nil {
		return nil, err
	}
	prov, err := readers.ReadProvenance(ctx, env, dataset.Topics.Name, dataset.Summaries.Name)
	if err != nil {
		return nil, err
	}
	src, err := readers.Pairs(ctx, env)
	if err != nil {
		return nil, err
	}
	r := &Result{Provenance: prov,
		Grid:    thresholds.Grid{Topic: cfg.TopicGrid.Values(), Summ: cfg.SummGrid.Values()},
		Domains: domains, Queries: make([]int64, len(domains)),
		K: config.BenchmarkK.Get(env.Config), Min: int64(cfg.MinEligible),
	}
	index := map[string]int{}
	r.Eligible = make([][][]int64, len(domains))
	for d, name := range domains {
		index[name] = d
		r.Eligible[d] = make([][]int64, len(r.Grid.Topic))
		for i := range r.Eligible[d] {
			r.Eligible[d][i] = make([]int64, len(r.Grid.Summ))
		}
	}
	counter := thresholds.NewCounter(r.Grid)
	if src.Counts {
		err = r.fromCounts(ctx, env, src, counter, index, docDomain)
	} else {
		err = r.fromPairs(ctx, env, src, counter, index, docDomain)
	}
	if err != nil {
		return nil, err
	}
	r.Choice = thresholds.Choose(r.Eligible, r.Min)
	return r, nil
}

// fromPairs counts every pair of `pairs` (pairs.keep_all).
func (r *Result) fromPairs(ctx context.Context, env *stage.Env, src readers.PairSource, counter *thresholds.Counter, index map[string]int, docDomain map[string]string) error {
	var st, ss []float64
	prog := env.Progress("pairs", src.Rows())
	defer prog.Finish()
	return readers.PairsByQuery(ctx, env, src.PairParts, func(q string, rows []dataset.Pair) error {
		prog.Add(int64(len(rows)))
		d, ok := index[docDomain[q]]
		if !ok {
			r.NoDomain++
			return nil
		}
		r.Queries[d]++
		st, ss = st[:0], ss[:0]
		for _, p := range rows {
			st, ss = append(st, p.SimTopic), append(ss, p.SimSumm)
		}
		counter.Eligible(st, ss, r.K, func(i, j int) { r.Eligible[d][i][j]++ })
		return nil
	})
}

// fromCounts counts each query's histogram of `pair_counts`, counted over
// a grid that holds every threshold of calibrate's: the same eligibility
// the pairs give, as a cell holds documents on the same side of each.
func (r *Result) fromCounts(ctx context.Context, env *stage.Env, src readers.PairSource, counter *thresholds.Counter, index map[string]int, docDomain map[string]string) error {
	var rebinned string
	prog := env.Progress("queries (pair counts)", src.Rows())
	defer prog.Finish()
	return readers.PairCountsByQuery(ctx, env, src.CountsParts, func(row *dataset.PairCount, g thresholds.Grid) error {
		prog.Add(1)
		if row.Edges != rebinned {
			if err := counter.Rebin(g); err != nil {
				return stage.BadInput(fmt.Errorf("pair_counts: %w (calibrate.topic_grid or calibrate.summ_grid changed since pairs ran: rerun pairs)", err))
			}
			rebinned = row.Edges
		}
		d, ok := index[docDomain[row.Query]]
		if !ok {
			r.NoDomain++
			return nil
		}
		r.Queries[d]++
		counter.EligibleCells(row.Cells, row.Counts, row.Pairs, r.K, func(i, j int) { r.Eligible[d][i][j]++ })
		return nil
	})
}

// Rows returns the `thresholds` rows: the final point, then each domain's pick.
func (r *Result) Rows() []dataset.Threshold {
	f := r.Choice.Final
	final := dataset.Threshold{
		Scope: dataset.ScopeFinal, TauTopic: r.Grid.Topic[f.I], TauSumm: r.Grid.Summ[f.J],
		Feasible: r.Choice.Feasible, K: int32(r.K), MinEligible: int32(r.Min), Eligible: -1,
	}
	rows := []dataset.Threshold{final}
	for d, name := range r.Domains {
		at := r.Eligible[d][f.I][f.J]
		if rows[0].Eligible < 0 || at < rows[0].Eligible {
			rows[0].Eligible = at
		}
		row := dataset.Threshold{Scope: name, EligibleAtFinal: at, Feasible: r.Choice.OK[d], K: int32(r.K), MinEligible: int32(r.Min)}
		if r.Choice.OK[d] {
			p := r.Choice.Domain[d]
			row.TauTopic, row.TauSumm, row.Eligible = r.Grid.Topic[p.I], r.Grid.Summ[p.J], r.Eligible[d][p.I][p.J]
		}
		rows = append(rows, row)
	}
	rows[0].EligibleAtFinal = rows[0].Eligible
	return rows
}

func run(ctx context.Context, env *stage.Env) error {
	r, err := Calibrate(ctx, env)
	if err != nil {
		return err
	}
	if len(r.Grid.Topic) == 0 || len(r.Grid.Summ) == 0 {
		return stage.BadInput(fmt.Errorf("calibrate: empty threshold grid"))
	}
	rows := r.Rows()
	final := rows[0]
	for d, name := range r.Domains {
		env.Count("queries_"+key(name), r.Queries[d])
		env.Count("eligible_at_final_"+key(name), r.Eligible[d][r.Choice.Final.I][r.Choice.Final.J])
	}
	env.Count("queries_without_domain", r.NoDomain)
	env.Count("stepped_down", int64(r.Choice.SteppedDown))
	ev := env.Log.Info()
	if !final.Feasible {
		ev = env.Log.Warn()
	}
	ev.Float64("tau_topic", final.TauTopic).Float64("tau_summ", final.TauSumm).Bool("feasible", final.Feasible).
		Int64("min_eligible_over_domains", final.Eligible).Msg("thresholds chosen")
	if err := stage.WriteReport(ctx, env, ReportCSV, r.CSV()); err != nil {
		return err
	}
	if err := stage.WriteReport(ctx, env, ReportMarkdown, r.Markdown()); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Thresholds, rows); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Calibration, r.GridPoints())
}

// GridPoints returns the `calibration` rows: every domain's eligible
// queries at every point of the grid.
func (r *Result) GridPoints() []dataset.GridPoint {
	out := make([]dataset.GridPoint, 0, len(r.Domains)*len(r.Grid.Topic)*len(r.Grid.Summ))
	for d, name := range r.Domains {
		for i, tt := range r.Grid.Topic {
			for j, ts := range r.Grid.Summ {
				out = append(out, dataset.GridPoint{Scope: name, TauTopic: tt, TauSumm: ts, Eligible: r.Eligible[d][i][j]})
			}
		}
	}
	return out
}

func key(domain string) string { return strings.ReplaceAll(strings.ToLower(domain), " ", "_") }

// CSV is the whole grid: one line per point, eligible queries per domain.
func (r *Result) CSV() []byte {
	var b bytes.Buffer
	b.WriteString("tau_topic,tau_summ")
	for _, d := range r.Domains {
		fmt.Fprintf(&b, ",%q", d)
	}
	b.WriteString(",all_feasible\n")
	for i, tt := range r.Grid.Topic {
		for j, ts := range r.Grid.Summ {
			fmt.Fprintf(&b, "%s,%s", num(tt), num(ts))
			all := true
			for d := range r.Domains {
				e := r.Eligible[d][i][j]
				all = all && e >= r.Min
				fmt.Fprintf(&b, ",%d", e)
			}
			fmt.Fprintf(&b, ",%t\n", all)
		}
	}
	return b.Bytes()
}

func num(v float64) string { return fmt.Sprintf("%.6g", v) }

// Markdown is the readable table: the choice, each domain's pick, and the
// two slices of the grid through the final point.
func (r *Result) Markdown() []byte {
	var b bytes.Buffer
	f := r.Choice.Final
	fmt.Fprintf(&b, "# Threshold calibration\n\n")
	b.WriteString(r.Provenance.Markdown())
	fmt.Fprintf(&b, "A query is eligible with at least K = %d documents in each category (topic-only, summary-only, both); "+
		"a grid point is feasible for a domain with at least %d eligible queries. Rule (SPEC §3, paper App. B.2): "+
		"each domain's pick is its feasible point with the largest τ_topic, then τ_summ; the final point is the minimum "+
		"of each over the domains, stepped down the grid until every domain is feasible.\n\n", r.K, r.Min)
	fmt.Fprintf(&b, "Grid: τ_topic %s … %s (%d points), τ_summ %s … %s (%d points).\n\n",
		num(r.Grid.Topic[0]), num(r.Grid.Topic[len(r.Grid.Topic)-1]), len(r.Grid.Topic),
		num(r.Grid.Summ[0]), num(r.Grid.Summ[len(r.Grid.Summ)-1]), len(r.Grid.Summ))
	status := "feasible for every domain"
	if !r.Choice.Feasible {
		status = "**NOT feasible for every domain** (the point feasible for the most domains; `select` will report the shortfall)"
	}
	fmt.Fprintf(&b, "**Final: τ_topic = %s, τ_summ = %s**, %s", num(r.Grid.Topic[f.I]), num(r.Grid.Summ[f.J]), status)
	if r.Choice.SteppedDown > 0 {
		fmt.Fprintf(&b, "; stepped down %d grid points below the minimum of the picks", r.Choice.SteppedDown)
	}
	b.WriteString(".\n\n| domain | queries with pairs | pick τ_topic | pick τ_summ | eligible at pick | eligible at final |\n|---|--:|--:|--:|--:|--:|\n")
	for d, name := range r.Domains {
		pt, ps, pe := "—", "—", "—"
		if r.Choice.OK[d] {
			p := r.Choice.Domain[d]
			pt, ps, pe = num(r.Grid.Topic[p.I]), num(r.Grid.Summ[p.J]), fmt.Sprint(r.Eligible[d][p.I][p.J])
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %d |\n", name, r.Queries[d], pt, ps, pe, r.Eligible[d][f.I][f.J])
	}
	if r.NoDomain > 0 {
		fmt.Fprintf(&b, "\n%d queries have no domain among these and are never eligible.\n", r.NoDomain)
	}
	slice := func(title, axis string, vals []float64, at func(d, k int) int64, mark int) {
		fmt.Fprintf(&b, "\n## %s\n\n| %s |", title, axis)
		for _, name := range r.Domains {
			fmt.Fprintf(&b, " %s |", name)
		}
		b.WriteString("\n|--:|" + strings.Repeat("--:|", len(r.Domains)) + "\n")
		for k, v := range vals {
			m := ""
			if k == mark {
				m = " ◀"
			}
			fmt.Fprintf(&b, "| %s%s |", num(v), m)
			for d := range r.Domains {
				fmt.Fprintf(&b, " %d |", at(d, k))
			}
			b.WriteString("\n")
		}
	}
	slice(fmt.Sprintf("Eligible queries at τ_summ = %s", num(r.Grid.Summ[f.J])), "τ_topic", r.Grid.Topic,
		func(d, i int) int64 { return r.Eligible[d][i][f.J] }, f.I)
	slice(fmt.Sprintf("Eligible queries at τ_topic = %s", num(r.Grid.Topic[f.I])), "τ_summ", r.Grid.Summ,
		func(d, j int) int64 { return r.Eligible[d][f.I][j] }, f.J)
	fmt.Fprintf(&b, "\nThe whole grid is in %s.\n", ReportCSV)
	return b.Bytes()
}
