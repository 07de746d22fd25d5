package stage

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// Binary is a stage binary: its stage, with what it needs of the rest of
// the pipeline — every section of the run config, so that a whole config
// is checked, and a check that the step's inputs are current.
type Binary struct {
	Stage Stage
	// Sections are every registered stage's config sections.
	Sections []config.Def
	// CheckInputs, when set, refuses to run a step on stale inputs.
	CheckInputs func(ctx context.Context, cfg *config.Config, root store.Store, step Step) error
	// Redo, when set, is the command that redoes shard spec of the step
	// writing dataset under the config at cfgPath: a damaged manifest's
	// message names it (only the pipeline knows which stage that is).
	Redo func(cfgPath, dataset string, spec shard.Spec) string
}

// Main is the entire main function of a stage binary.
func Main(b Binary) {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	os.Exit(Command(ctx, b, os.Args[1:], os.Stdout, os.Stderr))
}

// SignalContext is cancelled by SIGUSR1 (Slurm's warning before a time
// limit or preemption), SIGTERM and SIGINT. Steps check the context between
// units of work, leave nothing partial, and the binary exits 75.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
}

// Command runs a stage binary's command line and returns its exit code.
func Command(ctx context.Context, b Binary, args []string, stdout, stderr io.Writer) int {
	st := b.Stage
	fs := flag.NewFlagSet(st.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("config", os.Getenv("SABER_CONFIG"), "run config `FILE` (YAML); default $SABER_CONFIG")
	shardFlag := fs.String("shard", "", "run only shard `i/n`; default: $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT, else every shard in turn")
	reduce := fs.Bool("reduce", false, "run only the stage's reduce step (needs every shard done)")
	force := fs.Bool("force", false, "redo shards that are already done")
	printCfg := fs.Bool("print-config", false, "print the effective config (defaults filled in) and exit")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process to `FILE` (go tool pprof FILE), to see where a shard's time goes on real data")
	var apply func(*config.Config)
	if st.Flags != nil {
		apply = st.Flags(fs)
	}
	// The sections the config is loaded with (and --help's defaults).
	sections := b.Sections
	if len(sections) == 0 && st.Section != nil {
		sections = []config.Def{st.Section}
	}
	fs.Usage = func() { usage(fs, st, sections, stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitBadInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (see --help)\n", st.Name, fs.Arg(0))
		return ExitBadInput
	}
	if *cfgPath == "" {
		fmt.Fprintf(stderr, "%s: --config FILE is required (see --help)\n", st.Name)
		return ExitBadInput
	}
	cfg, err := config.Load(*cfgPath, sections...)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", st.Name, err)
		return ExitBadInput
	}
	if apply != nil {
		apply(cfg)
	}
	if *printCfg {
		y, err := cfg.YAML()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", st.Name, err)
			return ExitBug
		}
		stdout.Write(y)
		return ExitOK
	}
	log := NewLogger(cfg, st.Name, stderr)
	if *cpuProfile != "" {
		stop, code := startProfile(*cpuProfile, st.Name, stderr)
		if code != ExitOK {
			return code
		}
		defer stop()
	}
	// Storage calls before a shard starts (opening the root) log their
	// retries with the stage's fields too.
	err = runGuarded(log.WithContext(ctx), cfg, b, log, *shardFlag, *reduce, *force)
	if err != nil {
		var dm *layout.DamagedError
		if b.Redo != nil && errors.As(err, &dm) && dm.Redo == "" {
			dm.Redo = b.Redo(*cfgPath, dm.Dataset, dm.Spec)
		}
		code := ExitCode(err)
		log.Error().Err(err).Int("exit", code).Msg("stage failed")
		fmt.Fprintf(stderr, "%s: %v\n", st.Name, err)
		return code
	}
	return ExitOK
}

// startProfile starts --cpuprofile's CPU profile into path; stop ends it.
// A file that cannot be made is bad input, a profile that cannot start a
// bug.
func startProfile(path, name string, stderr io.Writer) (stop func(), code int) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", name, err)
		return nil, ExitBadInput
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", name, err)
		return nil, ExitBug
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", name, err)
		}
	}, ExitOK
}

// runGuarded is runStage with a panic anywhere in this goroutine — a
// step's is caught closer, in runStep; this catches the rest, such as the
// staleness check or writing a manifest — turned into a *BugError (exit 1)
// with the stack in the log, not Go's crash, whose exit code 2 would read
// as bad input.
func runGuarded(ctx context.Context, cfg *config.Config, b Binary, log zerolog.Logger, shardFlag string, reduce, force bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			bug := recovered(r, "stage "+b.Stage.Name, debug.Stack())
			log.Error().Str("stack", string(bug.Stack)).Msg("panic")
			err = bug
		}
	}()
	return runStage(ctx, cfg, b, log, shardFlag, reduce, force)
}

