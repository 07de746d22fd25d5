package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/demo"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

// newFlags makes a flag set whose --help prints a usage header first.
func newFlags(name, header string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("saber "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, header)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; ok is false when the command should return code.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return stage.ExitOK, false
		}
		return stage.ExitBadInput, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return stage.ExitBadInput, false
	}
	return 0, true
}

func loadConfig(path string) (*config.Config, string, error) {
	if path == "" {
		return nil, "", stage.BadInput(fmt.Errorf("--config FILE is required"))
	}
	cfg, err := pipeline.LoadConfig(path)
	if err != nil {
		return nil, "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	configPath = abs
	return cfg, abs, nil
}

// configPath is the config the command loaded, for the commands its
// errors suggest (a damaged manifest's redo); "" before one is loaded.
var configPath string

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", `saber run — run stages locally

Usage:
  saber run --config run.yaml [--stages ingest,dedup] [--parallel N]
            [--rerun-stale] [--rerun-code] [--force] [--dry-run]

Runs each step's missing shards as processes of the stage binary (found in
executor.bin_dir, beside saber, or on PATH), N at a time, in the order the
steps' inputs and outputs imply. Done shards are skipped without being
started, so a second run reads only manifests and writes nothing.

A done shard is stale when the config keys its stage reads, its inputs or
its shard count changed since it ran. saber run refuses (exit 2) to run past
stale shards, naming them and what changed; --rerun-stale recomputes them and
everything downstream of them (and nothing upstream). Shards another build of
saber made are reported but still served; --rerun-code rebuilds them too.

Each shard logs to <log_dir>/<run>-<stage>-<step>-part-<i>-of-<n>.log
(executor.log_dir, default logs/<run> beside the config; the run's name in the
file's keeps runs sharing a log_dir apart). On the first failed shard, saber
starts no new shard and sends SIGTERM to the running ones, which stop at a
clean point without a manifest (shards already done stay done; the judge keeps
its last round's checkpoint); it then prints the failed shard's last log lines
and the command that re-runs it alone, and exits with that shard's code. It
records how the run ended in <root>/<run>/_local.json, so that saber status
shows the failed shard, its exit code and log later. A rerun resumes with the
shards still missing. On a terminal a progress
line below the shards' lines counts the shards done and the ETA. At the end
a summary from the manifests says what the run produced, with warnings for
what must not be missed (a selection shortfall, domains with few queries,
offline backends, invalid judgments).

One saber run at a time works on a run: it holds the run's lease
(<root>/<run>/_lease.json) until it ends. Another started meanwhile exits 75
naming the holder, or waits for it with --wait; see saber lease.

--dry-run lists, per step, the shards missing, stale (with why), to be
recomputed downstream of stale ones, and done, and the shards a run with
the same flags would start; it reads manifests only and starts, writes and
removes nothing (no binary or lease is needed). It exits 2 where the run
would refuse.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	stages := fs.String("stages", "", "comma-separated `list` of stages (default: the main line, in order: "+joinNames()+")")
	rerunStale := fs.Bool("rerun-stale", false, "recompute stale shards and everything downstream of them")
	rerunCode := fs.Bool("rerun-code", false, "also recompute shards another build of saber made (and everything downstream)")
	parallel := fs.Int("parallel", 0, "shard processes at once (default executor.parallel, else one per core)")
	force := fs.Bool("force", false, "redo shards that are already done")
	printCfg := fs.Bool("print-config", false, "print the effective config and exit")
	dry := fs.Bool("dry-run", false, "list the shards each step would run (missing, stale, done); run nothing")
	wait := fs.Bool("wait", false, "when another saber run holds the run's lease, wait for it instead of exiting 75")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	// --stages '' would read as no --stages (the whole main line), and a
	// negative --parallel as the default: say so instead of running.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["stages"] && strings.TrimSpace(*stages) == "" {
		return fail(stderr, "run", stage.BadInput(fmt.Errorf("--stages is empty: name the stages (--stages ingest,dedup), or leave the flag out for the main line")))
	}
	if *parallel < 0 {
		return fail(stderr, "run", stage.BadInput(fmt.Errorf("--parallel %d: want ≥ 1 shard processes at once (0 or no flag: executor.parallel, else one per core)", *parallel)))
	}
	cfg, abs, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "run", err)
	}
	if *printCfg {
		return printConfig(cfg, stdout, stderr)
	}
	stopModel, err := demo.ServeModel(cfg, stderr)
	if err != nil {
		return fail(stderr, "run", err)
	}
	defer stopModel()
	sel, err := pipeline.Select(cfg, *stages)
	if err != nil {
		return fail(stderr, "run", err)
	}
	for _, l := range pipeline.Off(cfg, *stages) {
		fmt.Fprintln(stdout, l)
	}
	rerun := pipeline.Rerun{Stale: *rerunStale || *rerunCode, Code: *rerunCode, Command: "saber run --config " + *cfgPath}
	if *dry {
		res, err := pipeline.DryRun(ctx, cfg, sel, rerun, *force)
		if err != nil {
			return fail(stderr, "run --dry-run", err)
		}
		res.Print(stdout)
		if res.Refusal != nil {
			return stage.ExitCode(res.Refusal)
		}
		return stage.ExitOK
	}
	opt := localOptions(cfg, abs, *parallel, *force, stdout)
	opt.Rerun = rerun
	opt.Lease = pipeline.LeaseOptions{Wait: *wait, Command: "saber run --config " + abs}
	total := 0
	if plan, err := pipeline.DryRun(ctx, cfg, sel, rerun, *force); err == nil {
		for _, d := range plan.Steps {
			total += len(d.Run)
		}
	}
	var clear func()
	opt.Out, clear = withProgress(stdout, total)
	start := time.Now()
	runs, err := pipeline.RunLocal(ctx, cfg, sel, opt)
	clear()
	if err != nil {
		// What finished before the failure, the audit's flags among them:
		// the failure is often the release refusing what the summary
		// shows (a flagged leak). Not when this run never started: another
		// holds the lease, and its run is what the summary would show.
		var held *pipeline.LeaseHeldError
		if sum, serr := pipeline.Summarize(ctx, cfg); serr == nil && len(sum.Lines) > 1 && !errors.As(err, &held) {
			sum.Print(stdout)
		}
		return fail(stderr, "run", err)
	}
	ran, skipped := 0, 0
	for _, r := range runs {
		if r.Skipped {
			skipped++
		} else {
			ran++
		}
	}
	fmt.Fprintf(stdout, "done in %s: %d shards ran, %d already done; data under %s/%s, logs in %s\n",
		time.Since(start).Round(time.Millisecond), ran, skipped, cfg.RootURI(), cfg.Run, opt.LogDir)
	if sum, err := pipeline.Summarize(ctx, cfg); err != nil {
		fmt.Fprintf(stderr, "saber run: the run finished, but its summary could not be read: %v\n", err)
	} else {
		sum.Print(stdout)
	}
	return stage.ExitOK
}

