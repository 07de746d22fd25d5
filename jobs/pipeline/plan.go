package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// StepPlan is where one step stands in the run's storage: which shards are
// done, missing or stale, from the manifests alone.
type StepPlan struct {
	Node int `json:"-"`
	// Name is the node's: "dedup map", "tag".
	Name  string `json:"name"`
	Stage string `json:"stage"`
	Step  string `json:"step"`
	// Shards is the step's shard count under the config.
	Shards int `json:"shards"`
	// Done are the done shards, stale or not; Missing the rest.
	Done    []int `json:"done"`
	Missing []int `json:"missing"`
	// Stale are the done shards that must not be served: why, by shard.
	Stale map[int]stage.Why `json:"stale,omitempty"`
	// Code are the current done shards another build made: old → new.
	Code map[int]string `json:"code_changed,omitempty"`
	// Orphans are manifests of another shard count (the config's changed
	// since they were written): stale, and in the way of a complete set.
	Orphans []Orphan `json:"orphans,omitempty"`
	// Sampled: only shard 0's config was compared (PlanConfig).
	Sampled bool `json:"sampled,omitempty"`
}

// Orphan is a manifest of a shard count the config no longer has.
type Orphan struct {
	Dataset string     `json:"dataset"`
	Shard   shard.Spec `json:"shard"`
}

// IsStale reports whether any shard or manifest of the step is stale.
func (p *StepPlan) IsStale() bool { return len(p.Stale) > 0 || len(p.Orphans) > 0 }

