// Package stage is the runtime every saber stage runs in. A stage declares
// what each of its steps reads and writes; a step function sees only its
// config, its shard (i of n) and two stores, and this package does
// everything around it, the same way locally and on Slurm: it skips a done
// shard without reading any data or writing anything, refuses a done shard
// that is stale, reads inputs hashing their bytes as they are read (and
// refuses one that changed since it was written), records what was read and
// written and what determined the bytes, writes a completion manifest per
// output dataset last and write-once, and turns errors and signals into
// the exit codes of SPEC §2.
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
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/shard"
)

// Stage is one binary's work: one or more steps, and what configures them.
type Stage struct {
	// Name is the stage name (ingest, dedup, ...).
	Name string
	// Summary is one line for --help and `saber run --help`.
	Summary string
	// Steps are at most one sharded step and an optional reduce. Their
	// order, and every stage's place in the pipeline, follow from what
	// they read and write.
	Steps []Step
	// Section is the stage's own part of the config; all of it but its
	// operational fields (hash:"-") determines the stage's bytes.
	Section config.Def
	// Uses names the shared config keys the stage reads besides its
	// section — "seed", "benchmark.k", "llm", "retrievers" — for the
	// config given (tag reads llm only with its llm backend). Only these
	// and its section can make the stage stale.
	Uses func(cfg *config.Config) []string
	// Optional marks a stage off the main line: it runs only when named
	// (saber run --stages) or when Enabled says the config asks for it.
	Optional bool
	Enabled  func(cfg *config.Config) bool
	// Off says, for a user whose main line left the stage out, which
	// setting turns it on ("set release.date to write the release").
	Off string
	// Flags, when set, adds the binary's own flags; the function it returns
	// applies them to the loaded config, before the config's values are
	// taken, so a manifest records what the flags changed.
	Flags func(fs *flag.FlagSet) func(*config.Config)
}

// Step is a sharded map or a single-task reduce, with its contract: the
// datasets it reads and writes, its reports, and whether it keeps
// checkpoints or uses the LLM cache.
type Step struct {
	// Name is "map" or "reduce".
	Name string
	// Inputs are the run datasets the step reads; a reader refuses any
	// other. Files outside the run (raw sources, an ontology) are
	// recorded as they are read.
	Inputs []string
	// Outputs are the datasets the step writes, each part with its own
	// completion manifest; a shard is done when all of them exist.
	Outputs []string
	// Reports are the files the step writes under <run>/reports/.
	Reports []string
	// Checkpoints: the step keeps checkpoints under <run>/_checkpoints/.
	Checkpoints bool
	// Cache: the step asks an LLM through the run's cache, <run>/_cache/llm/.
	Cache bool
	// Release: the step writes a release folder, <run>/release/<version>/.
	Release bool
	// Shards returns the shard count from the config; nil means one task (a reduce).
	Shards func(*config.Config) int
	// Ignores are keys of the stage's section (dedup.threshold) that do
	// not determine this step's bytes: they are left out of its
	// manifests' config, so changing one makes only the steps that read
	// it stale (dedup's reduce, not its map).
	Ignores []string
	// Summarize, if not nil, writes the step's part of the run summary
	// (saber run, saber stats, the demo) from its complete outputs: their
	// statistics, what a user should see of them and what they should not
	// miss. A step whose outputs are not complete writes nothing.
	Summarize func(ctx context.Context, s *Summarizer) error
	// Forecast, if not nil, forecasts what the step will cost (saber
	// plan) from the config and its inputs' rows; a step without one is
	// listed with its shards and "no forecast".
	Forecast ForecastFunc
	// Run does the step's work for env.Shard. A declaration (the stage's
	// decl package, which every binary links) leaves it nil; the stage's
	// own package fills it in with Implement.
	Run RunFunc
}

// RunFunc is a step's work for one shard.
type RunFunc func(ctx context.Context, env *Env) error

