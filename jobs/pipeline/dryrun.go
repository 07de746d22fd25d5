package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// DryStep is what `saber run --dry-run` says of one selected step: where
// each shard stands, and the shards a run with the same flags would start.
type DryStep struct {
	Name   string `json:"name"`
	Stage  string `json:"stage"`
	Step   string `json:"step"`
	Shards int    `json:"shards"`
	// Missing have no manifest; Stale have one that must not be served
	// (why, one line per distinct reason in Reasons); Downstream are
	// current but read what a rerun recomputes; Done are current.
	Missing    []int    `json:"missing"`
	Stale      []int    `json:"stale,omitempty"`
	Reasons    []string `json:"stale_reasons,omitempty"`
	Downstream []int    `json:"downstream,omitempty"`
	Done       []int    `json:"done"`
	// Code counts current shards another build of saber made.
	Code int `json:"code_changed,omitempty"`
	// Run are the shards `saber run` with the same flags would start.
	Run []int `json:"run"`
}

// DryRunResult is a whole dry run: the steps, and the refusal a real run
// would stop at (stale shards without --rerun-stale), if any.
type DryRunResult struct {
	Steps   []DryStep `json:"steps"`
	Refusal error     `json:"-"`
}

// DryRun is the registry's graph's DryRun.
func DryRun(ctx context.Context, cfg *config.Config, stages []stage.Stage, rerun Rerun, force bool) (*DryRunResult, error) {
	return graph.DryRun(ctx, cfg, stages, rerun, force)
}

// DryRun plans what runLocal would run for the selected stages, reading
// manifests only: it neither starts a process nor writes or removes
// anything. It makes runLocal's checks before anything runs: inputs no
// selected step writes must be complete (else the same error), and stale
// shards without rerun.Stale are the refusal a real run stops at
// (Refusal; the steps are still listed, with nothing to run). With
// rerun.Stale the invalidations a real run makes are only simulated
// (Planner.DryRun), so the stale shards and every shard downstream of
// them are listed to run.
func (g *Graph) DryRun(ctx context.Context, cfg *config.Config, stages []stage.Stage, rerun Rerun, force bool) (*DryRunResult, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	nodes := g.NodesOf(stages)
	before := map[int]*StepPlan{}
	p := g.NewPlanner(cfg, root)
	for _, i := range nodes {
		if before[i], err = p.Plan(ctx, i); err != nil {
			return nil, err
		}
	}
	p.DryRun = true
	res := &DryRunResult{}
	if err := g.Prepare(ctx, p, nodes, rerun, io.Discard); err != nil {
		if !IsStaleRefusal(err) {
			return nil, err
		}
		res.Refusal = err
	}
	for _, i := range nodes {
		b := before[i]
		d := DryStep{Name: b.Name, Stage: b.Stage, Step: b.Step, Shards: b.Shards, Missing: b.Missing,
			Stale: b.StaleShards(), Reasons: b.Reasons(), Code: len(b.Code)}
		after, err := p.Plan(ctx, i)
		if err != nil {
			return nil, err
		}
		switch {
		case res.Refusal != nil:
			// A real run starts nothing.
		case force:
			d.Run = allShards(b.Shards)
		default:
			d.Run = after.Missing
		}
		run := map[int]bool{}
		for _, s := range after.Missing {
			run[s] = true
		}
		for _, s := range b.Done {
			_, stale := b.Stale[s]
			switch {
			case stale:
			case run[s]:
				d.Downstream = append(d.Downstream, s)
			default:
				d.Done = append(d.Done, s)
			}
		}
		res.Steps = append(res.Steps, d)
	}
	return res, nil
}

func allShards(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Print writes one block per step — the shards missing, stale, recomputed
// downstream and done, in ranges ("0-3, 7") — then the total and, when a
// real run would refuse, why and the command that goes past it.
func (r *DryRunResult) Print(w io.Writer) {
	total := 0
	for _, d := range r.Steps {
		total += len(d.Run)
		fmt.Fprintf(w, "%s: %d of %d shards to run\n", d.Name, len(d.Run), d.Shards)
		for _, l := range []struct {
			what string
			idx  []int
		}{{"missing", d.Missing}, {"stale", d.Stale}, {"downstream", d.Downstream}, {"done", d.Done}} {
			if len(l.idx) > 0 {
				fmt.Fprintf(w, "  %-10s %s\n", l.what, ranges(l.idx))
			}
		}
		for _, why := range d.Reasons {
			fmt.Fprintf(w, "  %-10s %s\n", "why stale", why)
		}
		if d.Code > 0 {
			fmt.Fprintf(w, "  note       %d done shards were built by other code (served as current; --rerun-code rebuilds them)\n", d.Code)
		}
	}
	if r.Refusal != nil {
		fmt.Fprintf(w, "dry run: saber run would start nothing and exit 2:\n%v\n", r.Refusal)
		return
	}
	fmt.Fprintf(w, "dry run: %d shards would run; nothing was started, written or removed\n", total)
}

// ranges renders sorted shard indices as "0-3, 7, 9-12".
func ranges(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		} else {
			parts = append(parts, fmt.Sprint(idx[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// IsStaleRefusal reports whether err is the refusal to run past stale
// shards (a dry run prints it as what a real run would say).
func IsStaleRefusal(err error) bool {
	var se *StaleStepsError
	return errors.As(err, &se)
}
