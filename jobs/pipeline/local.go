package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/shard"
)

// LocalOptions configure the local executor.
type LocalOptions struct {
	// ConfigPath is passed to every stage process.
	ConfigPath string
	// Parallel shard processes at once; 0 means one per core.
	Parallel int
	// BinDir holds the stage binaries.
	BinDir string
	// LogDir gets one log file per shard, named by the run (LogFile).
	LogDir string
	// Force redoes done shards.
	Force bool
	// Rerun recomputes stale shards (and what depends on them).
	Rerun Rerun
	// Out receives one line per started, skipped and finished shard.
	Out io.Writer
	// Lease says whether to wait for the run's lease (lease.go).
	Lease LeaseOptions
}

// ShardRun is one shard the executor handled.
type ShardRun struct {
	Stage, Step string
	Shard       shard.Spec
	Skipped     bool
	Wall        time.Duration
	// MaxRSSKiB is the process's peak resident memory; CPU its user and
	// system time (make bench's per-core throughput).
	MaxRSSKiB int64
	CPU       time.Duration
	Log       string
}

// ShardError is a failed shard: its exit code or the signal that killed
// it, the end of its log and the command that re-runs it alone.
type ShardError struct {
	Run ShardRun
	// Code is the shard process's exit code; Signal, when not 0, killed it.
	Code    int
	Signal  syscall.Signal
	Command string
	Tail    []string
	// At is when the shard ended.
	At time.Time
}

// ExitCode is the shard's own code, so that `saber run` exits as the shard
// did (SPEC §2). A shard killed by a signal exits 1 when the signal is a
// crash of its own (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT); any other
// signal came from outside — the OOM killer, an operator, a time limit —
// and, since a killed shard leaves no manifest, a rerun resumes: 75.
func (e *ShardError) ExitCode() int {
	switch e.Signal {
	case 0:
		return e.Code
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT:
		return stage.ExitBug
	}
	return stage.ExitTempFail
}

// Summary is the failure in one line: which shard, and how it ended.
func (e *ShardError) Summary() string {
	how := fmt.Sprintf("failed (exit %d)", e.Code)
	if e.Signal != 0 {
		how = fmt.Sprintf("was killed by signal %d (%s)", int(e.Signal), e.Signal)
	}
	return fmt.Sprintf("%s %s shard %s %s", e.Run.Stage, e.Run.Step, e.Run.Shard, how)
}

func (e *ShardError) Error() string {
	var b strings.Builder
	b.WriteString(e.Summary())
	if e.Signal == syscall.SIGKILL {
		b.WriteString(", by an operator or the kernel's OOM killer (dmesg says; fewer shards at once, --parallel or executor.parallel, need less memory)")
	}
	fmt.Fprintf(&b, "; last lines of %s:\n", e.Run.Log)
	for _, l := range e.Tail {
		b.WriteString("  | " + l + "\n")
	}
	fmt.Fprintf(&b, "re-run it alone with:\n  %s", e.Command)
	return b.String()
}

