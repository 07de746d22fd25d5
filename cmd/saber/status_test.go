package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/slurm"
)

// TestStatusShowsFailedLocalRun: after a saber run whose shard failed,
// saber status, another process, shows the shard, its exit code and what
// it asks, its log and last lines, and the saber run (not saber submit)
// that resumes; once a later run gets past the shard, the failure is gone.
func TestStatusShowsFailedLocalRun(t *testing.T) {
	dir := t.TempDir()
	cfg := fakeIngest(t, dir, "echo bad row 7: no statement >&2; exit 2")
	if out, code := saber(t, "run", "--config", cfg, "--stages", "ingest"); code != 2 {
		t.Fatalf("saber run: exit %d, want the shard's 2:\n%s", code, out)
	}
	log := filepath.Join(dir, "logs", "r-ingest-map-part-00000-of-00001.log")
	out, code := saber(t, "status", "--config", cfg)
	for _, want := range []string{
		"ingest map shard 0/1 failed at its last attempt, ",
		"(exit 2: bad input: fix the config or data its log names, then resume)\n  log " + log + "\n",
		"  | bad row 7: no statement\n",
		"missing shards remain; resume the run with:\n  saber run --config '" + cfg + "'\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("status lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	if strings.Contains(out, "saber submit") || strings.Contains(out, "--rerun-stale") {
		t.Errorf("status of a local run with nothing stale suggests saber submit or --rerun-stale:\n%s", out)
	}
	out, code = saber(t, "status", "--config", cfg, "--json")
	var rep slurm.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("status --json: exit %d, %v:\n%s", code, err, out)
	}
	if rep.Executor != "local" || len(rep.Steps) == 0 || len(rep.Steps[0].Failed) != 1 {
		t.Fatalf("status --json: executor %q, steps %+v", rep.Executor, rep.Steps)
	}
	if f := rep.Steps[0].Failed[0]; f.Stage != "ingest" || f.Step != "map" || f.ExitCode != 2 || f.Log != log || !strings.Contains(f.Command, "--shard 0/1") {
		t.Errorf("status --json: failure %+v", f)
	}

	// The shard's next attempt exits 0 (this fake writes no manifest, so
	// the shard stays missing): its failure is no longer the last word.
	if err := os.WriteFile(filepath.Join(dir, "bin", "ingest"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := saber(t, "run", "--config", cfg, "--stages", "ingest"); code != 0 {
		t.Fatalf("second saber run: exit %d:\n%s", code, out)
	}
	out, code = saber(t, "status", "--config", cfg)
	if code != 0 || strings.Contains(out, "failed at its last attempt") || !strings.Contains(out, "last saber run: exit 0 (recorded ") ||
		!strings.Contains(out, "resume the run with:\n  saber run --config '"+cfg+"'\n") {
		t.Errorf("status after a run that got past the shard (exit %d):\n%s", code, out)
	}
}

// TestRunsSharingALogDirLogApart: two runs given one executor.log_dir
// write one file per shard each, named by the run, never one together.
func TestRunsSharingALogDirLogApart(t *testing.T) {
	logs := t.TempDir()
	cfgs := map[string]string{}
	for _, run := range []string{"r1", "r2"} {
		// The fake logs its arguments: --config <that run's config> ….
		cfgs[run] = fakeIngestRun(t, t.TempDir(), run, logs, `echo "$@"`)
		if out, code := saber(t, "run", "--config", cfgs[run], "--stages", "ingest"); code != 0 {
			t.Fatalf("saber run %s: exit %d:\n%s", run, code, out)
		}
	}
	for run, other := range map[string]string{"r1": "r2", "r2": "r1"} {
		for _, step := range []string{"map", "reduce"} {
			p := filepath.Join(logs, run+"-ingest-"+step+"-part-00000-of-00001.log")
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), cfgs[run]) || strings.Contains(string(b), cfgs[other]) {
				t.Errorf("%s's log %s (%v) holds:\n%s\nwant its own shard's lines only", run, p, err, b)
			}
		}
	}
	ents, err := os.ReadDir(logs)
	if err != nil || len(ents) != 4 {
		t.Errorf("log dir: %d files (%v), want 2 runs × 2 steps", len(ents), err)
	}
}
