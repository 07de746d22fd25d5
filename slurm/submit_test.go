package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// fakeRunner records commands and answers like a tiny cluster.
type fakeRunner struct {
	calls  []string
	nextID int
	queued string
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) (string, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	switch name {
	case "scontrol":
		return "Configuration data as of ...\nMaxArraySize            = 4\nMaxJobCount = 10000\n", nil
	case "squeue":
		return f.queued, nil
	case "sbatch":
		f.nextID++
		return fmt.Sprintf("%d;cluster\n", 100+f.nextID), nil
	}
	return "", fmt.Errorf("unexpected command %s", name)
}

func TestArraySpec(t *testing.T) {
	tests := []struct {
		ids      []int
		throttle int
		want     string
	}{
		{[]int{0, 1, 2, 3}, 0, "0-3"},
		{[]int{3, 7, 12}, 0, "3,7,12"},
		{[]int{0, 1, 2, 5, 7, 8, 9}, 4, "0-2,5,7-9%4"},
		{[]int{4}, 2, "4%2"},
	}
	for _, tt := range tests {
		if got := ArraySpec(tt.ids, tt.throttle); got != tt.want {
			t.Errorf("ArraySpec(%v, %d) = %q, want %q", tt.ids, tt.throttle, got, tt.want)
		}
	}
}

func writeConfig(t *testing.T, extra string) (*config.Config, string) {
	t.Helper()
	dir := t.TempDir()
	y := "run: demo\nroot: data\ningest:\n  shards: 10\n  sources: [{name: s, paths: [x.jsonl]}]\ndedup:\n  shards: 3\n" + extra
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := pipeline.LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, p
}

// markDone writes the completion manifests of one shard of a registered
// stage's step, one per output dataset, as that step under cfg would: with
// its config values and this build's code, so that the shard is done and
// current (no data: planning reads manifests only).
func markDone(t *testing.T, cfg *config.Config, stageName, stepName string, spec shard.Spec) {
	t.Helper()
	ctx := context.Background()
	st, err := pipeline.Lookup(stageName)
	if err != nil {
		t.Fatal(err)
	}
	step, ok := st.Step(stepName)
	if !ok {
		t.Fatalf("stage %s has no step %s", stageName, stepName)
	}
	root := openRoot(t, cfg)
	values := st.ConfigValues(cfg)
	for i, ds := range step.Outputs {
		m := &layout.Manifest{Stage: st.Name, Step: step.Name, Run: cfg.Run, Dataset: ds, Shard: spec.Index, Shards: spec.Count,
			Config: values, ConfigHash: config.HashValues(values), CodeVersion: stage.CodeVersion()}
		if err := layout.WriteDone(ctx, root, stage.DoneKeys(cfg.Run, step, spec)[i], m); err != nil {
			t.Fatal(err)
		}
	}
}

// sbatchCalls are the sbatch command lines the runner saw, in order.
func sbatchCalls(r *fakeRunner) []string {
	var out []string
	for _, c := range r.calls {
		if strings.HasPrefix(c, "sbatch ") {
			out = append(out, c)
		}
	}
	return out
}

// checkDependencyArgs checks that each job's sbatch call waits (afterok)
// on exactly its recorded dependencies, and on nothing when it has none.
// Submissions that share a job id (the members of the final reduce) share
// one sbatch call.
func checkDependencyArgs(t *testing.T, subs []Submission, calls []string) {
	t.Helper()
	var jobs []Submission
	for i, s := range subs {
		if i == 0 || s.JobID != subs[i-1].JobID {
			jobs = append(jobs, s)
		}
	}
	if len(calls) != len(jobs) {
		t.Fatalf("%d sbatch calls for %d jobs:\n%s", len(calls), len(jobs), strings.Join(calls, "\n"))
	}
	for i, s := range jobs {
		has := strings.Contains(calls[i], "--dependency=")
		want := "--dependency=afterok:" + strings.Join(s.Dependency, ":") + " "
		if len(s.Dependency) == 0 && has || len(s.Dependency) > 0 && !strings.Contains(calls[i], want) {
			t.Errorf("%s/%s job %s: sbatch call %q, want dependency %v", s.Stage, s.Step, s.JobID, calls[i], s.Dependency)
		}
	}
}

