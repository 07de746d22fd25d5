package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/slurm"
)

// slurmBinDir is where the stage binaries are for the jobs.
func slurmBinDir(cfg *config.Config) string {
	if cfg.Slurm.BinDir != "" {
		return cfg.Resolve(cfg.Slurm.BinDir)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			return filepath.Dir(real)
		}
		return filepath.Dir(exe)
	}
	return "."
}

func cmdSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("submit", `saber submit — run the pipeline on Slurm

Usage:
  saber submit --config run.yaml [--stages ingest,dedup] [--dry-run]

Renders one sbatch script per stage step into <slurm.log_dir>/sbatch/ and
submits, in pipeline order, only the shards without a completion manifest:
as job arrays (--array=3,7,12%T), split into several arrays above the
cluster's MaxArraySize, each step depending (afterok) on the jobs of this
submission that write what it reads (evaluate runs beside judge). Job ids
are recorded in <root>/<run>/_jobs.json. With --dry-run the scripts and
sbatch command lines are printed and neither Slurm nor the run's storage is
touched. Refuses while jobs of the run are still queued (see saber status),
and refuses (exit 2) stale shards as saber run does: --rerun-stale removes
their manifests and everything downstream's, and submits them again.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE` (on a filesystem the compute nodes see)")
	stages := fs.String("stages", "", "comma-separated `list` of stages (default: all)")
	dry := fs.Bool("dry-run", false, "print the scripts and sbatch commands; submit nothing, remove nothing")
	rerunStale := fs.Bool("rerun-stale", false, "resubmit stale shards and everything downstream of them (their manifests are removed first)")
	rerunCode := fs.Bool("rerun-code", false, "also resubmit shards another build of saber made (and everything downstream)")
	allow := fs.Bool("allow-queued", false, "submit even when jobs of the run are still queued or running")
	printCfg := fs.Bool("print-config", false, "print the effective config and exit")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, abs, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "submit", err)
	}
	if *printCfg {
		return printConfig(cfg, stdout, stderr)
	}
	sel, err := pipeline.Select(cfg, *stages)
	if err != nil {
		return fail(stderr, "submit", err)
	}
	for _, l := range pipeline.Off(cfg, *stages) {
		fmt.Fprintln(stdout, l)
	}
	rerun := pipeline.Rerun{Stale: *rerunStale || *rerunCode, Code: *rerunCode, Command: "saber submit --config " + *cfgPath}
	subs, err := slurm.Submit(ctx, cfg, slurm.Options{ConfigPath: abs, Stages: sel, Rerun: rerun, DryRun: *dry, AllowQueued: *allow,
		BinDir: slurmBinDir(cfg), Out: stdout})
	if err != nil {
		return fail(stderr, "submit", err)
	}
	if !*dry {
		if len(subs) == 0 {
			fmt.Fprintln(stdout, "nothing to submit: every shard is done")
		} else {
			fmt.Fprintf(stdout, "watch with: saber status --config %s\n", slurm.Quote(abs))
		}
	}
	return stage.ExitOK
}

func cmdStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("status", `saber status — where a run stands

Usage:
  saber status --config run.yaml [--json]

Per stage step: shards done/total from the completion manifests, the stale
ones (their config keys, inputs or shard count changed since they ran) with
what changed, and the Slurm states of the run's tasks (sacct when
accounting is on, squeue for queued and running ones). Failed, cancelled,
timed-out or requeued tasks of shards still missing are listed with their
log path and last lines, then the commands that recompute what is stale and
resubmit what is missing. Works without Slurm (manifests only).

When saber run worked on the run last (after any saber submit), its record
(<root>/<run>/_local.json) gives instead each missing shard whose last attempt
failed: its exit code and what it asks (2: fix the input; 75: resuming runs it
again; 1: a bug), its log and last lines; and the saber run command that
resumes the run, with --rerun-stale where stale shards would refuse it.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, abs, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "status", err)
	}
	rep, err := slurm.Status(ctx, cfg, pipeline.Default(), slurm.ExecRunner{}, abs)
	if err != nil {
		return fail(stderr, "status", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fail(stderr, "status", err)
		}
		return stage.ExitOK
	}
	rep.Print(stdout)
	return stage.ExitOK
}

func cmdCancel(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("cancel", `saber cancel — cancel a run's queued and running jobs

Usage:
  saber cancel --config run.yaml

Cancels (scancel) every job recorded in <root>/<run>/_jobs.json that squeue
still lists. Completed shards stay done; saber submit later resubmits the rest.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "cancel", err)
	}
	if _, err := slurm.Cancel(ctx, cfg, slurm.ExecRunner{}, stdout); err != nil {
		return fail(stderr, "cancel", err)
	}
	return stage.ExitOK
}
