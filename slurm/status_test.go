package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
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