// BinaryPath finds a stage binary: in binDir when one is set, and only
// there (a binDir that lacks it must not run another build's binary from
// beside saber or from PATH without a word); else beside the running
// executable, else on PATH.
func BinaryPath(binDir, name string) (string, error) {
	if binDir != "" {
		p := filepath.Join(binDir, name)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", stage.BadInput(fmt.Errorf("stage binary %q not found in %s, the binaries folder set by executor.bin_dir (or the command's --bin-dir): build into it (make build writes bin/), or unset it to use the binaries beside saber", name, binDir))
		}
		return p, nil
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", stage.BadInput(fmt.Errorf("stage binary %q not found in %s or on PATH; run `make build` (or set executor.bin_dir)", name, strings.Join(dirs, ", ")))
}

// RunLocal runs the stages with the registry's graph; see Graph.RunLocal.
func RunLocal(ctx context.Context, cfg *config.Config, stages []stage.Stage, opt LocalOptions) ([]ShardRun, error) {
	return graph.RunLocal(ctx, cfg, stages, opt)
}

// runLocal runs the steps of the given stages in the graph's order: each
// step's missing shards as processes of the stage binary, Parallel at a
// time, then the next step. Before anything runs it refuses (exit 2) a
// selection whose inputs are neither complete nor selected, and stale
// steps among the selected ones and those they read from, naming what
// changed; with RerunStale it invalidates the stale shards and every shard
// downstream of them instead, and runs them again. Before each step it
// looks again, so a step recomputed with other bytes makes its readers
// stale in the same run. At the first failed shard it starts no new one and
// sends SIGTERM to those running, which stop at a clean point without a
// manifest; it waits for them and returns a *ShardError for the failed one.
func (g *Graph) runLocal(ctx context.Context, cfg *config.Config, stages []stage.Stage, opt LocalOptions) ([]ShardRun, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	if opt.Parallel <= 0 {
		opt.Parallel = runtime.NumCPU()
	}
	if opt.Out == nil {
		opt.Out = io.Discard
	}
	// Shards running at once all report to Out: one write at a time.
	opt.Out = &lockedWriter{w: opt.Out}
	nodes := g.NodesOf(stages)
	p := g.NewPlanner(cfg, root)
	if err := g.Prepare(ctx, p, nodes, opt.Rerun, opt.Out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.LogDir, 0o755); err != nil {
		return nil, fmt.Errorf("log dir: %w", err)
	}
	var runs []ShardRun
	for _, i := range nodes {
		n := g.nodes[i]
		sp, err := p.Plan(ctx, i)
		if err != nil {
			return runs, err
		}
		if sp.IsStale() {
			// An upstream step ran again in this run with other bytes.
			if !opt.Rerun.Stale {
				return runs, g.staleError(cfg, opt.Rerun, []*StepPlan{sp})
			}
			if err := g.invalidate(ctx, p, []*StepPlan{sp}, opt.Rerun, opt.Out); err != nil {
				return runs, err
			}
			if sp, err = p.Plan(ctx, i); err != nil {
				return runs, err
			}
		}
		bin, err := BinaryPath(opt.BinDir, n.Stage.Name)
		if err != nil {
			return runs, err
		}
		todo := sp.Missing
		if opt.Force {
			todo = append(slices.Clone(sp.Done), sp.Missing...)
			slices.Sort(todo)
		}
		for _, d := range sp.Done {
			if !slices.Contains(todo, d) {
				runs = append(runs, ShardRun{Stage: n.Stage.Name, Step: n.Step.Name, Shard: shard.Spec{Index: d, Count: sp.Shards}, Skipped: true})
			}
		}
		fmt.Fprintf(opt.Out, "%s %s: %d of %d shards to run\n", n.Stage.Name, n.Step.Name, len(todo), sp.Shards)
		specs := make([]shard.Spec, len(todo))
		for k, d := range todo {
			specs[k] = shard.Spec{Index: d, Count: sp.Shards}
		}
		done, err := runShards(ctx, cfg.Run, bin, n.Stage, n.Step, specs, opt)
		runs = append(runs, done...)
		p.Forget(i)
		if err != nil {
			return runs, err
		}
	}
	return runs, nil
}

// Rerun says what a run or submission recomputes besides missing shards.
type Rerun struct {
	// Stale recomputes stale shards and everything downstream of them.
	Stale bool
	// Code also recomputes current shards that other code built (and
	// everything downstream of them).
	Code bool
	// Command is the operator's command line without these flags, for
	// messages ("saber run --config run.yaml").
	Command string
}

// Prepare checks a selection of nodes before anything runs or is
// submitted: inputs that no selected step writes must be complete, and
// nothing selected or read from may be stale — unless rerun.Stale, when the
// stale shards and every shard downstream of them are invalidated here.
// It prints a note for shards that other code built.
func (g *Graph) Prepare(ctx context.Context, p *Planner, nodes []int, rerun Rerun, out io.Writer) error {
	selected := map[int]bool{}
	for _, i := range nodes {
		selected[i] = true
	}
	for _, i := range nodes {
		for _, ds := range g.nodes[i].Step.Inputs {
			w, _ := g.Writer(ds)
			if selected[w] {
				continue
			}
			if _, err := p.cur.Parts(ctx, ds); err != nil {
				var inc *layout.IncompleteError
				if errors.As(err, &inc) {
					return stage.BadInput(fmt.Errorf("%s reads %s, which %s writes: %s; run %s first, or add it to --stages",
						g.nodes[i], ds, g.nodes[w], inc.Msg, g.nodes[w].Stage.Name))
				}
				return err
			}
		}
	}
	all := append(g.Ancestors(nodes), nodes...)
	slices.Sort(all)
	all = slices.Compact(all)
	var stale, codeOnly []*StepPlan
	for _, i := range all {
		sp, err := p.Plan(ctx, i)
		if err != nil {
			return err
		}
		if sp.IsStale() || rerun.Code && len(sp.Code) > 0 {
			stale = append(stale, sp)
		} else if len(sp.Code) > 0 {
			codeOnly = append(codeOnly, sp)
		}
	}
	if len(codeOnly) > 0 {
		var names []string
		var change string
		for _, sp := range codeOnly {
			names = append(names, g.nodes[sp.Node].String())
			for _, c := range sp.Code {
				change = c
			}
		}
		fmt.Fprintf(out, "note: %s were built by other code (%s); they are still served as current — %s --rerun-code rebuilds them and everything downstream\n",
			strings.Join(names, ", "), change, rerun.command())
	}
	if len(stale) == 0 {
		return nil
	}
	var outside []string
	for _, sp := range stale {
		if !selected[sp.Node] {
			outside = append(outside, g.nodes[sp.Node].Stage.Name)
		}
	}
	if !rerun.Stale || len(outside) > 0 {
		err := g.staleError(p.cfg, rerun, stale)
		if len(outside) > 0 {
			err.Fix = fmt.Sprintf("%s --rerun-stale without --stages (or with --stages including %s)", rerun.command(), strings.Join(slices.Compact(outside), ","))
		}
		return err
	}
	return g.invalidate(ctx, p, stale, rerun, out)
}

func (r Rerun) command() string {
	if r.Command == "" {
		return "saber run --config <run.yaml>"
	}
	return r.Command
}

func (g *Graph) staleError(cfg *config.Config, rerun Rerun, stale []*StepPlan) *StaleStepsError {
	var nodes []int
	for _, sp := range stale {
		nodes = append(nodes, sp.Node)
	}
	fix := rerun.command() + " --rerun-stale"
	if rerun.Code {
		fix += " --rerun-code"
	}
	return &StaleStepsError{Steps: stale, Downstream: g.names(g.Descendants(nodes)), Fix: fix}
}

// invalidate removes the manifests of the stale (and, with rerun.Code,
// other-code) shards of each plan and of every shard of every step
// downstream of them, printing what it removed.
func (g *Graph) invalidate(ctx context.Context, p *Planner, stale []*StepPlan, rerun Rerun, out io.Writer) error {
	var nodes []int
	for _, sp := range stale {
		shards := sp.StaleShards()
		if rerun.Code {
			for i := range sp.Code {
				shards = append(shards, i)
			}
			slices.Sort(shards)
		}
		if err := p.Invalidate(ctx, sp, shards); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: recomputing %s (%s)\n", g.nodes[sp.Node], shardList(shards, sp.Shards), strings.Join(sp.Reasons(), "; "))
		nodes = append(nodes, sp.Node)
	}
	for _, i := range g.Descendants(nodes) {
		sp, err := p.Plan(ctx, i)
		if err != nil {
			return err
		}
		if len(sp.Done) == 0 && len(sp.Orphans) == 0 {
			continue
		}
		if err := p.Invalidate(ctx, sp, nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: recomputing %s (downstream)\n", g.nodes[i], shardList(sp.Done, sp.Shards))
	}
	return nil
}

func runShards(ctx context.Context, run, bin string, st stage.Stage, step stage.Step, todo []shard.Spec, opt LocalOptions) ([]ShardRun, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		runs  []ShardRun
		first error
		wg    sync.WaitGroup
	)
	sem := make(chan struct{}, opt.Parallel)
	for _, spec := range todo {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := runShard(ctx, run, bin, st, step, spec, opt)
			mu.Lock()
			defer mu.Unlock()
			runs = append(runs, r)
			if err != nil && first == nil {
				first = err
				cancel() // start nothing new; running shards see the signal and stop cleanly
			}
		})
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return runs, first
}

