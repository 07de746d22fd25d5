// Package stage is the runtime every saber stage runs in. A stage function
// sees only its config, its shard (i of n) and two stores; this package does
// everything around it, the same way locally and on Slurm: it skips a done
// shard without reading or writing anything, records the inputs and outputs
// with their SHA-256, writes the completion manifest last and write-once, and
// turns errors and signals into the exit codes of SPEC §2.
package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/shard"
)

// Stage is one binary's work: one or more steps run in order.
type Stage struct {
	// Name is the stage name (ingest, dedup, ...).
	Name string
	// Summary is one line for --help and `saber run --help`.
	Summary string
	// Steps run in order; at most one sharded step, then an optional reduce.
	Steps []Step
	// After names the stages whose outputs this one reads, when that is not
	// simply the stage before it in the pipeline; `saber submit` makes its
	// jobs depend on theirs only (evaluate runs beside judge and rate).
	After []string
	// Flags, when set, adds the binary's own flags; the function it returns
	// applies them to the loaded config, before the config's hash is taken,
	// so a manifest records what the flags changed.
	Flags func(fs *flag.FlagSet) func(*config.Config)
}

// Step is a sharded map or a single-task reduce.
type Step struct {
	// Name is "map" or "reduce".
	Name string
	// Dataset holds this step's completion markers.
	Dataset string
	// Shards returns the shard count from the config; nil means one task (a reduce).
	Shards func(*config.Config) int
	// Run does the step's work for env.Shard.
	Run func(ctx context.Context, env *Env) error
}

// Sharded reports whether the step runs as several shards.
func (s Step) Sharded() bool { return s.Shards != nil }

// Count is the step's shard count under cfg.
func (s Step) Count(cfg *config.Config) int {
	if s.Shards == nil {
		return 1
	}
	return s.Shards(cfg)
}

// Step returns the named step.
func (st Stage) Step(name string) (Step, bool) {
	for _, s := range st.Steps {
		if s.Name == name {
			return s, true
		}
	}
	return Step{}, false
}

// Env is what a step sees.
type Env struct {
	Config *config.Config
	Stage  string
	Step   string
	Shard  shard.Spec
	// In is where inputs are read; Out is where outputs are written. They
	// differ only under `saber verify`, which writes to scratch storage.
	In, Out store.Store
	Log     zerolog.Logger

	progressInterval time.Duration
	bar              io.Writer

	mu      sync.Mutex
	inputs  []layout.Object
	outputs []layout.Object
	stats   map[string]int64
}

// DataKey is the key of this shard's part of dataset.
func (e *Env) DataKey(dataset string) string { return layout.DataKey(e.Config.Run, dataset, e.Shard) }

// Seed derives the seed for key in this stage (never from the shard).
func (e *Env) Seed(key string) uint64 { return seed.Derive(e.Config.Seed, e.Stage, key) }

// AddInput records an object the shard read.
func (e *Env) AddInput(o layout.Object) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.inputs = append(e.inputs, o)
}

// AddOutput records an object the shard wrote.
func (e *Env) AddOutput(o layout.Object) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outputs = append(e.outputs, o)
}

// Outputs returns the objects written so far.
func (e *Env) Outputs() []layout.Object {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]layout.Object(nil), e.outputs...)
}

// Count adds n to a named statistic kept in the manifest.
func (e *Env) Count(name string, n int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stats == nil {
		e.stats = map[string]int64{}
	}
	e.stats[name] += n
}

// Stats returns a copy of the statistics.
func (e *Env) Stats() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int64, len(e.stats))
	for k, v := range e.stats {
		out[k] = v
	}
	return out
}

// Progress starts a progress report for total units of what.
func (e *Env) Progress(what string, total int64) *Progress {
	return newProgress(e.Log, what, total, e.progressInterval, e.bar)
}

// Upstream returns the objects of a complete upstream dataset, in shard
// order, from its manifests, and records them as inputs. The hashes are the
// manifests' own: every output's hash was taken as it was written.
func (e *Env) Upstream(ctx context.Context, dataset string) ([]layout.Object, error) {
	return e.UpstreamVia(ctx, dataset, dataset)
}

// UpstreamVia is Upstream for a dataset written beside another by the same
// step, whose manifests live under that other dataset (select's `queries`,
// marked done under `candidates`; dedup's `duplicates`, under `corpus`).
func (e *Env) UpstreamVia(ctx context.Context, done, dataset string) ([]layout.Object, error) {
	ms, err := layout.Complete(ctx, e.In, e.Config.Run, done)
	if err != nil {
		return nil, err
	}
	prefix := e.Config.Run + "/" + dataset + "/"
	var objs []layout.Object
	for _, m := range ms {
		for _, o := range m.Outputs {
			if strings.HasPrefix(o.Key, prefix) {
				objs = append(objs, o)
			}
		}
	}
	for _, o := range objs {
		e.AddInput(o)
	}
	return objs, nil
}

// CodeVersion identifies the build: module version and VCS revision.
func CodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		return v + " " + rev + modified
	}
	return v
}

