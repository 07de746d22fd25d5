package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
	"github.com/saber-math/saber/slurm"
)

// needSlurm skips without a reachable Slurm controller, except under
// CI=true, where a missing Slurm fails the test.
func needSlurm(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("sbatch")
	if err == nil {
		err = exec.Command("sinfo", "-h").Run()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no Slurm (%v): start it with .ci/slurm-start.sh", err)
		}
		t.Skipf("no Slurm here (%v): bash .ci/slurm-start.sh && . /tmp/saber-ci/slurm/env.sh", err)
	}
}

// testRoot is an S3 root when an S3 server is configured (always under CI),
// else a local directory.
func testRoot(t *testing.T, dir string) string {
	if os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("CI") == "true" {
		return storetest.S3URI(t, store.Options{})
	}
	return filepath.Join(dir, "data")
}

// pipelineConfig writes synthetic inputs and a config with the given root.
func pipelineConfig(t *testing.T, dir, root string, n, ingestShards int, slurmYAML string) string {
	t.Helper()
	input := filepath.Join(dir, "synth.jsonl")
	if _, err := os.Stat(input); err != nil {
		if out, code := saber(t, "synth", "--n", fmt.Sprint(n), "--seed", "5", "--out", input); code != 0 {
			t.Fatalf("synth: %s", out)
		}
	}
	y := fmt.Sprintf(`run: slurmtest
root: %s
log: {progress_seconds: 2}
ingest:
  shards: %d
  sources:
    - name: synth
      paths: [synth.jsonl]
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
dedup:
  shards: 2
benchmark: {k: 2}
calibrate: {min_eligible: 4}
select: {per_domain: 4, allow_shortfall: true}
%s`, root, ingestShards, slurmYAML)
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// hashes maps every output key of the run to its SHA-256.
func hashes(t *testing.T, root string) map[string]string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, ds := range []string{"problems", "signatures", "corpus"} {
		ms, err := layout.Complete(ctx, st, "slurmtest", ds)
		if err != nil {
			t.Fatal(err)
		}
		for _, man := range ms {
			for _, o := range man.Outputs {
				m[o.Key] = o.SHA256
			}
		}
	}
	return m
}