func describe(subs []Submission) string {
	var got []string
	for _, s := range subs {
		got = append(got, fmt.Sprintf("%s/%s id=%s array=%s off=%d dep=%v", s.Stage, s.Step, s.JobID, s.Array, s.Offset, s.Dependency))
	}
	return strings.Join(got, "\n")
}

func TestSubmitChainsOnlyMissingAndSplitsArrays(t *testing.T) {
	ctx := context.Background()
	cfg, path := writeConfig(t, "slurm:\n  defaults: {partition: cpu, time: \"01:00:00\", throttle: 2}\n")
	// Mark ingest shards 1, 2 and 6 done: the others must be submitted.
	root := openRoot(t, cfg)
	for _, i := range []int{1, 2, 6} {
		markDone(t, cfg, "ingest", "map", shard.Spec{Index: i, Count: 10})
	}
	// A shard with only some of its markers (ingest_rows, not
	// ingest_spans) is not done: it is submitted again.
	m := &layout.Manifest{Stage: "ingest", Step: "map", Run: "demo", Dataset: "ingest_rows", Shard: 5, Shards: 10}
	if err := layout.WriteDone(ctx, root, layout.DoneKey("demo", "ingest_rows", m.Spec()), m); err != nil {
		t.Fatal(err)
	}
	r := &fakeRunner{}
	var out bytes.Buffer
	subs, err := Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin", Out: &out, Runner: r})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// MaxArraySize 4: missing 0,3,4,5,7,8,9 → chunks [0,3] [4,5,7] [8,9].
	// Each step waits for the jobs of this submission that write what it
	// reads, and for nothing else: dedup's reduce reads problems and
	// signatures; tag and summarize read only the corpus and run side by
	// side; judge and evaluate read select's queries and candidates and
	// dedup's corpus; rate reads judge's judgments; report reads select's
	// queries, rate's ratings and evaluate's runs and timings.
	want := []string{
		"ingest/map id=101 array=0,3%2 off=0 dep=[]",
		"ingest/map id=102 array=0-1,3%2 off=4 dep=[]",
		"ingest/map id=103 array=0-1%2 off=8 dep=[]",
		// ingest's reduce reads what every map shard staged; dedup reads its problems.
		"ingest/reduce id=104 array= off=0 dep=[101 102 103]",
		"dedup/map id=105 array=0-2%2 off=0 dep=[104]",
		"dedup/reduce id=106 array= off=0 dep=[104 105]",
		"tag/map id=107 array=0%2 off=0 dep=[106]",
		"summarize/map id=108 array=0%2 off=0 dep=[106]",
		"pairs/map id=109 array=0%2 off=0 dep=[107 108]",
		"calibrate/reduce id=110 array= off=0 dep=[107 108 109]",
		"select/reduce id=111 array= off=0 dep=[107 108 109 110]",
		"judge/map id=112 array=0%2 off=0 dep=[106 111]",
		"rate/map id=113 array=0%2 off=0 dep=[111 112]",
		// evaluate needs only select's outputs and the corpus: it runs beside judge and rate.
		"evaluate/map id=114 array=0-3%2 off=0 dep=[106 111]",
		"evaluate/map id=115 array=0-1%2 off=4 dep=[106 111]",
		"audit/map id=116 array=0%2 off=0 dep=[106 111 113]",
		// The final reduce — the audit's reduce, report (whose page shows
		// the audit), analyze, release — is one job that runs the four in
		// order, after everything they read.
		"audit/reduce id=117 array= off=0 dep=[106 107 108 110 111 112 113 114 115 116]",
		"report/reduce id=117 array= off=0 dep=[106 107 108 110 111 112 113 114 115 116]",
		"analyze/reduce id=117 array= off=0 dep=[106 107 108 110 111 112 113 114 115 116]",
		"release/reduce id=117 array= off=0 dep=[106 107 108 110 111 112 113 114 115 116]",
		// The deduplication experiment, off the main line, never holds up
		// the final reduce: its reduce, which reads report's results, is
		// its own job after it.
		"rewrite/map id=118 array=0%2 off=0 dep=[106 111]",
		"embed/map id=119 array=0%2 off=0 dep=[106 111]",
		"downstream/map id=120 array=0%2 off=0 dep=[106 111 118 119]",
		"downstream/reduce id=121 array= off=0 dep=[111 117 118 120]",
	}
	if got := describe(subs); got != strings.Join(want, "\n") {
		t.Fatalf("submissions:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	calls := sbatchCalls(r)
	checkDependencyArgs(t, subs, calls)
	for i, dep := range map[int]string{3: "101:102:103", 5: "104:105"} { // ingest's reduce, dedup's
		if reduce := calls[i]; !strings.Contains(reduce, "--dependency=afterok:"+dep+" ") || strings.Contains(reduce, "--array") {
			t.Errorf("reduce sbatch call: %s", reduce)
		}
	}
	fin, err := os.ReadFile(filepath.Join(LogDir(cfg), "sbatch", "final-reduce.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(fin)
	iReport, iAudit, iAnalyze, iRelease := strings.Index(text, "/report' --config"), strings.Index(text, "/audit' --config"), strings.Index(text, "/analyze' --config"), strings.Index(text, "/release' --config")
	if !strings.Contains(text, "--job-name=saber-demo-final-reduce") || iAudit < 0 || iReport < iAudit || iAnalyze < iReport || iRelease < iAnalyze || strings.Count(text, "--reduce &") != 4 {
		t.Errorf("final-reduce.sbatch does not run audit's reduce, report, analyze and release in order:\n%s", text)
	}
	for off, name := range map[int]string{0: "ingest-map.sbatch", 4: "ingest-map-from-4.sbatch", 8: "ingest-map-from-8.sbatch"} {
		b, err := os.ReadFile(filepath.Join(LogDir(cfg), "sbatch", name))
		if err != nil || !strings.Contains(string(b), fmt.Sprintf("export SABER_SHARD_OFFSET=%d\n", off)) {
			t.Errorf("%s: offset %d not in the script (%v)", name, off, err)
		}
	}
	jobs, err := ReadJobs(ctx, root, "demo")
	if err != nil || len(jobs.Submissions) != len(want) || jobs.Submissions[4].JobID != "105" {
		t.Fatalf("_jobs.json: %+v, %v", jobs, err)
	}
	// With the run's jobs still queued, a second submit refuses.
	r.queued = "101\n104\n"
	_, err = Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin", Runner: r})
	if err == nil || !strings.Contains(err.Error(), "still queued or running (101, 104)") {
		t.Fatalf("resubmit while queued: %v", err)
	}
}

// TestSubmitDependsOnlyOnWritersSubmittedHere: with the corpus, topics,
// pairs and thresholds complete and only select onwards submitted, a step
// waits only for the jobs of this submission that write its inputs:
// select for nothing, judge and evaluate for select alone (the corpus is
// already there), rate for select and judge, the audit's map for select and
// rate, and the final job (audit's reduce, report) for every map.
func TestSubmitDependsOnlyOnWritersSubmittedHere(t *testing.T) {
	ctx := context.Background()
	cfg, path := writeConfig(t, "slurm:\n  max_array_size: 100\n  defaults: {time: \"01:00:00\"}\n")
	one := shard.Spec{Index: 0, Count: 1}
	markDone(t, cfg, "dedup", "reduce", one)
	for _, name := range []string{"tag", "summarize", "pairs"} {
		st, err := pipeline.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		n := st.Steps[0].Count(cfg)
		for i := 0; i < n; i++ {
			markDone(t, cfg, name, "map", shard.Spec{Index: i, Count: n})
		}
	}
	markDone(t, cfg, "calibrate", "reduce", one)
	sel, err := pipeline.Select(cfg, "select,judge,rate,evaluate,audit,report")
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRunner{}
	var out bytes.Buffer
	subs, err := Submit(ctx, cfg, Options{ConfigPath: path, Stages: sel, BinDir: "/opt/saber/bin", Out: &out, Runner: r})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []string{
		"select/reduce id=101 array= off=0 dep=[]",
		"judge/map id=102 array=0 off=0 dep=[101]",
		"rate/map id=103 array=0 off=0 dep=[101 102]",
		"evaluate/map id=104 array=0-5 off=0 dep=[101]",
		"audit/map id=105 array=0 off=0 dep=[101 103]",
		// audit's reduce and report: one final job, after every map.
		"audit/reduce id=106 array= off=0 dep=[101 102 103 104 105]",
		"report/reduce id=106 array= off=0 dep=[101 102 103 104 105]",
	}
	if got := describe(subs); got != strings.Join(want, "\n") {
		t.Fatalf("submissions:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	checkDependencyArgs(t, subs, sbatchCalls(r))
	// An input that is neither complete nor submitted is refused before
	// anything is submitted.
	cfg2, path2 := writeConfig(t, "slurm:\n  max_array_size: 100\n")
	sel2, _ := pipeline.Select(cfg2, "evaluate")
	r2 := &fakeRunner{}
	_, err = Submit(ctx, cfg2, Options{ConfigPath: path2, Stages: sel2, BinDir: "/opt/saber/bin", Runner: r2})
	if err == nil || !strings.Contains(err.Error(), "evaluate reads queries, which select writes") || len(sbatchCalls(r2)) != 0 {
		t.Fatalf("evaluate without select's outputs: %v (calls %v)", err, r2.calls)
	}
}

func TestDryRunTouchesNoSlurmAndScriptsParse(t *testing.T) {
	ctx := context.Background()
	cfg, path := writeConfig(t, `slurm:
  max_array_size: 1000
  defaults: {partition: gpu, account: proj-1, qos: high, time: "2-00:00:00", cpus: 8, mem: 64G, gres: "gpu:h200:1", extra: [--constraint=h200], modules: [cuda/12.4], venv: /opt/venv, env: {HF_HOME: /scratch/hf}}
  stages:
    dedup: {server: {model: openai/gpt-oss-120b, port: 8123}}
`)
	r := &fakeRunner{}
	var out bytes.Buffer
	if _, err := Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin", Out: &out, Runner: r, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if len(r.calls) != 0 {
		t.Fatalf("dry run ran %v", r.calls)
	}
	text := out.String()
	for _, want := range []string{"#SBATCH --job-name=saber-demo-ingest", "#SBATCH --gres=gpu:h200:1", "#SBATCH --constraint=h200",
		"#SBATCH --signal=B:USR1@120", "#SBATCH --kill-on-invalid-dep=yes", "#SBATCH --open-mode=append", "#SBATCH --requeue",
		"module load 'cuda/12.4'", "source '/opt/venv/bin/activate'", "export HF_HOME='/scratch/hf'",
		"server_port=$(( 8123 + ${SLURM_ARRAY_TASK_ID:-0} % 1000 ))", `'vllm' 'serve' 'openai/gpt-oss-120b' '--port' "${server_port}" &`,
		`export SABER_LLM_BASE_URL="http://127.0.0.1:${server_port}/v1"`, "SLURM_RESTART_COUNT", "# sbatch --parsable --array=0-9"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run lacks %q", want)
		}
	}
	scripts, _ := filepath.Glob(filepath.Join(LogDir(cfg), "sbatch", "*.sbatch"))
	if len(scripts) != 18 { // 14 for the main line, 4 for the deduplication experiment
		t.Fatalf("scripts: %v", scripts)
	}
	for _, s := range scripts {
		if out, err := exec.Command("bash", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", s, err, out)
		}
	}
}

func openRoot(t *testing.T, cfg *config.Config) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
