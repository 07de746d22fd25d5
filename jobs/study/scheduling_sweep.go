package study

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/saber-math/saber/jobs/stage"
)

// SchedSweepConfig is a grid of simulated studies (issue 41): one study
// per (query count, noise, seed), the rest of Sim and Study shared (their
// Queries, Noise and Seed are the grid's). A scheduler that wins on one
// seed may lose on the next; the sweep says how often the goal holds and
// how far the figures spread.
type SchedSweepConfig struct {
	Sim     SchedSimConfig
	Study   SchedConfig
	Seeds   []uint64
	Noises  []float64
	Queries []int
}

// SchedSpread is one figure of one scheduler over the sweep's cells.
type SchedSpread struct{ Mean, SD, Min, Max float64 }

func spreadOf(v []float64) SchedSpread {
	m, sd := meanSD(v)
	s := SchedSpread{Mean: m, SD: sd, Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range v {
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	return s
}

// SchedSweepRow is one scheduler over every cell of the sweep, each figure
// relative to the reference in the same cell, so that cells of different
// noise average meaningfully: the share of its comparisons, the ratio of
// inversions and of |ΔnDCG@10| (< 1: better) and the difference of top-10
// τ (> 0: better).
type SchedSweepRow struct {
	Name                  string
	Share, Inv, NDCG, Tau SchedSpread
	GoalCells, Cells      int
	// MeanGoal is MeetsGoal on the means over the cells.
	MeanGoal bool
}

// SchedSweepResult is the whole sweep.
type SchedSweepResult struct {
	Config SchedSweepConfig
	Rows   []SchedSweepRow
}

// SchedulingSweep runs the simulated study in every cell of the grid.
func SchedulingSweep(ctx context.Context, c SchedSweepConfig) (SchedSweepResult, error) {
	if len(c.Seeds) == 0 || len(c.Noises) == 0 || len(c.Queries) == 0 {
		return SchedSweepResult{}, stage.BadInput(fmt.Errorf("scheduling sweep: want ≥ 1 seed, noise and query count, have %d, %d and %d", len(c.Seeds), len(c.Noises), len(c.Queries)))
	}
	var share, inv, nd, tau [][]float64 // [scheduler][cell]
	var rows []SchedSweepRow
	for _, q := range c.Queries {
		for _, noise := range c.Noises {
			for _, s := range c.Seeds {
				sim := c.Sim
				sim.Queries, sim.Noise, sim.Seed = q, noise, s
				qs, err := SimulateBiased(sim)
				if err != nil {
					return SchedSweepResult{}, err
				}
				st := c.Study
				st.Seed = s
				res, err := Scheduling(ctx, qs, st)
				if err != nil {
					return SchedSweepResult{}, fmt.Errorf("sweep cell %d queries, noise %g, seed %d: %w", q, noise, s, err)
				}
				if rows == nil {
					k := len(res.Rows)
					share, inv, nd, tau = make([][]float64, k), make([][]float64, k), make([][]float64, k), make([][]float64, k)
					for _, r := range res.Rows {
						rows = append(rows, SchedSweepRow{Name: r.Name})
					}
				}
				ref := res.Rows[0]
				for i, r := range res.Rows {
					share[i] = append(share[i], r.Share)
					inv[i] = append(inv[i], r.Inversions/ref.Inversions)
					nd[i] = append(nd[i], r.NDCGError/ref.NDCGError)
					tau[i] = append(tau[i], r.TopTau-ref.TopTau)
					rows[i].Cells++
					if r.Goal {
						rows[i].GoalCells++
					}
				}
			}
		}
	}
	for i := range rows {
		r := &rows[i]
		r.Share, r.Inv, r.NDCG, r.Tau = spreadOf(share[i]), spreadOf(inv[i]), spreadOf(nd[i]), spreadOf(tau[i])
		// The reference in relative units: share 1, ratios 1, τ difference 0.
		r.MeanGoal = i > 0 && MeetsGoal(SchedRow{Comparisons: r.Share.Mean, Inversions: r.Inv.Mean, NDCGError: r.NDCG.Mean, TopTau: r.Tau.Mean},
			SchedRow{Comparisons: 1, Inversions: 1, NDCGError: 1, TopTau: 0})
	}
	return SchedSweepResult{Config: c, Rows: rows}, nil
}

// Text is the printed sweep: per scheduler and figure, the mean and the
// range [min, max] over the cells, and the cells where the goal held.
func (r SchedSweepResult) Text() string {
	var b bytes.Buffer
	c := r.Config
	fmt.Fprintf(&b, "Judge tournament schedulers over %d simulated studies (issue 41)\n", len(c.Seeds)*len(c.Noises)*len(c.Queries))
	fmt.Fprintf(&b, "seeds %s, noise %s, queries %s; %d candidates, position bias %g, invalid rate %g\n",
		joinNums(c.Seeds), joinNums(c.Noises), joinNums(c.Queries), c.Sim.N, c.Sim.Bias, c.Sim.InvalidRate)
	fmt.Fprintf(&b, "relative to %s in the same study: share of its calls, inversions and |ΔnDCG@10| as ratios (≤ 1 meets the goal), top-10 τ as the difference (≥ 0 meets it)\n\n", r.Rows[0].Name)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scheduler\tshare\tinversions ×\t|ΔnDCG@10| ×\ttop-10 τ Δ\tgoal in\tgoal on means\t")
	f := func(s SchedSpread, prec int) string {
		return fmt.Sprintf("%s [%s, %s]", num(s.Mean, prec), num(s.Min, prec), num(s.Max, prec))
	}
	for _, x := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t\n", x.Name, f(x.Share, 3), f(x.Inv, 3), f(x.NDCG, 3), f(x.Tau, 4), x.GoalCells, x.Cells, goal(x.MeanGoal))
	}
	tw.Flush()
	return b.String()
}

func joinNums[T uint64 | int | float64](v []T) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
