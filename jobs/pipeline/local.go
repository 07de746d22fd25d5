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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
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
	// LogDir gets one log file per shard.
	LogDir string
	// Force redoes done shards.
	Force bool
	// Out receives one line per started, skipped and finished shard.
	Out io.Writer
}

// ShardRun is one shard the executor handled.
type ShardRun struct {
	Stage, Step string
	Shard       shard.Spec
	Skipped     bool
	Wall        time.Duration
	// MaxRSSKiB is the process's peak resident memory.
	MaxRSSKiB int64
	Log       string
}

// ShardError is a failed shard: its exit code, the end of its log and the
// command that re-runs it alone.
type ShardError struct {
	Run      ShardRun
	ExitCode int
	Command  string
	Tail     []string
}

func (e *ShardError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s shard %s failed (exit %d); last lines of %s:\n", e.Run.Stage, e.Run.Step, e.Run.Shard, e.ExitCode, e.Run.Log)
	for _, l := range e.Tail {
		b.WriteString("  | " + l + "\n")
	}
	fmt.Fprintf(&b, "re-run it alone with:\n  %s", e.Command)
	return b.String()
}

// BinaryPath finds a stage binary: in binDir, else beside the running
// executable, else on PATH.
func BinaryPath(binDir, name string) (string, error) {
	var dirs []string
	if binDir != "" {
		dirs = append(dirs, binDir)
	}
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

// RunLocal runs the stages in order: each step's missing shards as
// processes of the stage binary, Parallel at a time, then the next step. It
// stops at the first failed shard, lets running ones finish, and returns a
// *ShardError.
func RunLocal(ctx context.Context, cfg *config.Config, stages []stage.Stage, opt LocalOptions) ([]ShardRun, error) {
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
	if err := os.MkdirAll(opt.LogDir, 0o755); err != nil {
		return nil, fmt.Errorf("log dir: %w", err)
	}
	var runs []ShardRun
	for _, st := range stages {
		bin, err := BinaryPath(opt.BinDir, st.Name)
		if err != nil {
			return runs, err
		}
		for _, step := range st.Steps {
			n := step.Count(cfg)
			var todo []shard.Spec
			for i := 0; i < n; i++ {
				spec := shard.Spec{Index: i, Count: n}
				done, err := layout.Done(ctx, root, layout.DoneKey(cfg.Run, step.Dataset, spec))
				if err != nil {
					return runs, err
				}
				if done && !opt.Force {
					runs = append(runs, ShardRun{Stage: st.Name, Step: step.Name, Shard: spec, Skipped: true})
					continue
				}
				todo = append(todo, spec)
			}
			fmt.Fprintf(opt.Out, "%s %s: %d of %d shards to run\n", st.Name, step.Name, len(todo), n)
			done, err := runShards(ctx, bin, st, step, todo, opt)
			runs = append(runs, done...)
			if err != nil {
				return runs, err
			}
		}
	}
	return runs, nil
}

func runShards(ctx context.Context, bin string, st stage.Stage, step stage.Step, todo []shard.Spec, opt LocalOptions) ([]ShardRun, error) {
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
		go func(spec shard.Spec) {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := runShard(ctx, bin, st, step, spec, opt)
			mu.Lock()
			defer mu.Unlock()
			runs = append(runs, r)
			if err != nil && first == nil {
				first = err
				cancel() // start nothing new; running shards see the signal and stop cleanly
			}
		}(spec)
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return runs, first
}

func runShard(ctx context.Context, bin string, st stage.Stage, step stage.Step, spec shard.Spec, opt LocalOptions) (ShardRun, error) {
	args := []string{"--config", opt.ConfigPath}
	if step.Sharded() {
		args = append(args, "--shard", spec.String())
	} else {
		args = append(args, "--reduce")
	}
	if opt.Force {
		args = append(args, "--force")
	}
	logPath := filepath.Join(opt.LogDir, fmt.Sprintf("%s-%s-%s.log", st.Name, step.Name, layout.PartName(spec, "")))
	r := ShardRun{Stage: st.Name, Step: step.Name, Shard: spec, Log: logPath}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return r, fmt.Errorf("open log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = localEnv()
	start := time.Now()
	fmt.Fprintf(opt.Out, "  start %s %s %s\n", st.Name, step.Name, spec)
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("start %s: %w", bin, err)
	}
	// On cancellation, ask the shard to stop the way Slurm would (SIGTERM),
	// so it leaves no partial output.
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
		case <-stopped:
		}
	}()
	err = cmd.Wait()
	close(stopped)
	r.Wall = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSKiB = ru.Maxrss
	}
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if ctx.Err() != nil && code == stage.ExitTempFail {
			return r, ctx.Err()
		}
		return r, &ShardError{Run: r, ExitCode: code, Command: bin + " " + strings.Join(args, " "), Tail: stage.LogTail(logPath, 15)}
	}
	fmt.Fprintf(opt.Out, "  done  %s %s %s in %s\n", st.Name, step.Name, spec, r.Wall.Round(time.Millisecond))
	return r, nil
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
