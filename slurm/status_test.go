package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
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
	cfg.Ingest.Shards, cfg.Dedup.Shards = 2, 2
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
	stages := []stage.Stage{{Name: "ingest", Steps: []stage.Step{{Name: "map", Dataset: "problems", Shards: func(*config.Config) int { return 2 }}}},
		{Name: "dedup", Steps: []stage.Step{{Name: "map", Dataset: "signatures", Shards: func(*config.Config) int { return 2 }}, {Name: "reduce", Dataset: "corpus"}}}}
	rep, err := Status(ctx, cfg, stages, fileRunner{}, path)
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
	if !rep.Accounting || !rep.Squeue || !strings.Contains(rep.Resubmit, "saber submit --config") {
		t.Errorf("report %+v", rep)
	}
	p := rep.Steps[0].Problems[0]
	if p.Shard != 0 || p.State != "CANCELLED" || p.Reason != "DependencyNeverSatisfied" || p.Log != "/nonexistent/saber-demo-ingest_15_0.out" {
		t.Errorf("problem %+v", p)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	if !strings.Contains(buf.String(), "ingest map shard 0: CANCELLED (job 15, task 0") {
		t.Errorf("printed:\n%s", buf.String())
	}
	// Without accounting, squeue alone still answers and a note says why.
	rep, err = Status(ctx, cfg, stages, fileRunner{noSacct: true}, path)
	if err != nil || rep.Accounting || len(rep.Notes) != 1 {
		t.Fatalf("no sacct: %+v, %v", rep, err)
	}
}