// Options are the runtime's knobs for one shard run.
type Options struct {
	// Force redoes a done shard.
	Force bool
	// Out overrides the output store (verify's scratch storage).
	Out store.Store
	// SkipDoneCheck runs even when a manifest exists and writes none (verify).
	SkipDoneCheck bool
}

// Result is what a shard run did.
type Result struct {
	Skipped  bool
	Manifest *layout.Manifest
	Outputs  []layout.Object
}

// RunShard runs one shard of a step with completion handling.
func RunShard(ctx context.Context, cfg *config.Config, st Stage, step Step, spec shard.Spec, in store.Store, log zerolog.Logger, opt Options) (Result, error) {
	out := in
	if opt.Out != nil {
		out = opt.Out
	}
	doneKey := layout.DoneKey(cfg.Run, step.Dataset, spec)
	log = log.With().Str("step", step.Name).Str("shard", spec.String()).Logger()
	if !opt.SkipDoneCheck {
		done, err := layout.Done(ctx, out, doneKey)
		if err != nil {
			return Result{}, fmt.Errorf("check %s: %w", out.URI(doneKey), err)
		}
		if done && !opt.Force {
			log.Info().Str("manifest", out.URI(doneKey)).Msg("shard already done; skipping (use --force to redo)")
			return Result{Skipped: true}, nil
		}
		if done {
			// Remove the marker first: from here until the new one is written
			// the shard is visibly not done.
			if err := out.Delete(ctx, doneKey); err != nil {
				return Result{}, fmt.Errorf("remove %s: %w", out.URI(doneKey), err)
			}
			log.Info().Msg("--force: redoing a done shard")
		}
	}
	env := &Env{
		Config: cfg, Stage: st.Name, Step: step.Name, Shard: spec, In: in, Out: out, Log: log,
		progressInterval: time.Duration(cfg.Log.ProgressSeconds * float64(time.Second)),
		bar:              progressBar(cfg),
	}
	started := time.Now().UTC()
	log.Info().Msg("shard started")
	if err := step.Run(ctx, env); err != nil {
		if ctx.Err() != nil && ExitCode(err) != ExitBadInput {
			return Result{}, fmt.Errorf("%w (%v)", ErrInterrupted, err)
		}
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, ErrInterrupted
	}
	outs := env.Outputs()
	if opt.SkipDoneCheck {
		return Result{Outputs: outs}, nil
	}
	var rows int64
	for _, o := range outs {
		if strings.HasPrefix(o.Key, cfg.Run+"/"+step.Dataset+"/") {
			rows += o.Rows
		}
	}
	host, _ := os.Hostname()
	m := &layout.Manifest{
		Stage: st.Name, Step: step.Name, Run: cfg.Run, Shard: spec.Index, Shards: spec.Count,
		Rows: rows, Outputs: outs, Inputs: env.inputs, ConfigHash: cfg.Hash(), CodeVersion: CodeVersion(),
		Started: started, Finished: time.Now().UTC(), Host: host, Slurm: slurmEnv(), Stats: env.Stats(),
	}
	if err := layout.WriteDone(ctx, out, doneKey, m); err != nil {
		return Result{}, err
	}
	log.Info().Int64("rows", rows).Dur("took", time.Since(started)).Str("manifest", out.URI(doneKey)).Msg("shard done")
	return Result{Manifest: m, Outputs: outs}, nil
}

var slurmVars = []string{"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT", "SLURMD_NODENAME"}

func slurmEnv() map[string]string {
	var m map[string]string
	for _, k := range slurmVars {
		if v := os.Getenv(k); v != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[strings.ToLower(k)] = v
		}
	}
	return m
}

// ErrNoSteps is returned for a stage without steps (a programming error).
var ErrNoSteps = errors.New("stage has no steps")

// WriteOutput writes this shard's part of a dataset (rows sorted by the
// dataset's key) and records it as an output for the manifest.
func WriteOutput[T any](ctx context.Context, env *Env, ds dataset.Dataset[T], rows []T) error {
	o, err := ds.Write(ctx, env.Out, env.DataKey(ds.Name), rows)
	if err != nil {
		return err
	}
	env.AddOutput(o)
	return nil
}

// ReportKey is the key of a human-readable report file of this run.
func (e *Env) ReportKey(name string) string { return e.Config.Run + "/reports/" + name }

// WriteReport writes a report file (Markdown, CSV, JSON) under
// <run>/reports/ atomically and records it as an output with its SHA-256,
// so `saber verify` checks it like any dataset part.
func WriteReport(ctx context.Context, env *Env, name string, data []byte) error {
	key := env.ReportKey(name)
	info, err := store.Put(ctx, env.Out, key, data, store.Replace)
	if err != nil {
		return fmt.Errorf("write %s: %w", env.Out.URI(key), err)
	}
	sum := sha256.Sum256(data)
	env.AddOutput(layout.Object{URI: env.Out.URI(key), Key: key, SHA256: hex.EncodeToString(sum[:]), Size: info.Size})
	return nil
}