// StaleShards are the stale shards, sorted.
func (p *StepPlan) StaleShards() []int {
	out := make([]int, 0, len(p.Stale))
	for i := range p.Stale {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// Reasons summarises why the step is stale, one line per distinct reason.
func (p *StepPlan) Reasons() []string {
	var out []string
	seen := map[string][]int{}
	for _, i := range p.StaleShards() {
		r := p.Stale[i].String()
		if _, ok := seen[r]; !ok {
			out = append(out, r)
		}
		seen[r] = append(seen[r], i)
	}
	for k, r := range out {
		which := shardList(seen[r], p.Shards)
		if p.Sampled {
			which = "its shards (shard 0 compared)"
		}
		out[k] = fmt.Sprintf("%s: %s", which, r)
	}
	if len(p.Orphans) > 0 {
		counts := map[int]bool{}
		for _, o := range p.Orphans {
			counts[o.Shard.Count] = true
		}
		var cs []string
		for c := range counts {
			cs = append(cs, fmt.Sprint(c))
		}
		sort.Strings(cs)
		out = append(out, fmt.Sprintf("%d manifests of %s shards, but the config now makes %d shards", len(p.Orphans), strings.Join(cs, ", "), p.Shards))
	}
	return out
}

// shardList renders shard indices: "every shard" or "shards 0, 3 of 8".
func shardList(idx []int, n int) string {
	if len(idx) == n {
		if n == 1 {
			return "the shard"
		}
		return fmt.Sprintf("all %d shards", n)
	}
	s := make([]string, len(idx))
	for i, x := range idx {
		s[i] = fmt.Sprint(x)
	}
	word := "shards"
	if len(idx) == 1 {
		word = "shard"
	}
	return fmt.Sprintf("%s %s of %d", word, strings.Join(s, ", "), n)
}

// Planner plans steps of a run, reading each dataset's manifests once.
type Planner struct {
	g    *Graph
	cfg  *config.Config
	root store.Store
	cur  *stage.Current
	// DryRun: Invalidate removes nothing, and later plans only see the
	// shards it would have removed as missing (saber submit --dry-run).
	DryRun  bool
	dropped map[int]map[int]bool // node → shards invalidated by a dry run (nil map: all)
}

// NewPlanner plans the graph's steps under cfg in root.
func (g *Graph) NewPlanner(cfg *config.Config, root store.Store) *Planner {
	return &Planner{g: g, cfg: cfg, root: root, cur: stage.NewCurrent(root, cfg.Run)}
}

// Forget drops what was read of a node's outputs, after they changed.
func (p *Planner) Forget(node int) {
	for _, ds := range p.g.nodes[node].Step.Outputs {
		p.cur.Forget(ds)
	}
}

// Plan reads the manifests of one step and says where each shard stands.
func (p *Planner) Plan(ctx context.Context, node int) (*StepPlan, error) {
	n := p.g.nodes[node]
	count := n.Step.Count(p.cfg)
	sp := &StepPlan{Node: node, Name: n.String(), Stage: n.Stage.Name, Step: n.Step.Name, Shards: count}
	// A shard is done when every output dataset has its manifest.
	have := make([]int, count)
	var first map[int]*layout.Manifest
	for k, ds := range n.Step.Outputs {
		ms, err := p.cur.Manifests(ctx, ds)
		if err != nil {
			return nil, err
		}
		byShard := map[int]*layout.Manifest{}
		for _, m := range ms {
			if m.Shards != count {
				sp.Orphans = append(sp.Orphans, Orphan{Dataset: ds, Shard: m.Spec()})
				continue
			}
			byShard[m.Shard] = m
			have[m.Shard]++
		}
		if k == 0 {
			first = byShard
		}
	}
	if d, ok := p.dropped[node]; ok {
		sp.Orphans = nil
		for i := range have {
			if d == nil || d[i] {
				have[i] = 0
			}
		}
	}
	for i := 0; i < count; i++ {
		if have[i] < len(n.Step.Outputs) {
			sp.Missing = append(sp.Missing, i)
			continue
		}
		sp.Done = append(sp.Done, i)
		why, err := stage.StalenessIn(ctx, p.cfg, n.Stage, n.Step, first[i], p.cur)
		if err != nil {
			return nil, err
		}
		switch {
		case why.Stale():
			if sp.Stale == nil {
				sp.Stale = map[int]stage.Why{}
			}
			sp.Stale[i] = why
		case why.Code != "":
			if sp.Code == nil {
				sp.Code = map[int]string{}
			}
			sp.Code[i] = why.Code
		}
	}
	return sp, nil
}

// Invalidate removes the manifests of the given shards of a step (all of
// them when shards is nil), and its orphans with their parts, so that the
// step runs those shards again. The parts of the config's shard count stay
// until they are rewritten: without manifests nothing reads them.
func (p *Planner) Invalidate(ctx context.Context, sp *StepPlan, shards []int) error {
	n := p.g.nodes[sp.Node]
	if p.DryRun {
		if p.dropped == nil {
			p.dropped = map[int]map[int]bool{}
		}
		if shards == nil {
			p.dropped[sp.Node] = nil
			return nil
		}
		d := p.dropped[sp.Node]
		if _, all := p.dropped[sp.Node]; all && d == nil {
			return nil
		}
		if d == nil {
			d = map[int]bool{}
			p.dropped[sp.Node] = d
		}
		for _, i := range shards {
			d[i] = true
		}
		return nil
	}
	if shards == nil {
		shards = sp.Done
	}
	for _, i := range shards {
		for _, key := range stage.DoneKeys(p.cfg.Run, n.Step, shard.Spec{Index: i, Count: sp.Shards}) {
			if err := p.root.Delete(ctx, key); err != nil {
				return fmt.Errorf("remove %s: %w", p.root.URI(key), err)
			}
		}
	}
	for _, o := range sp.Orphans {
		keys := []string{layout.DoneKey(p.cfg.Run, o.Dataset, o.Shard)}
		// A data part is part-i-of-n.parquet, or part-i-of-n.<hash>.parquet
		// for a measurement dataset (named by its bytes): list them all.
		parts, err := p.root.List(ctx, layout.DatasetPrefix(p.cfg.Run, o.Dataset)+layout.PartName(o.Shard, "."))
		if err != nil {
			return fmt.Errorf("list the parts of orphan %s %s: %w", o.Dataset, o.Shard, err)
		}
		for _, info := range parts {
			keys = append(keys, info.Key)
		}
		for _, key := range keys {
			if err := p.root.Delete(ctx, key); err != nil {
				return fmt.Errorf("remove %s: %w", p.root.URI(key), err)
			}
		}
	}
	p.Forget(sp.Node)
	return nil
}

// StaleStepsError refuses to run or submit past stale steps: each with its
// shards and what changed, and the command that recomputes them and
// everything downstream.
type StaleStepsError struct {
	Steps []*StepPlan
	// Downstream are the steps that would be recomputed with them.
	Downstream []string
	// Fix is the command line that does it.
	Fix string
}

func (e *StaleStepsError) Error() string {
	var b strings.Builder
	b.WriteString("stale outputs: the config, inputs or shard counts changed since these ran, so they are not served as current:\n")
	for _, sp := range e.Steps {
		for _, r := range sp.Reasons() {
			fmt.Fprintf(&b, "  %s: %s\n", sp.Name, r)
		}
	}
	fmt.Fprintf(&b, "recompute them")
	if len(e.Downstream) > 0 {
		fmt.Fprintf(&b, " and everything downstream (%s)", strings.Join(e.Downstream, ", "))
	}
	fmt.Fprintf(&b, " with:\n  %s", e.Fix)
	return b.String()
}

// ExitCode makes the refusal a bad-input one (exit 2): the config or data
// changed, and the operator decides what to recompute.
func (e *StaleStepsError) ExitCode() int { return stage.ExitBadInput }

// CheckCurrent plans the given nodes and every node they read from, and
// returns the plans of the stale ones (nil when none), in order.
func (p *Planner) CheckCurrent(ctx context.Context, nodes []int) ([]*StepPlan, error) {
	all := append(p.g.Ancestors(nodes), nodes...)
	slices.Sort(all)
	all = slices.Compact(all)
	var stale []*StepPlan
	for _, i := range all {
		sp, err := p.Plan(ctx, i)
		if err != nil {
			return nil, err
		}
		if sp.IsStale() {
			stale = append(stale, sp)
		}
	}
	return stale, nil
}

// checkInputsHook is a stage binary's check before it runs a step: the
// steps that write its inputs must be current (every shard: config,
// inputs, shard count), and every step further up must still have the
// config its manifests recorded. A step's shards share their config, so
// one manifest each suffices up there, which bounds what each task of a
// large array reads before it starts; a change further up that altered
// bytes shows in the writers' inputs.
func (g *Graph) checkInputsHook(ctx context.Context, cfg *config.Config, root store.Store, step stage.Step) error {
	var writers []int
	for _, ds := range step.Inputs {
		if w, ok := g.Writer(ds); ok && !slices.Contains(writers, w) {
			writers = append(writers, w)
		}
	}
	if len(writers) == 0 {
		return nil
	}
	slices.Sort(writers)
	p := g.NewPlanner(cfg, root)
	var stale []*StepPlan
	for _, w := range writers {
		sp, err := p.Plan(ctx, w)
		if err != nil {
			return err
		}
		if sp.IsStale() {
			stale = append(stale, sp)
		}
	}
	for _, a := range g.Ancestors(writers) {
		if slices.Contains(writers, a) {
			continue
		}
		sp, err := p.PlanConfig(ctx, a)
		if err != nil {
			return err
		}
		if sp.IsStale() {
			stale = append(stale, sp)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	slices.SortFunc(stale, func(a, b *StepPlan) int { return a.Node - b.Node })
	return &StaleStepsError{Steps: stale, Fix: "saber run --config <run.yaml> --rerun-stale (or --force on those stages' shards)"}
}

// PlanConfig compares only the config of a step's shard 0 with the
// current one: stale when it differs (no other shard is read).
func (p *Planner) PlanConfig(ctx context.Context, node int) (*StepPlan, error) {
	n := p.g.nodes[node]
	count := n.Step.Count(p.cfg)
	sp := &StepPlan{Node: node, Name: n.String(), Stage: n.Stage.Name, Step: n.Step.Name, Shards: count, Sampled: true}
	m, err := layout.ReadDone(ctx, p.root, layout.DoneKey(p.cfg.Run, n.Step.Outputs[0], shard.Spec{Index: 0, Count: count}))
	if errors.Is(err, store.ErrNotExist) {
		return sp, nil // not done (or another shard count): its readers find out
	}
	if err != nil {
		return nil, err
	}
	sp.Done = []int{0}
	var why stage.Why
	if m.Config == nil {
		why.Unrecorded = true
	} else {
		why.Config = config.Diff(m.Config, n.Stage.StepConfigValues(p.cfg, n.Step))
	}
	if why.Stale() {
		sp.Stale = map[int]stage.Why{0: why}
	}
	return sp, nil
}

// names renders node names.
func (g *Graph) names(nodes []int) []string {
	out := make([]string, len(nodes))
	for k, i := range nodes {
		out[k] = g.nodes[i].String()
	}
	return out
}