// Implement is the stage declared by decl with its steps' work: runs has
// one function per step, by step name. The declaration — name, config,
// what each step reads and writes — lives apart from the work so that a
// stage binary can link every stage's declaration (to check a whole
// config and its inputs' currency) and only its own stage's code. A step
// without a function, or a function for no step, is a bug and panics when
// the stage's package loads.
func Implement(decl Stage, runs map[string]RunFunc) Stage {
	st := decl
	st.Steps = slices.Clone(decl.Steps)
	for i := range st.Steps {
		run, ok := runs[st.Steps[i].Name]
		if !ok || run == nil {
			panic(fmt.Sprintf("stage %s: no function for step %s", st.Name, st.Steps[i].Name))
		}
		st.Steps[i].Run = run
	}
	for name := range runs {
		if _, ok := st.Step(name); !ok {
			panic(fmt.Sprintf("stage %s: a function for step %s, which it does not declare", st.Name, name))
		}
	}
	return st
}

// Implemented reports whether every step has its function: false for a
// declaration.
func (st Stage) Implemented() bool {
	for _, s := range st.Steps {
		if s.Run == nil {
			return false
		}
	}
	return len(st.Steps) > 0
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

// ConfigKeys are the config keys that determine the stage's bytes under
// cfg: its section, then what Uses names.
func (st Stage) ConfigKeys(cfg *config.Config) []string {
	var keys []string
	if st.Section != nil {
		keys = append(keys, st.Section.SectionName())
	}
	if st.Uses != nil {
		keys = append(keys, st.Uses(cfg)...)
	}
	return keys
}

// ConfigValues are the flattened values of ConfigKeys under cfg.
func (st Stage) ConfigValues(cfg *config.Config) map[string]string {
	return cfg.Values(st.ConfigKeys(cfg)...)
}

// StepConfigValues are ConfigValues without what step ignores: what the
// step's manifests record and its staleness compares.
func (st Stage) StepConfigValues(cfg *config.Config, step Step) map[string]string {
	return step.drop(st.ConfigValues(cfg))
}

// drop removes from values the keys under one of s.Ignores.
func (s Step) drop(values map[string]string) map[string]string {
	for k := range values {
		for _, ig := range s.Ignores {
			if k == ig || strings.HasPrefix(k, ig+".") || strings.HasPrefix(k, ig+"[") {
				delete(values, k)
				break
			}
		}
	}
	return values
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

	decl             Step
	uses             []string
	progressInterval time.Duration
	bar              io.Writer

	mu      sync.Mutex
	inputs  []layout.Object
	inputAt map[string]int      // input key or URI → index in inputs
	listed  map[string][]string // AddListing's: path → the files it matched, sorted
	writers map[string]*layout.Manifest
	outputs []layout.Object
	stats   map[string]int64
	llm     []func(context.Context) (layout.LLMServer, bool) // AddLLMServer's: the servers the manifest describes
}

// NewEnv makes the Env of one shard of a step, for RunShard and for tests
// that drive a step function directly.
func NewEnv(cfg *config.Config, st Stage, step Step, spec shard.Spec, in, out store.Store, log zerolog.Logger) *Env {
	uses := st.ConfigKeys(cfg)
	return &Env{
		// The step sees only the sections it declared: its manifests hash
		// exactly what it can read.
		Config: cfg.View(st.Name+" "+step.Name, uses), Stage: st.Name, Step: step.Name, Shard: spec, In: in, Out: out, Log: log,
		decl: step, uses: uses,
		progressInterval: time.Duration(cfg.Log.ProgressSeconds * float64(time.Second)),
		bar:              progressBar(cfg),
	}
}

// ConfigHash is the hash of the config values that determine this
// stage's bytes, as its manifests record it.
func (e *Env) ConfigHash() string { return config.HashValues(e.decl.drop(e.Config.Values(e.uses...))) }

// DataKey is the key of this shard's part of dataset.
func (e *Env) DataKey(dataset string) string { return layout.DataKey(e.Config.Run, dataset, e.Shard) }

// RunSeed is the run's seed. A stage that derives anything from it must
// declare "seed" in Uses, so that changing the seed makes it stale.
func (e *Env) RunSeed() uint64 {
	if !slices.Contains(e.uses, "seed") {
		panic(fmt.Sprintf("stage %s derives from the run seed but does not declare \"seed\" in Uses", e.Stage))
	}
	return config.Seed.Get(e.Config)
}

// Seed derives the seed for key in this stage (never from the shard).
func (e *Env) Seed(key string) uint64 { return seed.Derive(e.RunSeed(), e.Stage, key) }

// AddFile records a file outside the run that the shard read (a raw
// source, an ontology), with the SHA-256 of its bytes as read. With Unread
// set it records a file whose size alone decided the shard's work (ingest
// plans every shard's share from every input's size), without a hash: a
// change of its size still makes the shard stale, and a later AddFile of
// the file as read replaces the record.
func (e *Env) AddFile(o layout.Object) {
	o.Dataset = ""
	if o.Unread {
		o.SHA256 = ""
	}
	e.recordInput(o)
}

func (e *Env) recordInput(o layout.Object) {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := o.Key
	if id == "" {
		id = o.URI
	}
	if e.inputAt == nil {
		e.inputAt = map[string]int{}
	}
	if i, ok := e.inputAt[id]; ok {
		if !o.Unread {
			e.inputs[i] = o
		}
		return
	}
	e.inputAt[id] = len(e.inputs)
	e.inputs = append(e.inputs, o)
}

// AddListing records that the shard expanded path (a glob, a folder or a
// file outside the run, as passed to layout.Files) into files (their
// URIs): the manifest keeps the sorted set, and a done shard whose path
// lists another set now is stale (a file added under a glob, or gone).
// None matching is an empty set. A path recorded twice keeps the first
// record: one shard lists a path once.
func (e *Env) AddListing(path string, files []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.listed == nil {
		e.listed = map[string][]string{}
	}
	if _, ok := e.listed[path]; ok {
		return
	}
	e.listed[path] = sortedSet(files)
}

// sortedSet is files sorted without repeats, never nil.
func sortedSet(files []string) []string {
	out := slices.Clone(files)
	slices.Sort(out)
	return append([]string{}, slices.Compact(out)...)
}

// Listings returns the paths the shard expanded, sorted by path.
func (e *Env) Listings() []layout.Listing {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []layout.Listing
	for p, files := range e.listed {
		out = append(out, layout.Listing{Path: p, Files: slices.Clone(files)})
	}
	slices.SortFunc(out, func(a, b layout.Listing) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Inputs returns what the shard has read so far.
func (e *Env) Inputs() []layout.Object {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.inputs)
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
	return slices.Clone(e.outputs)
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

// UndeclaredError is a step touching a dataset, report, checkpoint or the
// LLM cache it did not declare: a bug in the stage, caught before any
// harm, so that the declarations the pipeline is built from stay true.
type UndeclaredError struct {
	Stage, Step, What string
}

func (e *UndeclaredError) Error() string {
	return fmt.Sprintf("stage %s step %s uses %s without declaring it (a bug: declare it in the step)", e.Stage, e.Step, e.What)
}

// Upstream returns the parts of a complete input dataset, in shard order,
// from its manifests, and records them as the shard's inputs (as not yet
// read: reading one with ScanPart hashes it). The dataset must be one the
// step declares, and of a format version this code reads.
func (e *Env) Upstream(ctx context.Context, name string) ([]layout.Object, error) {
	if !slices.Contains(e.decl.Inputs, name) {
		return nil, &UndeclaredError{Stage: e.Stage, Step: e.Step, What: "input dataset " + name}
	}
	ms, err := layout.Complete(ctx, e.In, e.Config.Run, name)
	if err != nil {
		return nil, err
	}
	info, known := dataset.Lookup(name)
	var parts []layout.Object
	for _, m := range ms {
		if known && m.Format > info.Version {
			return nil, BadInput(fmt.Errorf("dataset %s: %s was written in format version %d; this saber (%s) reads up to version %d: use the saber that made the run, or rebuild it",
				name, e.In.URI(layout.DoneKey(e.Config.Run, name, m.Spec())), m.Format, CodeVersion(), info.Version))
		}
		for _, o := range m.Objects(name) {
			o.Dataset, o.Unread = name, true
			parts = append(parts, o)
			e.mu.Lock()
			if e.writers == nil {
				e.writers = map[string]*layout.Manifest{}
			}
			e.writers[o.Key] = m
			e.mu.Unlock()
		}
	}
	for _, o := range parts {
		e.recordInput(o)
	}
	return parts, nil
}

// Writers are the distinct manifests of the shards that wrote the parts of
// an input dataset the step has asked for with Upstream, in shard order.
func (e *Env) Writers(dataset string) []*layout.Manifest {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*layout.Manifest
	seen := map[*layout.Manifest]bool{}
	for _, o := range e.inputs {
		if m := e.writers[o.Key]; o.Dataset == dataset && m != nil && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// ScanPart streams the rows of an input part into fn, hashing its bytes as
// they are read; a part whose bytes differ from its writer's manifest is
// refused (exit 2) before any row is used.
func ScanPart[T any](ctx context.Context, env *Env, part layout.Object, fn func([]T) error) error {
	got, err := dataset.ScanVerified(ctx, env.In, part.Key, part.SHA256, fn)
	if err != nil {
		return env.changed(part, err)
	}
	part.SHA256, part.Unread = got, false
	env.recordInput(part)
	return nil
}

// changed turns a *dataset.ChangedError reading part into bad input that
// names the shard that wrote it; other errors pass through.
func (env *Env) changed(part layout.Object, err error) error {
	var ch *dataset.ChangedError
	if !errors.As(err, &ch) {
		return err
	}
	env.mu.Lock()
	m := env.writers[part.Key]
	env.mu.Unlock()
	by := "the stage that wrote it"
	if m != nil {
		by = fmt.Sprintf("%s %s (shard %s)", m.Stage, m.Step, m.Spec())
	}
	return BadInput(fmt.Errorf("%w; recompute it with --force on %s, or restore it", err, by))
}

// OpenPart opens an input part whole, for its row groups, verified and
// recorded as ScanPart does; the caller closes it.
func OpenPart[T any](ctx context.Context, env *Env, part layout.Object) (*dataset.Part[T], error) {
	p, got, err := dataset.OpenVerified[T](ctx, env.In, part.Key, part.SHA256)
	if err != nil {
		return nil, env.changed(part, err)
	}
	part.SHA256, part.Unread = got, false
	env.recordInput(part)
	return p, nil
}

// ReadPart reads every row of an input part into T (see ScanPart).
func ReadPart[T any](ctx context.Context, env *Env, part layout.Object) ([]T, error) {
	var out []T
	err := ScanPart(ctx, env, part, func(rows []T) error {
		out = append(out, rows...)
		return nil
	})
	return out, err
}

// ReadRange reads rows [lo, hi) of an input dataset whose parts hold
// contiguous runs of its rows in order (as every stage writes them), into
// T. Parts outside the range are not opened: their row counts, from the
// manifests, place the range, and they stay recorded as unread inputs.
func ReadRange[T any](ctx context.Context, env *Env, parts []layout.Object, lo, hi int) ([]T, error) {
	out := make([]T, 0, max(hi-lo, 0))
	offset := 0
	for _, p := range parts {
		start, end := offset, offset+int(p.Rows)
		offset = end
		if end <= lo || start >= hi {
			continue
		}
		i := start
		err := ScanPart(ctx, env, p, func(rows []T) error {
			for _, r := range rows {
				if i >= lo && i < hi {
					out = append(out, r)
				}
				i++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if i != end {
			return nil, fmt.Errorf("read %s: %d rows, its manifest says %d", p.URI, i-start, p.Rows)
		}
	}
	if len(out) != max(hi-lo, 0) {
		return nil, fmt.Errorf("read rows [%d,%d): found %d (the parts hold %d rows)", lo, hi, len(out), offset)
	}
	return out, nil
}

// CheckpointPrefix is where this shard keeps its checkpoints; the step
// must declare Checkpoints.
func (e *Env) CheckpointPrefix() (string, error) {
	if !e.decl.Checkpoints {
		return "", &UndeclaredError{Stage: e.Stage, Step: e.Step, What: "checkpoints"}
	}
	return layout.CheckpointPrefix(e.Config.Run, e.Stage, e.Shard), nil
}

// codeCommit and codeDirty are set at link time by `make build`
// (-ldflags -X), so a binary knows its commit even where the environment
// builds with -buildvcs=false: codeCommit is the commit id, codeDirty
// "+dirty.<hash of the uncommitted changes>" or "".
var codeCommit, codeDirty string

// CodeVersion identifies the build: the commit it was built from, with
// "+dirty.<digest>" when the tree had uncommitted changes (the digest
// tells two dirty builds apart), from the link-time stamp of `make build`,
// else from Go's VCS stamp, else "unknown".
func CodeVersion() string {
	if codeCommit != "" {
		return codeCommit + codeDirty
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
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
		return rev + modified
	}
	return "unknown (built without a commit stamp: use make build)"
}

// Options are the runtime's knobs for one shard run.
type Options struct {
	// Force redoes a done shard.
	Force bool
	// Out overrides the output store (verify's scratch storage).
	Out store.Store
	// SkipDoneCheck runs even when a manifest exists and writes none (verify).
	SkipDoneCheck bool
	// CheckInputs, when set, runs before the step and refuses to start
	// when an input dataset is stale (the pipeline knows its producers).
	CheckInputs func(ctx context.Context) error
}

// Result is what a shard run did.
type Result struct {
	Skipped bool
	// Manifest is the manifest of the step's first output dataset.
	Manifest *layout.Manifest
	Outputs  []layout.Object
}

// DoneKeys are the manifests that mark a shard of a step done, one per
// output dataset.
func DoneKeys(run string, step Step, spec shard.Spec) []string {
	keys := make([]string, len(step.Outputs))
	for i, ds := range step.Outputs {
		keys[i] = layout.DoneKey(run, ds, spec)
	}
	return keys
}

// RunShard runs one shard of a step with completion handling.
func RunShard(ctx context.Context, cfg *config.Config, st Stage, step Step, spec shard.Spec, in store.Store, log zerolog.Logger, opt Options) (res Result, err error) {
	step, err = codeOf(st, step)
	if err != nil {
		return Result{}, err
	}
	out := in
	if opt.Out != nil {
		out = opt.Out
	}
	doneKeys := DoneKeys(cfg.Run, step, spec)
	log = log.With().Str("step", step.Name).Str("shard", spec.String()).Logger()
	// Storage logs through the context (an S3 retry is a line): from the
	// first call on, the done check's included, with the shard's fields.
	ctx = log.WithContext(ctx)
	var replaced *layout.Manifest
	if !opt.SkipDoneCheck {
		skip, r, err := checkDone(ctx, cfg, st, step, spec, in, out, doneKeys, log, opt)
		if err != nil {
			return Result{}, err
		}
		if skip != nil {
			return *skip, nil
		}
		replaced = r
	}
	env := NewEnv(cfg, st, step, spec, in, out, log)
	started := time.Now().UTC()
	log.Info().Msg("shard started")
	stepCtx, storeStats := withStoreStats(ctx, log)
	if err := runStep(stepCtx, step, env); err != nil {
		var bug *BugError
		if ctx.Err() != nil && ExitCode(err) != ExitBadInput && !errors.As(err, &bug) {
			return Result{}, fmt.Errorf("%w (%v)", ErrInterrupted, err)
		}
		return Result{}, err
	}
	env.recordStore(storeStats)
	if err := ctx.Err(); err != nil {
		return Result{}, ErrInterrupted
	}
	if opt.SkipDoneCheck {
		return Result{Outputs: env.Outputs()}, nil
	}
	return finish(ctx, cfg, st, step, spec, env, started, out, doneKeys, replaced, log)
}

// codeOf is the step to run: step itself, or, given a declaration's step
// (no Run), the stage's own step of that name.
func codeOf(st Stage, step Step) (Step, error) {
	if step.Run == nil {
		code, ok := st.Step(step.Name)
		if !ok || code.Run == nil {
			return Step{}, &BugError{Err: fmt.Errorf("stage %s step %s: no code to run (a declaration: run its binary, or pass the stage from jobs/stages)", st.Name, step.Name)}
		}
		step = code
	}
	if len(step.Outputs) == 0 {
		return Step{}, fmt.Errorf("stage %s step %s declares no outputs (a bug)", st.Name, step.Name)
	}
	return step, nil
}

// checkDone decides, from the completion manifests alone, whether the
// shard runs: a done shard is skipped (the Result says so) or, stale,
// refused; otherwise its inputs are checked and the markers of an earlier
// run (a --force, or an interrupted finish) removed, the manifest they
// replace returned so that its measurement parts go once this run is done.
func checkDone(ctx context.Context, cfg *config.Config, st Stage, step Step, spec shard.Spec, in, out store.Store, doneKeys []string, log zerolog.Logger, opt Options) (skip *Result, replaced *layout.Manifest, err error) {
	var present []string
	for _, k := range doneKeys {
		done, err := layout.Done(ctx, out, k)
		if err != nil {
			return nil, nil, fmt.Errorf("check %s: %w", out.URI(k), err)
		}
		if done {
			present = append(present, k)
		}
	}
	if len(present) == len(doneKeys) && !opt.Force {
		m, err := layout.ReadDone(ctx, out, doneKeys[0])
		if err != nil {
			return nil, nil, err
		}
		why, err := Staleness(ctx, cfg, st, step, m, in)
		if err != nil {
			return nil, nil, err
		}
		if why.Stale() {
			return nil, nil, &StaleError{Stage: st.Name, Step: step.Name, Shards: []shard.Spec{spec}, Why: why,
				Fix: "recompute it with --force (then everything downstream), or `saber run --rerun-stale`"}
		}
		if why.Code != "" {
			log.Warn().Str("code", why.Code).Msg("shard was built by other code; still served (rerun with --force to rebuild it)")
		}
		log.Info().Str("manifest", out.URI(doneKeys[0])).Msg("shard already done; skipping (use --force to redo)")
		return &Result{Skipped: true, Manifest: m}, nil, nil
	}
	// Refuse stale inputs before touching anything: a refused --force
	// must leave the shard as it was.
	if opt.CheckInputs != nil {
		if err := opt.CheckInputs(ctx); err != nil {
			return nil, nil, err
		}
	}
	if len(present) == 0 {
		return nil, nil, nil
	}
	if opt.Force {
		if err := checkForcedInputs(ctx, cfg.Run, step, in, out, present[0]); err != nil {
			return nil, nil, fmt.Errorf("--force refused before removing anything: %w", err)
		}
	}
	replaced, _ = layout.ReadDone(ctx, out, present[0])
	// Remove the markers first: from here until the new ones are written
	// the shard is visibly not done. Some but not all present means a
	// finish was interrupted: the same.
	for _, k := range present {
		if err := out.Delete(ctx, k); err != nil {
			return nil, nil, fmt.Errorf("remove %s: %w", out.URI(k), err)
		}
	}
	if opt.Force {
		log.Info().Msg("--force: redoing a done shard")
	} else {
		log.Info().Int("markers", len(present)).Msg("an earlier finish of this shard was interrupted; redoing it")
	}
	return nil, replaced, nil
}

// finish writes the shard's completion manifests, one per output dataset
// and last, then drops the measurement parts the run no longer needs
// (its own unreferenced ones, and those of the manifest it replaced).
func finish(ctx context.Context, cfg *config.Config, st Stage, step Step, spec shard.Spec, env *Env, started time.Time, out store.Store, doneKeys []string, replaced *layout.Manifest, log zerolog.Logger) (Result, error) {
	outs := env.Outputs()
	host, _ := os.Hostname()
	values := st.StepConfigValues(cfg, step)
	inputs := env.Inputs()
	base := layout.Manifest{
		Stage: st.Name, Step: step.Name, Run: cfg.Run, Shard: spec.Index, Shards: spec.Count,
		Outputs: outs, Inputs: inputs, Listings: env.Listings(), Config: values, ConfigHash: config.HashValues(values),
		InputsHash: InputsHash(inputs), CodeVersion: CodeVersion(),
		Started: started, Finished: time.Now().UTC(), Host: host, Slurm: slurmEnv(), Stats: env.Stats(),
		LLM: env.llmServers(),
	}
	base.Hash = ManifestHash(&base)
	var first *layout.Manifest
	for i, ds := range step.Outputs {
		m := base
		m.Dataset = ds
		if info, ok := dataset.Lookup(ds); ok {
			m.Format = info.Version
		}
		objs := m.Objects(ds)
		if len(objs) == 0 {
			return Result{}, fmt.Errorf("stage %s step %s declares output %s but wrote none of it (a bug)", st.Name, step.Name, ds)
		}
		for _, o := range objs {
			m.Rows += o.Rows
		}
		stored, err := layout.WriteShardDone(ctx, out, doneKeys[i], &m, dataset.Volatile)
		if err != nil {
			return Result{}, err
		}
		if first == nil {
			first = stored
		}
	}
	dropMeasurements(ctx, out, first, log, outs)
	if replaced != nil {
		dropMeasurements(ctx, out, first, log, replaced.Outputs)
	}
	// A duration's unit is in its key (took_ms), as in the manifests'
	// stats (llm_busy_ms): zerolog's Dur writes a bare number.
	log.Info().Int64("rows", first.Rows).Int64("took_ms", time.Since(started).Milliseconds()).Str("manifest", out.URI(doneKeys[0])).Msg("shard done")
	return Result{Manifest: first, Outputs: outs}, nil
}

// checkForcedInputs is --force's check that the shard can run before its
// manifests go: every input dataset of the step is complete with intact
// manifests, and every part the shard read last time (its manifest's
// inputs) is still readable with the bytes its writer recorded. Without it
// a part tampered with upstream was found only while the step read it,
// after the manifests were removed: a refused --force left the run
// incomplete. It costs one more read of those parts, for --force only; a
// part the shard did not read last time is still checked as it is read.
func checkForcedInputs(ctx context.Context, run string, step Step, in, out store.Store, doneKey string) error {
	old, err := layout.ReadDone(ctx, out, doneKey)
	if err != nil {
		return nil // a damaged manifest is what --force is for; it records nothing to check
	}
	// The datasets the shard read last time: an optional input it did
	// not read (the release's judge_audit) need not exist now either.
	read := map[string]bool{}
	for _, o := range old.Inputs {
		read[o.Dataset] = o.Dataset != ""
	}
	writers := map[string]layout.Object{}
	writerOf := map[string]*layout.Manifest{}
	for _, ds := range step.Inputs {
		if !read[ds] {
			continue
		}
		ms, err := layout.Complete(ctx, in, run, ds)
		if err != nil {
			return err
		}
		for _, m := range ms {
			for _, o := range m.Objects(ds) {
				writers[o.Key], writerOf[o.Key] = o, m
			}
		}
	}
	for _, o := range old.Inputs {
		w, ok := writers[o.Key]
		if o.Unread || !ok || w.SHA256 == "" {
			continue // only counted, or no longer a part: the step decides
		}
		obj, err := in.Open(ctx, o.Key)
		if err != nil {
			return fmt.Errorf("open input %s: %w", in.URI(o.Key), err)
		}
		h := sha256.New()
		_, err = io.Copy(h, store.Reader(obj))
		obj.Close()
		if err != nil {
			return fmt.Errorf("read input %s: %w", in.URI(o.Key), err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != w.SHA256 {
			m := writerOf[o.Key]
			return BadInput(fmt.Errorf("%w; recompute it with --force on %s %s (shard %s), or restore it",
				&dataset.ChangedError{URI: in.URI(o.Key), Want: w.SHA256, Got: got}, m.Stage, m.Step, m.Spec()))
		}
	}
	return nil
}

// runStep runs the step function, turning a panic — in the step's own
// goroutine, or in a worker of its parallel.For — into a *BugError (exit 1)
// and logging its stack, instead of a crash whose exit code 2 would read as
// bad input.
func runStep(ctx context.Context, step Step, env *Env) (err error) {
	where := fmt.Sprintf("stage %s step %s", env.Stage, env.Step)
	defer func() {
		if r := recover(); r != nil {
			bug := recovered(r, where, debug.Stack())
			env.Log.Error().Str("stack", string(bug.Stack)).Msg("panic")
			err = bug
		}
	}()
	err = step.Run(ctx, env)
	var pe *parallel.PanicError
	if errors.As(err, &pe) {
		env.Log.Error().Str("stack", string(pe.Stack)).Msg("panic in a worker")
		err = &BugError{Err: fmt.Errorf("%s: %w (a bug)", where, err), Stack: pe.Stack}
	}
	return err
}

// InputsHash is the SHA-256 over the inputs' datasets, keys (URIs for
// files) and hashes, sorted.
func InputsHash(inputs []layout.Object) string {
	lines := make([]string, len(inputs))
	for i, o := range inputs {
		id := o.Key
		if id == "" {
			id = o.URI
		}
		lines[i] = o.Dataset + "\t" + id + "\t" + o.SHA256
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// ManifestHash is the SHA-256 of everything that determines a shard's
// bytes: its config values, its inputs and its code.
func ManifestHash(m *layout.Manifest) string {
	sum := sha256.Sum256([]byte(m.ConfigHash + "\n" + m.InputsHash + "\n" + m.CodeVersion))
	return hex.EncodeToString(sum[:])
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
// dataset's key) and records it as an output for the manifest; the step
// must declare the dataset. A measurement dataset's part is named by its
// bytes (layout.MeasurementKey), so no other process can replace it.
func WriteOutput[T any](ctx context.Context, env *Env, ds dataset.Dataset[T], rows []T) error {
	if !slices.Contains(env.decl.Outputs, ds.Name) {
		return &UndeclaredError{Stage: env.Stage, Step: env.Step, What: "output dataset " + ds.Name}
	}
	write := ds.Write
	if ds.Measurement {
		write = func(ctx context.Context, st store.Store, _ string, rows []T) (layout.Object, error) {
			return ds.WriteNamed(ctx, st, func(sha string) string { return layout.MeasurementKey(env.Config.Run, ds.Name, env.Shard, sha) }, rows)
		}
	}
	o, err := write(ctx, env.Out, env.DataKey(ds.Name), rows)
	if err != nil {
		return err
	}
	o.Dataset = ds.Name
	env.AddOutput(o)
	return nil
}

// WriteReleaseFile writes one file of release version's folder
// (<run>/release/<version>/<path>) atomically and records it as an output
// with its SHA-256, like a report; the step must declare Release.
func WriteReleaseFile(ctx context.Context, env *Env, version, path string, data []byte) (layout.Object, error) {
	if !env.decl.Release {
		return layout.Object{}, &UndeclaredError{Stage: env.Stage, Step: env.Step, What: "a release folder"}
	}
	key := layout.ReleaseKey(env.Config.Run, version, path)
	info, err := store.Put(ctx, env.Out, key, data, store.Replace)
	if err != nil {
		return layout.Object{}, fmt.Errorf("write %s: %w", env.Out.URI(key), err)
	}
	sum := sha256.Sum256(data)
	o := layout.Object{URI: env.Out.URI(key), Key: key, SHA256: hex.EncodeToString(sum[:]), Size: info.Size}
	env.AddOutput(o)
	return o, nil
}

// WriteReport writes a report file (Markdown, CSV, JSON) under
// <run>/reports/ atomically and records it as an output with its SHA-256,
// so `saber verify` checks it like any dataset part; the step must declare
// the report.
func WriteReport(ctx context.Context, env *Env, name string, data []byte) error {
	if !slices.Contains(env.decl.Reports, name) {
		return &UndeclaredError{Stage: env.Stage, Step: env.Step, What: "report " + name}
	}
	key := layout.ReportKey(env.Config.Run, name)
	info, err := store.Put(ctx, env.Out, key, data, store.Replace)
	if err != nil {
		return fmt.Errorf("write %s: %w", env.Out.URI(key), err)
	}
	sum := sha256.Sum256(data)
	env.AddOutput(layout.Object{URI: env.Out.URI(key), Key: key, SHA256: hex.EncodeToString(sum[:]), Size: info.Size})
	return nil
}
