// Package forecast says, before a run, what each stage of it will cost —
// shards and Slurm array jobs, rows, LLM calls and tokens, GPU-hours and
// wall time, bytes per dataset — and, after (or during) it, puts each
// forecast beside the actuals the shard manifests recorded (`saber plan`,
// `saber plan --compare`).
//
// Every number is derived from the config and the inputs, never written
// in: a step's forecast is one small function its declaration gives
// beside its outputs (stage.Step.Forecast), that reads the config and the
// rows of its inputs — the actual rows when the input dataset is complete,
// else what the forecast of its writer said — and may read a seeded
// sample of them. This package is the engine that ranges over the
// declarations and gives each one its stage.ForecastInput: the rows, the
// sample, and an LLM step's sampled, measured and looked-up costs, whose
// client no declaration links. Steps without a function are listed with
// their shards and "no forecast".
package forecast

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/shard"
)

// The forecast's types are those `saber plan --json` saves (jobs/plan).
type (
	Metric  = plan.Metric
	Step    = plan.Step
	LLMCost = plan.LLMCost
)

// Options configure a forecast.
type Options struct {
	// Measure sends a seeded sample of each LLM step's prompts to the
	// configured server, to measure calls per row, tokens and throughput.
	Measure bool
	// Compare reads the actuals from the manifests beside each metric.
	Compare bool
}

// Input is what a step's Forecast sees: it implements
// stage.ForecastInput.
type Input struct {
	cfg  *config.Config
	step stage.Step
	root store.Store
	opt  Options
	// rows are the forecast rows of every dataset forecast so far.
	rows     map[string]float64
	cur      *stage.Current
	measured *measured
	looked   *cacheLook
	// stale are the datasets a rerun recomputes: written by a stale step
	// (`saber run --rerun-stale` would rerun it) or downstream of one.
	stale map[string]bool
}

// ErrUnknown is returned (wrapped) by Rows for a dataset that is neither
// complete nor forecast.
var ErrUnknown = stage.ErrRowsUnknown

var _ stage.ForecastInput = (*Input)(nil)

// Config is the run's config.
func (in *Input) Config() *config.Config { return in.cfg }

// Root is the run's storage.
func (in *Input) Root() store.Store { return in.root }

// Ontology is the run's ontology (benchmark.ontology).
func (in *Input) Ontology(ctx context.Context) (*ontology.Tree, error) {
	tree, _, err := readers.LoadOntology(ctx, in.cfg)
	return tree, err
}

// Measuring says whether the step measures on the server (--measure, and
// the step is selected).
func (in *Input) Measuring() bool { return in.opt.Measure }

// Rows is the number of rows of a run dataset: the actual one when it is
// complete (its manifests' rows), else its writer's forecast. basis says
// which.
func (in *Input) Rows(ctx context.Context, ds string) (n float64, basis string, err error) {
	if ms, err := in.Complete(ctx, ds); err == nil {
		var sum int64
		for _, m := range ms {
			sum += m.Rows
		}
		return float64(sum), "actual rows of " + ds, nil
	}
	if v, ok := in.rows[ds]; ok {
		return v, "forecast rows of " + ds, nil
	}
	return 0, "", fmt.Errorf("%s: %w (its writer has no forecast, and it is not complete)", ds, ErrUnknown)
}

// Complete returns the manifests of a complete dataset (an error when it
// is not).
//
// A stale dataset is not complete: the rebuild recomputes it (a source
// added to ingest makes every step downstream stale), so its rows are
// its writer's forecast, not what the last run wrote.
func (in *Input) Complete(ctx context.Context, ds string) ([]*layout.Manifest, error) {
	if in.stale[ds] {
		return nil, fmt.Errorf("%s is stale: a rerun (--rerun-stale) recomputes it", ds)
	}
	return in.completeOrStale(ctx, ds)
}

// completeOrStale returns the manifests of a complete dataset, stale or
// not: a stale corpus is still a sample of the documents, and the last
// run's (whose answers the run's LLM cache holds).
func (in *Input) completeOrStale(ctx context.Context, ds string) ([]*layout.Manifest, error) {
	ms, err := in.cur.Manifests(ctx, ds)
	if err != nil {
		return nil, err
	}
	return layout.CompleteSet(ds, in.root.URI(layout.DonePrefix(in.cfg.Run, ds)), ms)
}