// waitIdle polls until no job of the run is queued or running.
func waitIdle(t *testing.T, cfg string, limit time.Duration) *slurm.Report {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		out, code := saber(t, "status", "--config", cfg, "--json")
		if code != 0 {
			t.Fatalf("status: %s", out)
		}
		var rep slurm.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		active := 0
		for _, s := range rep.Steps {
			active += s.States["PENDING"] + s.States["RUNNING"] + s.States["CONFIGURING"] + s.States["COMPLETING"] +
				s.States["REQUEUED"] + s.States["SUSPENDED"]
			if s.Done < s.Total {
				active += s.States["UNKNOWN"] // not yet visible to squeue
			}
		}
		if active == 0 {
			return &rep
		}
		if time.Now().After(deadline) {
			human, _ := saber(t, "status", "--config", cfg)
			t.Fatalf("run still active after %s:\n%s", limit, human)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func localReference(t *testing.T, n, shards int, extra ...string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	cfg := pipelineConfig(t, dir, filepath.Join(dir, "data"), n, shards, "")
	if out, code := saber(t, append([]string{"run", "--config", cfg}, extra...)...); code != 0 {
		t.Fatalf("local run: %s", out)
	}
	return hashes(t, filepath.Join(dir, "data"))
}

func submit(t *testing.T, cfg string, extra ...string) string {
	t.Helper()
	out, code := saber(t, append([]string{"submit", "--config", cfg}, extra...)...)
	if code != 0 {
		t.Fatalf("submit exit %d:\n%s", code, out)
	}
	return out
}

// TestSlurmSubmitMatchesLocalRun: the pipeline submitted to a real Slurm,
// with its root on the S3 server and ingest split over two arrays, gives
// the bytes of a local `saber run`.
func TestSlurmSubmitMatchesLocalRun(t *testing.T) {
	needSlurm(t)
	want := localReference(t, 3000, 3)
	dir := t.TempDir()
	root := testRoot(t, dir)
	// max_array_size 2 splits ingest's 3 shards over two arrays (offsets 0 and 2).
	cfg := pipelineConfig(t, dir, root, 3000, 3, "slurm:\n  max_array_size: 2\n  defaults: {time: \"10\"}\n")
	out := submit(t, cfg)
	if strings.Count(out, "submitted ingest map") != 2 || !strings.Contains(out, "submitted dedup reduce") {
		t.Fatalf("submit output:\n%s", out)
	}
	rep := waitIdle(t, cfg, 8*time.Minute)
	for _, s := range rep.Steps {
		if s.Done != s.Total {
			human, _ := saber(t, "status", "--config", cfg)
			t.Fatalf("%s %s: %d/%d done\n%s", s.Stage, s.Step, s.Done, s.Total, human)
		}
	}
	if got := hashes(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Slurm run differs from the local run:\n got %v\nwant %v", got, want)
	}
	// Everything is done: a second submit submits nothing.
	if out := submit(t, cfg); !strings.Contains(out, "nothing to submit") {
		t.Errorf("second submit:\n%s", out)
	}
}

// TestSlurmCancelOneTaskThenResubmit cancels one array task of ingest while
// the run is in flight; a second submit sends only that shard, and the run
// completes with the bytes of a local run.
func TestSlurmCancelOneTaskThenResubmit(t *testing.T) {
	needSlurm(t)
	want := localReference(t, 3000, 4)
	dir := t.TempDir()
	root := filepath.Join(dir, "data")
	// Throttle 1: tasks run one after another, so task 3 is still queued when cancelled.
	cfg := pipelineConfig(t, dir, root, 3000, 4, "slurm:\n  defaults: {time: \"10\", throttle: 1}\n")
	submit(t, cfg)
	st, _ := store.Open(context.Background(), root, store.Options{})
	jobs, err := slurm.ReadJobs(context.Background(), st, "slurmtest")
	// One submission per step of the main line (no step splits into several
	// arrays here; this config names no release date, so no release).
	loaded, lerr := pipeline.LoadConfig(cfg)
	if lerr != nil {
		t.Fatal(lerr)
	}
	sel, _ := pipeline.Select(loaded, "")
	steps := 0
	for _, s := range sel {
		steps += len(s.Steps)
	}
	if err != nil || len(jobs.Submissions) != steps {
		t.Fatalf("jobs: %+v %v", jobs, err)
	}
	task := jobs.Submissions[0].JobID + "_3"
	if out, err := exec.Command("scancel", task).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v %s", task, err, out)
	}
	rep := waitIdle(t, cfg, 8*time.Minute)
	if rep.Steps[0].Done != 3 || len(rep.Steps[0].Missing) != 1 || rep.Steps[0].Missing[0] != 3 {
		t.Fatalf("after cancel: %+v", rep.Steps[0])
	}
	if len(rep.Steps[0].Problems) != 1 || rep.Steps[0].Problems[0].State != "CANCELLED" || rep.Resubmit == "" {
		t.Errorf("status does not show the cancelled task: %+v", rep.Steps[0])
	}
	out := submit(t, cfg)
	if !strings.Contains(out, "submitted ingest map") || !strings.Contains(out, "1 shard(s) (--array=3%1)") {
		t.Fatalf("resubmit did not send only shard 3:\n%s", out)
	}
	waitIdle(t, cfg, 8*time.Minute)
	if got := hashes(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after resubmit the run differs from the local run:\n got %v\nwant %v", got, want)
	}
}

// TestSlurmPreemptionRequeues sends USR1 to the batch shell of a running
// task, as Slurm does before a time limit: the stage stops cleanly (exit
// 75), the script requeues the task, and the run completes with the bytes
// of a local run.
func TestSlurmPreemptionRequeues(t *testing.T) {
	needSlurm(t)
	// Large enough that an ingest shard runs for seconds: at 60,000 the
	// faster ingest finished a shard in 0.4 s, before the signal reached
	// it, and the task exited 0 instead of being requeued.
	const n = 240000
	want := localReference(t, n, 2, "--stages", "ingest,dedup")
	dir := t.TempDir()
	root := filepath.Join(dir, "data")
	cfg := pipelineConfig(t, dir, root, n, 2, "slurm:\n  defaults: {time: \"10\"}\n")
	submit(t, cfg, "--stages", "ingest,dedup")
	st, _ := store.Open(context.Background(), root, store.Options{})
	jobs, _ := slurm.ReadJobs(context.Background(), st, "slurmtest")
	arrayID := jobs.Submissions[0].JobID
	task := arrayID + "_0"
	// Wait for the task's stage to be running (its log says so), then signal.
	logFile := filepath.Join(dir, "logs", "slurmtest", "saber-slurmtest-ingest_"+arrayID+"_0.out")
	deadline := time.Now().Add(5 * time.Minute)
	for {
		b, _ := os.ReadFile(logFile)
		if strings.Contains(string(b), "shard started") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s never started; log:\n%s", task, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out, err := exec.Command("scancel", "--batch", "--signal=USR1", task).CombinedOutput(); err != nil {
		t.Fatalf("signal: %v %s", err, out)
	}
	// A requeued task waits ~120 s (BeginTime) unless told to start now.
	requeued := false
	deadline = time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(logFile)
		if strings.Contains(string(b), "requeueing") {
			requeued = true
			time.Sleep(1500 * time.Millisecond)
			exec.Command("scontrol", "update", "JobId="+task, "StartTime=now").Run()
			break
		}
		if strings.Contains(string(b), "stage exited 0") {
			break // finished before the signal arrived
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !requeued {
		b, _ := os.ReadFile(logFile)
		t.Fatalf("task was not requeued; log:\n%s", b)
	}
	waitIdle(t, cfg, 8*time.Minute)
	b, _ := os.ReadFile(logFile)
	if !strings.Contains(string(b), "SLURM_RESTART_COUNT=1") || !strings.Contains(string(b), "stage exited 75 after USR1") {
		t.Errorf("log does not show a clean stop and a restart:\n%s", b)
	}
	if got := hashes(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after requeue the run differs from the local run:\n got %v\nwant %v", got, want)
	}
}

// TestSlurmRunbookCommands runs docs/admin.md#slurm's commands as written: change
// a running array's throttle, list by job name, `saber cancel`, re-run one
// shard by hand with `sbatch --array=7 <script>`, then `saber submit` for
// the rest.
func TestSlurmRunbookCommands(t *testing.T) {
	needSlurm(t)
	want := localReference(t, 2000, 8)
	dir := t.TempDir()
	root := filepath.Join(dir, "data")
	cfg := pipelineConfig(t, dir, root, 2000, 8, "slurm:\n  defaults: {time: \"10\", throttle: 1}\n")
	submit(t, cfg)
	st, _ := store.Open(context.Background(), root, store.Options{})
	jobs, _ := slurm.ReadJobs(context.Background(), st, "slurmtest")
	array := jobs.Submissions[0].JobID
	run := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	// scontrol exits 1 when a task has finished already (with throttle 1,
	// task 0 may have): the command applies to the rest, which is what the
	// docs/admin.md#watching says to expect.
	scontrol := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("scontrol", args...).CombinedOutput(); err != nil {
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if !strings.HasSuffix(line, "Job has already finished") && !strings.HasSuffix(line, "No error") {
					t.Fatalf("scontrol %v: %v\n%s", args, err, out)
				}
			}
		}
	}
	// Not a runbook command: the array's pending tasks are held, so that
	// the commands below find it queued however fast ingest's shards are
	// (with throttle 1 only task 0 can start first; once ingest got
	// faster the whole array could finish before saber cancel ran).
	scontrol("hold", array)
	scontrol("update", "jobid="+array, "arraytaskthrottle=2")
	if out := run("squeue", "--name=saber-slurmtest-ingest", "-h", "-o", "%F"); !strings.Contains(out, array) {
		t.Errorf("squeue --name does not list %s:\n%s", array, out)
	}
	if out, code := saber(t, "cancel", "--config", cfg); code != 0 || !strings.Contains(out, "cancelled "+array) {
		t.Fatalf("saber cancel: exit %d\n%s", code, out)
	}
	rep := waitIdle(t, cfg, 5*time.Minute)
	if rep.Steps[0].Done == 8 {
		t.Skip("every ingest shard finished before the cancel; nothing left to test")
	}
	if out, code := saber(t, "cancel", "--config", cfg); code != 0 || !strings.Contains(out, "no job of run slurmtest is queued") {
		t.Errorf("second cancel: %s", out)
	}
	// Shard 7 by hand, from the rendered script.
	script := filepath.Join(dir, "logs", "slurmtest", "sbatch", "ingest-map.sbatch")
	id := strings.TrimSpace(strings.Split(run("sbatch", "--parsable", "--array=7", script), ";")[0])
	// The shard is done once every dataset ingest writes has its marker
	// (ingest_rows and ingest_spans): submitting before then would send it again.
	ingest, err := pipeline.Lookup("ingest")
	if err != nil {
		t.Fatal(err)
	}
	doneKeys := stage.DoneKeys("slurmtest", ingest.Steps[0], shard.Spec{Index: 7, Count: 8})
	deadline := time.Now().Add(5 * time.Minute)
	for {
		done := true
		for _, k := range doneKeys {
			if ok, _ := layout.Done(context.Background(), st, k); !ok {
				done = false
			}
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shard 7 (job %s) not done", id)
		}
		time.Sleep(300 * time.Millisecond)
	}
	out := submit(t, cfg)
	if strings.Contains(out, "array=7") || strings.Contains(out, ",7") {
		t.Errorf("shard 7 resubmitted although done:\n%s", out)
	}
	waitIdle(t, cfg, 8*time.Minute)
	if got := hashes(t, root); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("run differs from the local run:\n got %v\nwant %v", got, want)
	}
}

