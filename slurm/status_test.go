package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// fileRunner answers squeue and sacct with outputs recorded on Slurm 22.05
// (testdata/*-22.05.json), the version CI runs.
type fileRunner struct{ noSacct bool }

func (f fileRunner) Run(_ context.Context, name string, args ...string) (string, error) {
	switch {
	case name == "sacct" && f.noSacct:
		return "", fmt.Errorf("sacct: Slurm accounting storage is disabled")
	case name == "sacct", name == "squeue":
		b, err := os.ReadFile("testdata/" + name + "-22.05.json")
		return string(b), err
	}
	return "", fmt.Errorf("unexpected %s", name)
}

func TestStatusFromRecordedSlurmOutput(t *testing.T) {
	ctx := context.Background()
	cfg, path := writeConfig(t, "")
	root := openRoot(t, cfg)
	jobs := &Jobs{Run: "demo", Submissions: []Submission{
		{Stage: "ingest", Step: "map", JobID: "15", Name: "saber-demo-ingest", Array: "0-1%1", Missing: []int{0, 1}, LogDir: "/nonexistent"},
		{Stage: "ingest", Step: "map", JobID: "37", Name: "saber-demo-ingest", Array: "0-1", Missing: []int{1}, LogDir: "/nonexistent"},
		{Stage: "dedup", Step: "map", JobID: "28", Name: "saber-demo-dedup", Array: "0-1", Missing: []int{0, 1}},
		{Stage: "dedup", Step: "reduce", JobID: "30", Name: "saber-demo-dedup-reduce", Missing: []int{0}},
	}}
	if err := writeJobs(ctx, root, jobs); err != nil {
		t.Fatal(err)
	}
	two := func(*config.Config) int { return 2 }
	seed := func(*config.Config) []string { return []string{"seed"} }
	g, err := pipeline.NewGraph([]stage.Stage{
		{Name: "ingest", Steps: []stage.Step{{Name: "map", Outputs: []string{"problems"}, Shards: two}}},
		{Name: "dedup", Uses: seed, Steps: []stage.Step{
			{Name: "map", Inputs: []string{"problems"}, Outputs: []string{"signatures"}, Shards: two},
			{Name: "reduce", Inputs: []string{"signatures"}, Outputs: []string{"corpus"}}}},
		// Off in this config: not a step of the report, one note instead.
		{Name: "publishable", Optional: true, Off: "set x", Steps: []stage.Step{{Name: "reduce", Inputs: []string{"corpus"}, Outputs: []string{"release"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Status(ctx, cfg, g, fileRunner{}, path)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, s := range rep.Steps {
		got += fmt.Sprintf("%s/%s %d/%d %v problems=%d; ", s.Stage, s.Step, s.Done, s.Total, s.States, len(s.Problems))
	}
	// ingest shard 0: cancelled in the pending array 15 ("0-1%1" expanded);
	// shard 1: pending in array 37, resubmitted later.
	want := "ingest/map 0/2 map[CANCELLED:1 PENDING:1] problems=1; dedup/map 0/2 map[COMPLETED:2] problems=0; dedup/reduce 0/1 map[COMPLETED:1] problems=0; "
	if got != want {
		t.Errorf("status:\n got %s\nwant %s", got, want)
	}
	if !rep.Accounting || !rep.Squeue || !strings.Contains(rep.Resubmit, "saber submit --config") || fmt.Sprint(rep.Notes) != "[publishable: off (set x)]" {
		t.Errorf("report %+v", rep)
	}
	p := rep.Steps[0].Problems[0]
	if p.Shard != 0 || p.State != "CANCELLED" || p.Reason != "DependencyNeverSatisfied" || p.Log != "/nonexistent/saber-demo-ingest_15_0.out" {
		t.Errorf("problem %+v", p)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	// Nothing is done, so nothing is stale: the stale column says "-".
	for _, want := range []string{
		"stage      step     done/total  stale  slurm tasks\n",
		"ingest     map         0/2          -  CANCELLED 1, PENDING 1\n",
		"ingest map shard 0: CANCELLED (job 15, task 0",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("printed lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "STALE") || rep.Rerun != "" {
		t.Errorf("stale reported with nothing done (rerun %q):\n%s", rep.Rerun, buf.String())
	}
	// Without accounting, squeue alone still answers and a note says why.
	rep, err = Status(ctx, cfg, g, fileRunner{noSacct: true}, path)
	if err != nil || rep.Accounting || len(rep.Notes) != 2 {
		t.Fatalf("no sacct: %+v, %v", rep, err)
	}

	// dedup's reduce done under another seed: done, and stale, with what
	// changed in the stale column, a STALE line and the command that
	// recomputes it.
	old := map[string]string{"seed": "41"}
	m := &layout.Manifest{Stage: "dedup", Step: "reduce", Run: "demo", Dataset: "corpus", Shard: 0, Shards: 1,
		Config: old, ConfigHash: config.HashValues(old), CodeVersion: stage.CodeVersion()}
	if err := layout.WriteDone(ctx, root, layout.DoneKey("demo", "corpus", m.Spec()), m); err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 42
	rep, err = Status(ctx, cfg, g, fileRunner{}, path)
	if err != nil {
		t.Fatal(err)
	}
	red := rep.Steps[2]
	if red.Stage != "dedup" || red.Step != "reduce" || red.Done != 1 || fmt.Sprint(red.Stale) != "[0]" ||
		len(red.StaleWhy) != 1 || !strings.Contains(red.StaleWhy[0], "config seed: 41 → 42") || red.CodeChanged != 0 {
		t.Errorf("stale reduce: %+v", red)
	}
	for _, s := range rep.Steps[:2] {
		if len(s.Stale) != 0 || len(s.StaleWhy) != 0 {
			t.Errorf("%s %s reported stale: %+v", s.Stage, s.Step, s)
		}
	}
	if !strings.Contains(rep.Rerun, "--rerun-stale") || !strings.Contains(rep.Rerun, path) {
		t.Errorf("rerun command %q", rep.Rerun)
	}
	buf.Reset()
	rep.Print(&buf)
	for _, want := range []string{
		"dedup      reduce      1/1          1  COMPLETED 1\n",
		"\nSTALE dedup reduce: the shard: config seed: 41 → 42",
		"recompute them and everything downstream with:\n  " + rep.Rerun + "\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("printed lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestStatusOfAFailedLocalRun: after a saber run that failed, status shows
// the failed shard still missing with its exit code, what the code asks,
// its log and the log's end, and suggests the saber run that resumes (not
// saber submit), with --rerun-stale only once stale shards exist; a later
// Slurm submission makes it a Slurm run again, reported as before.
func TestStatusOfAFailedLocalRun(t *testing.T) {
	ctx := context.Background()
	cfg, path := writeConfig(t, "")
	root := openRoot(t, cfg)
	two := func(*config.Config) int { return 2 }
	seed := func(*config.Config) []string { return []string{"seed"} }
	g, err := pipeline.NewGraph([]stage.Stage{
		{Name: "ingest", Uses: seed, Steps: []stage.Step{{Name: "map", Outputs: []string{"problems"}, Shards: two}}},
		{Name: "dedup", Uses: seed, Steps: []stage.Step{
			{Name: "map", Inputs: []string{"problems"}, Outputs: []string{"signatures"}, Shards: two},
			{Name: "reduce", Inputs: []string{"signatures"}, Outputs: []string{"corpus"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := func(n pipeline.Node, ds string, spec shard.Spec, values map[string]string) {
		t.Helper()
		m := &layout.Manifest{Stage: n.Stage.Name, Step: n.Step.Name, Run: "demo", Dataset: ds, Shard: spec.Index, Shards: spec.Count,
			Config: values, ConfigHash: config.HashValues(values), CodeVersion: stage.CodeVersion()}
		if err := layout.WriteDone(ctx, root, layout.DoneKey("demo", ds, spec), m); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Seed = 42
	ingest := g.Nodes()[0]
	done(ingest, "problems", shard.Spec{Index: 0, Count: 2}, ingest.Stage.ConfigValues(cfg))

	logDir := t.TempDir()
	log := pipeline.LogFile(logDir, "demo", "ingest", "map", shard.Spec{Index: 1, Count: 2})
	if err := os.WriteFile(log, []byte("starting\nbad row 7: no statement\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	rec := &pipeline.LocalRecord{Run: "demo", Host: "node1", Finished: at, Exit: 2, Error: "ingest map shard 1/2 failed (exit 2)", LogDir: logDir,
		Failures: []pipeline.ShardFailure{
			{Stage: "ingest", Step: "map", Shard: 1, Shards: 2, ExitCode: 2, Log: log, Time: at},
			// Done since: not a failure any more.
			{Stage: "ingest", Step: "map", Shard: 0, Shards: 2, ExitCode: 75, Log: "/gone.log", Time: at},
			// Of another shard count: a shard that no longer exists.
			{Stage: "dedup", Step: "map", Shard: 3, Shards: 4, ExitCode: 1, Log: "/gone.log", Time: at},
		}}
	if err := pipeline.WriteLocalRecord(ctx, root, rec); err != nil {
		t.Fatal(err)
	}
	rep, err := Status(ctx, cfg, g, fileRunner{}, path)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, s := range rep.Steps {
		for _, f := range s.Failed {
			failed = append(failed, fmt.Sprintf("%s %s %s exit %d", s.Stage, s.Step, f.Spec(), f.ExitCode))
		}
	}
	run := "saber run --config " + Quote(path)
	if rep.Executor != "local" || rep.LogDir != logDir || fmt.Sprint(failed) != "[ingest map 1/2 exit 2]" ||
		rep.Resume != run || rep.Resubmit != "" || rep.Rerun != "" {
		t.Fatalf("report: executor %q, log dir %q, failed %v, resume %q, resubmit %q, rerun %q",
			rep.Executor, rep.LogDir, failed, rep.Resume, rep.Resubmit, rep.Rerun)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	for _, want := range []string{
		"(logs: " + logDir + ")\n",
		"last saber run: exit 2, ingest map shard 1/2 failed (exit 2) (recorded 2026-12-06T01:02:03Z on node1)\n",
		"stage      step     done/total  stale  last saber run\n",
		"ingest     map         1/2          -  failed 1\n",
		"\ningest map shard 1/2 failed at its last attempt, 2026-12-06T01:02:03Z (exit 2: " + ExitMeaning(2) + ")\n  log " + log + "\n  | starting\n  | bad row 7: no statement\n",
		"\nmissing shards remain; resume the run with:\n  " + run + "\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("printed lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "saber submit") || strings.Contains(buf.String(), "/gone.log") {
		t.Errorf("a local run's status suggests saber submit or shows a failure that no longer is one:\n%s", buf.String())
	}

	// A stale shard refuses a plain saber run: the resume command says
	// --rerun-stale, once.
	done(g.Nodes()[2], "corpus", shard.Spec{Index: 0, Count: 1}, map[string]string{"seed": "41"})
	if rep, err = Status(ctx, cfg, g, fileRunner{}, path); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	rep.Print(&buf)
	if rep.Resume != run+" --rerun-stale" || rep.Rerun != rep.Resume || strings.Count(buf.String(), rep.Resume) != 1 ||
		!strings.Contains(buf.String(), "STALE dedup reduce") || strings.Count(buf.String(), "STALE") != 1 {
		t.Errorf("with a stale shard: resume %q, rerun %q:\n%s", rep.Resume, rep.Rerun, buf.String())
	}

	// Submitted to Slurm after the local run: a Slurm run, reported as one.
	jobs := &Jobs{Run: "demo", Submissions: []Submission{{Stage: "ingest", Step: "map", JobID: "37", Name: "saber-demo-ingest",
		Array: "1", Missing: []int{1}, LogDir: "/nonexistent", Submitted: at.Add(time.Minute)}}}
	if err := writeJobs(ctx, root, jobs); err != nil {
		t.Fatal(err)
	}
	if rep, err = Status(ctx, cfg, g, fileRunner{}, path); err != nil {
		t.Fatal(err)
	}
	if rep.Executor != "slurm" || rep.Resume != "" || rep.Resubmit != "saber submit --config "+Quote(path) || len(rep.Steps[0].Failed) != 0 {
		t.Errorf("after a later submission: executor %q, resume %q, resubmit %q, failed %v", rep.Executor, rep.Resume, rep.Resubmit, rep.Steps[0].Failed)
	}

	// Neither executor has worked on it: both commands.
	for _, k := range []string{layout.LocalRunKey("demo"), JobsKey("demo")} {
		if err := root.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err = Status(ctx, cfg, g, fileRunner{}, path); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	rep.Print(&buf)
	if rep.Executor != "" || !strings.Contains(buf.String(), "run them with:\n  "+run+" --rerun-stale\nor on Slurm with:\n  saber submit --config ") {
		t.Errorf("with no record of either: executor %q\n%s", rep.Executor, buf.String())
	}
}

func TestExitMeaning(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{stage.ExitBadInput, "fix the config or data"},
		{stage.ExitTempFail, "resuming runs it again"},
		{stage.ExitBug, "until the code is fixed"},
		{3, "not an exit code of saber's (2 fix the input, 75 retry, 1 bug)"},
	}
	for _, tt := range tests {
		if got := ExitMeaning(tt.code); !strings.Contains(got, tt.want) {
			t.Errorf("ExitMeaning(%d) = %q, want it to say %q", tt.code, got, tt.want)
		}
	}
}