func runStage(ctx context.Context, cfg *config.Config, b Binary, log zerolog.Logger, shardFlag string, reduce, force bool) error {
	st := b.Stage
	if len(st.Steps) == 0 {
		return ErrNoSteps
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return BadInput(err)
	}
	options := func(step Step) Options {
		opt := Options{Force: force}
		if b.CheckInputs != nil {
			opt.CheckInputs = func(ctx context.Context) error { return b.CheckInputs(ctx, cfg, root, step) }
		}
		return opt
	}
	if reduce {
		if shardFlag != "" {
			return BadInput(fmt.Errorf("--reduce and --shard %s: the reduce is one task; give one of them", shardFlag))
		}
		step, ok := st.Step("reduce")
		if !ok {
			return BadInput(fmt.Errorf("stage %s has no reduce step", st.Name))
		}
		_, err := RunShard(ctx, cfg, st, step, shard.Spec{Index: 0, Count: 1}, root, log, options(step))
		return err
	}
	first := st.Steps[0]
	spec, ok, err := shard.FromEnv(os.Getenv)
	if shardFlag != "" {
		spec, err = shard.Parse(shardFlag)
		ok = true
	}
	if err != nil {
		return BadInput(err)
	}
	if ok {
		// A part of another count is written beside the config's parts;
		// the next stage then finds two counts of one dataset and refuses,
		// and a one-task step's stray part marks everything downstream
		// stale. Refuse before writing anything.
		if want := first.Count(cfg); spec.Count != want {
			from := "--shard " + spec.String()
			if shardFlag == "" {
				from = "the Slurm array (" + spec.String() + ": SLURM_ARRAY_TASK_COUNT, or SABER_SHARD_COUNT)"
			}
			if want == 1 {
				return BadInput(fmt.Errorf("%s: stage %s's %s step is one task (0/1); run it without --shard, or as an array of one", from, st.Name, first.Name))
			}
			return BadInput(fmt.Errorf("%s: the config gives stage %s %d shards, and every shard of a run must use that count (the next stage reads one count of each dataset): use --shard i/%d, or change the stage's shards: setting and rerun every shard (saber run or saber submit plan them from it)", from, st.Name, want, want))
		}
		_, err := RunShard(ctx, cfg, st, first, spec, root, log, options(first))
		return err
	}
	// No shard given: run the whole stage here, shard by shard, then its reduce.
	for _, step := range st.Steps {
		n := step.Count(cfg)
		for i := 0; i < n; i++ {
			if _, err := RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: n}, root, log, options(step)); err != nil {
				return err
			}
		}
	}
	return nil
}

func usage(fs *flag.FlagSet, st Stage, sections []config.Def, w io.Writer) {
	fmt.Fprintf(w, `%s — %s

Usage:
  %[1]s --config run.yaml [--shard i/n | --reduce] [--force]

Runs one shard of the stage when --shard is given or when started as a Slurm
array task (SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT / SLURM_ARRAY_TASK_MIN);
otherwise runs every shard in turn, then the reduce step if the stage has one.
A shard whose completion manifests exist is skipped: only manifests are read,
nothing is written. A done shard that is stale (its config keys, inputs or
format changed since it ran) is refused with exit 2 and what changed;
--force redoes it. Inputs are hashed as they are read: a part whose bytes
differ from its writer's manifest is refused.

Exit codes: 0 done or skipped, 2 bad input (fix it, then rerun),
75 interrupted or transient (rerun resumes), 1 a bug.

Steps:
`, st.Name, st.Summary)
	for _, s := range st.Steps {
		kind := "one task"
		if s.Sharded() {
			kind = "sharded"
		}
		reads := "nothing of the run"
		if len(s.Inputs) > 0 {
			reads = strings.Join(s.Inputs, ", ")
		}
		fmt.Fprintf(w, "  %-7s %-8s reads %s; writes %s\n", s.Name, kind, reads, strings.Join(s.Outputs, ", "))
	}
	// The keys that decide the stage's bytes at the default config; other
	// settings add keys (tag's backend: llm adds the model's), and a stale
	// refusal names every key that changed whatever they are.
	var keys []string
	if st.Section != nil {
		keys = append(keys, "the "+st.Section.SectionName()+": section")
	}
	if st.Uses != nil {
		for _, u := range usesAtDefaults(st, sections) {
			if st.Section == nil || u != st.Section.SectionName() {
				keys = append(keys, u)
			}
		}
	}
	if len(keys) > 0 {
		fmt.Fprintf(w, "\nConfig that decides its bytes, at the defaults: %s. Other settings can add keys;\n"+
			"a stale refusal names each key that changed. Print the effective config with --print-config.\n", strings.Join(keys, ", "))
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.PrintDefaults()
}

// usesAtDefaults is st.Uses at the default config of defs, or nothing when
// Uses reads a section defs lack (a binary built without every section):
// --help must print, whatever the stage's keys.
func usesAtDefaults(st Stage, defs []config.Def) (keys []string) {
	defer func() {
		if recover() != nil {
			keys = nil
		}
	}()
	return st.Uses(config.Default(defs...))
}