// staleDatasets are the outputs of the steps a rerun would recompute:
// the stale ones, as `saber run --rerun-stale` decides (Planner), and
// every step downstream of them.
func staleDatasets(ctx context.Context, cfg *config.Config, g *pipeline.Graph, root store.Store) (map[string]bool, error) {
	p := g.NewPlanner(cfg, root)
	var stale []int
	for i := range g.Nodes() {
		sp, err := p.Plan(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", g.Nodes()[i], err)
		}
		if sp.IsStale() {
			stale = append(stale, i)
		}
	}
	out := map[string]bool{}
	for _, i := range append(stale, g.Descendants(stale)...) {
		for _, ds := range g.Nodes()[i].Step.Outputs {
			out[ds] = true
		}
	}
	return out, nil
}

// Stats sums the statistics of a complete dataset's manifests (nil when it
// is not complete).
func (in *Input) Stats(ctx context.Context, ds string) map[string]int64 {
	ms, err := in.Complete(ctx, ds)
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for _, m := range ms {
		for k, v := range m.Stats {
			out[k] += v
		}
	}
	return out
}

// Forecast forecasts every step of the given stages, in the graph's order.
func Forecast(ctx context.Context, cfg *config.Config, g *pipeline.Graph, stages []stage.Stage, opt Options) ([]*Step, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	cur := stage.NewCurrent(root, cfg.Run)
	stale, err := staleDatasets(ctx, cfg, g, root)
	if err != nil {
		return nil, err
	}
	rows := map[string]float64{}
	maxArray := cfg.Slurm.MaxArraySize
	if maxArray == 0 {
		maxArray = shard.DefaultMaxArraySize // `saber submit` reads the cluster's
	}
	var out []*Step
	// Every step is forecast, so that a selected step can read the
	// forecast rows of unselected writers; only the selected are returned.
	want := map[int]bool{}
	for _, i := range g.NodesOf(stages) {
		want[i] = true
	}
	for i, n := range g.Nodes() {
		count := n.Step.Count(cfg)
		st := &Step{Name: n.String(), Stage: n.Stage.Name, Step: n.Step.Name, Shards: count, Output: n.Step.Outputs[0], Rows: map[string]float64{}, Bytes: map[string]float64{}}
		all := make([]int, count)
		for k := range all {
			all[k] = k
		}
		st.ArrayJobs = len(shard.Chunks(all, maxArray))
		st.ArrayTasks = count
		in := &Input{cfg: cfg, step: n.Step, root: root, opt: opt, rows: rows, cur: cur, stale: stale}
		// Measuring costs server time: only the selected steps measure.
		in.opt.Measure = opt.Measure && want[i]
		done, err := doneManifests(ctx, in, n.Step.Outputs[0], count)
		if err != nil {
			return nil, err
		}
		st.Done = len(done)
		if stale[n.Step.Outputs[0]] {
			st.Done = 0 // the rerun recomputes them
		}
		if n.Step.Forecast == nil {
			st.NoForecast = true
		} else {
			if err := n.Step.Forecast(ctx, in, st); err != nil {
				if !errors.Is(err, ErrUnknown) {
					return nil, fmt.Errorf("forecast %s: %w", n, err)
				}
				st.Notes = append(st.Notes, err.Error())
			}
		}
		for ds, v := range st.Rows {
			rows[ds] = v
		}
		if err := bytesPerDataset(ctx, in, st); err != nil {
			return nil, err
		}
		if st.LLM != nil {
			timing(st, cfg, n.Stage.Name, float64(count-st.Done)/float64(max(count, 1)))
		}
		if opt.Compare {
			if err := compare(ctx, in, st, done); err != nil {
				return nil, err
			}
		}
		if want[i] {
			out = append(out, st)
		}
	}
	return out, nil
}

// doneManifests are the manifests of ds of the step's current shard count.
func doneManifests(ctx context.Context, in *Input, ds string, count int) ([]*layout.Manifest, error) {
	ms, err := in.cur.Manifests(ctx, ds)
	if err != nil {
		return nil, err
	}
	var out []*layout.Manifest
	for _, m := range ms {
		if m.Shards == count {
			out = append(out, m)
		}
	}
	return out, nil
}