func runShard(ctx context.Context, run, bin string, st stage.Stage, step stage.Step, spec shard.Spec, opt LocalOptions) (ShardRun, error) {
	args := []string{"--config", opt.ConfigPath}
	if step.Sharded() {
		args = append(args, "--shard", spec.String())
	} else {
		args = append(args, "--reduce")
	}
	if opt.Force {
		args = append(args, "--force")
	}
	logPath := LogFile(opt.LogDir, run, st.Name, step.Name, spec)
	r := ShardRun{Stage: st.Name, Step: step.Name, Shard: spec, Log: logPath}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return r, fmt.Errorf("open log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = localEnv()
	defer dieWithParent(cmd)()
	start := time.Now()
	fmt.Fprintf(opt.Out, "  start %s %s %s\n", st.Name, step.Name, spec)
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("start %s: %w", bin, err)
	}
	// On cancellation, ask the shard to stop the way Slurm would (SIGTERM),
	// so it leaves no partial output.
	stopped := make(chan struct{})
	parallel.Go(func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
		case <-stopped:
		}
	})
	err = cmd.Wait()
	close(stopped)
	r.Wall = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSKiB = ru.Maxrss
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if err != nil {
		se := &ShardError{Run: r, Code: -1, Command: bin + " " + strings.Join(args, " "), Tail: stage.LogTail(logPath, 15), At: time.Now().UTC()}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return r, fmt.Errorf("wait for %s: %w", se.Command, err)
		}
		se.Code = ee.ExitCode() // -1 when a signal killed it
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			se.Signal = ws.Signal()
		}
		if ctx.Err() != nil && se.Code == stage.ExitTempFail {
			return r, ctx.Err()
		}
		return r, se
	}
	fmt.Fprintf(opt.Out, "  done  %s %s %s in %s\n", st.Name, step.Name, spec, r.Wall.Round(time.Millisecond))
	return r, nil
}

// lockedWriter serialises writes to w, so that lines from concurrent
// shards neither race nor interleave (each line is one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// localEnv drops the Slurm array variables: a local run inside a Slurm
// allocation must not let the stage read its shard from them.
func localEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SLURM_ARRAY_") || strings.HasPrefix(kv, "SABER_SHARD_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