// printConfig prints the effective config for --print-config.
func printConfig(cfg *config.Config, stdout, stderr io.Writer) int {
	y, err := cfg.YAML()
	if err != nil {
		return fail(stderr, "print-config", err)
	}
	stdout.Write(y)
	return stage.ExitOK
}

func localOptions(cfg *config.Config, cfgAbs string, parallel int, force bool, out io.Writer) pipeline.LocalOptions {
	if parallel == 0 {
		parallel = cfg.Executor.Parallel
	}
	logDir := cfg.Resolve(cfg.Executor.LogDir)
	if logDir == "" {
		logDir = filepath.Join(cfg.Dir(), "logs", cfg.Run)
	}
	return pipeline.LocalOptions{
		ConfigPath: cfgAbs, Parallel: parallel, BinDir: cfg.Resolve(cfg.Executor.BinDir),
		LogDir: logDir, Force: force, Out: out,
	}
}

func joinNames() string {
	s := ""
	for i, n := range pipeline.Names() {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// storageFlag adds --config for commands that read or write paths outside
// a run: its storage: section (S3 endpoint, region, path style) opens
// s3:// paths, so they reach the same server as the run's stages. The
// returned function gives the options (zero values: the environment's
// AWS_ENDPOINT_URL_S3, AWS_REGION).
func storageFlag(fs *flag.FlagSet) func() (store.Options, error) {
	path := fs.String("config", "", "run config `FILE` whose storage: section opens s3:// paths (default: the environment, AWS_ENDPOINT_URL_S3 and AWS_REGION)")
	return func() (store.Options, error) {
		if *path == "" {
			return store.Options{}, nil
		}
		cfg, _, err := loadConfig(*path)
		if err != nil {
			return store.Options{}, err
		}
		return cfg.Storage, nil
	}
}