// bytesPerDataset forecasts each output dataset's bytes from the bytes per
// row of its done parts (a sample of the real thing); a dataset with no
// done part yet has no byte forecast until one shard is done.
func bytesPerDataset(ctx context.Context, in *Input, st *Step) error {
	for _, ds := range in.step.Outputs {
		rows, ok := st.Rows[ds]
		if !ok {
			continue
		}
		ms, err := doneManifests(ctx, in, ds, st.Shards)
		if err != nil {
			return err
		}
		var size, n int64
		for _, m := range ms {
			for _, o := range m.Objects(ds) {
				size += o.Size
			}
			n += m.Rows
		}
		if n > 0 {
			st.Bytes[ds] = rows * float64(size) / float64(n)
		}
	}
	return nil
}

// timing derives wall time and GPU-hours for the share of calls still to
// make, from the time a call takes at the stage's concurrency (--measure,
// or plan.calls_per_second: Little's law gives concurrency/throughput)
// and the step's phases (serverSeconds), and, with one, adds the step's
// GPU-hours as a metric that --compare puts beside the time the server
// was busy with the shards' requests.
func timing(st *Step, cfg *config.Config, stageName string, todo float64) {
	c := st.LLM
	source := "--measure, cache hits included"
	if !c.Measured {
		t := cfg.Plan.CallsPerSecond[stageName]
		if t > 0 {
			c.CallsPerSecond = t
			c.CallSeconds = float64(max(c.Concurrency, 1)) / t
		}
		source = fmt.Sprintf("plan.calls_per_second.%s = %g", stageName, t)
	}
	if c.SavedCalls == 0 && todo < 1 {
		c.SavedCalls = c.Calls * (1 - todo)
	}
	if c.CallSeconds <= 0 {
		return
	}
	// A measured call's time counts the sample's cache hits at next to
	// nothing, so every call is counted at it; a configured throughput is
	// the server's, for the calls the cache does not answer.
	sent, left := 1.0, todo
	if !c.Measured {
		sent, left = 1-c.CachedShare, 1.0
		if c.Calls > 0 {
			left = max(c.Calls-c.SavedCalls, 0) / c.Calls
		}
	}
	gpus := float64(max(cfg.Plan.GPUs, 1))
	conc := max(c.Concurrency, 1)
	c.WallHours = serverSeconds(c.Phases, st.Shards, conc, c.CallSeconds, left) / 3600
	c.GPUHours = c.WallHours * gpus
	// The metric covers every shard, as every metric does (the actual is
	// compared for the done shards' share), so it counts the calls the
	// cache does not answer, not only those of the shards left to run.
	all := serverSeconds(c.Phases, st.Shards, conc, c.CallSeconds, sent) / 3600 * gpus
	st.Metrics = append(st.Metrics, Metric{Name: "GPU-hours", Value: all, GPUs: gpus, Stats: []string{"llm_busy_ms"},
		Basis: fmt.Sprintf("each shard's %s sent in waves of %d at %.3g s a call (%s), × %.0f GPUs; actual: the time the server was busy with the shards' requests",
			phaseNames(c.Phases), conc, c.CallSeconds, source, gpus)})
}

// phaseNames lists phases for a basis: "documents", or "5 × rounds, then
// position audit" for judge's.
func phaseNames(ps []plan.Phase) string {
	var names []string
	for _, p := range ps {
		if p.Times > 1 {
			names = append(names, fmt.Sprintf("%d × %s", p.Times, p.Name))
		} else {
			names = append(names, p.Name)
		}
	}
	return strings.Join(names, ", then ")
}

// compare puts the actuals of the done shards beside each metric.
func compare(ctx context.Context, in *Input, st *Step, done []*layout.Manifest) error {
	return plan.Actuals(st, done, func(ds string, shards int) ([]*layout.Manifest, error) {
		return doneManifests(ctx, in, ds, shards)
	})
}

// Compare puts the actuals beside a forecast made earlier (`saber plan
// --json` before the run, `saber plan --compare --forecast FILE` after):
// the check that the forecast, not a recount, was right. Steps the graph
// no longer has are left as they are.
func Compare(ctx context.Context, cfg *config.Config, g *pipeline.Graph, steps []*Step) error {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return stage.BadInput(err)
	}
	cur := stage.NewCurrent(root, cfg.Run)
	for _, st := range steps {
		i, ok := g.Find(st.Stage, st.Step)
		if !ok {
			continue
		}
		n := g.Nodes()[i]
		in := &Input{cfg: cfg, step: n.Step, root: root, cur: cur}
		done, err := doneManifests(ctx, in, n.Step.Outputs[0], st.Shards)
		if err != nil {
			return err
		}
		if err := compare(ctx, in, st, done); err != nil {
			return err
		}
	}
	return nil
}