// TestSlurmCommandsMissingOrUnreachable runs saber submit and cancel with
// fake Slurm commands (or none) on PATH: a command not on PATH or a job
// sbatch refuses exits 2 naming what to change; a controller that does
// not answer exits 75. No message prints PATH's value.
func TestSlurmCommandsMissingOrUnreachable(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	y := "run: noslurm\nroot: data\ningest:\n  shards: 2\n  sources: [{name: s, paths: [x.jsonl]}]\ndedup:\n  shards: 1\n"
	if err := os.WriteFile(cfg, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgMax := filepath.Join(dir, "max.yaml")
	if err := os.WriteFile(cfgMax, []byte(y+"slurm:\n  max_array_size: 4\n  defaults: {partition: nosuch}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(fakes map[string]string, args ...string) (string, int, string) {
		t.Helper()
		bin := t.TempDir()
		for name, stderr := range fakes {
			body := "#!/bin/sh\necho " + slurm.Quote(stderr) + " >&2\nexit 1\n"
			if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(filepath.Join(binDir, "saber"), args...)
		cmd.Env = append(os.Environ(), "PATH="+bin)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code, bin
	}
	const down = "slurm_load_ctl_conf error: Unable to contact slurm controller (connect failure)"
	for _, tc := range []struct {
		name  string
		fakes map[string]string
		args  []string
		code  int
		want  []string
	}{
		{"scontrol missing", nil, []string{"submit", "--config", cfg}, 2, []string{"scontrol is not on PATH", "Slurm login node", "slurm.max_array_size"}},
		{"scontrol unreachable", map[string]string{"scontrol": down}, []string{"submit", "--config", cfg}, 75, []string{"Unable to contact slurm controller"}},
		{"sbatch missing", nil, []string{"submit", "--config", cfgMax}, 2, []string{"sbatch is not on PATH", "Slurm login node"}},
		{"sbatch refuses", map[string]string{"sbatch": "sbatch: error: Batch job submission failed: Invalid partition name specified"},
			[]string{"submit", "--config", cfgMax}, 2, []string{"Invalid partition name specified", "slurm.stages.ingest or slurm.defaults"}},
		{"sbatch times out", map[string]string{"sbatch": "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"},
			[]string{"submit", "--config", cfgMax}, 75, []string{"Socket timed out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, bin := run(tc.fakes, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, bin) {
				t.Errorf("output prints PATH's value %s:\n%s", bin, out)
			}
		})
	}
	// cancel, with a job recorded: squeue unreachable is 75, missing 2.
	os.MkdirAll(filepath.Join(dir, "data", "noslurm"), 0o755)
	jobs := `{"run": "noslurm", "submissions": [{"stage": "ingest", "step": "map", "job_id": "41", "shards": 2, "missing": [0, 1]}]}`
	if err := os.WriteFile(filepath.Join(dir, "data", "noslurm", "_jobs.json"), []byte(jobs), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code, _ := run(map[string]string{"squeue": strings.Replace(down, "ctl_conf", "jobs", 1)}, "cancel", "--config", cfg); code != 75 || !strings.Contains(out, "squeue") {
		t.Errorf("cancel, squeue unreachable: exit %d, want 75:\n%s", code, out)
	}
	if out, code, _ := run(nil, "cancel", "--config", cfg); code != 2 || !strings.Contains(out, "squeue is not on PATH") {
		t.Errorf("cancel, no squeue: exit %d, want 2:\n%s", code, out)
	}
}
