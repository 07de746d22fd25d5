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

func TestArraySpecAndChunks(t *testing.T) {
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
	got := Chunks([]int{0, 3, 4, 5, 9, 10}, 4)
	want := "[{0 [0 3]} {4 [4 5]} {8 [9 10]}]"
	if fmt.Sprint(got) != want {
		t.Errorf("Chunks = %v, want %s", got, want)
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
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, p
}

func TestSubmitChainsOnlyMissingAndSplitsArrays(t *testing.T) {
	ctx := context.Background()
	cfg, path := writeConfig(t, "slurm:\n  defaults: {partition: cpu, time: \"01:00:00\", throttle: 2}\n")
	// Mark ingest shards 1, 2 and 6 done: the others must be submitted.
	root := openRoot(t, cfg)
	for _, i := range []int{1, 2, 6} {
		m := &layout.Manifest{Stage: "ingest", Run: "demo", Shard: i, Shards: 10}
		if err := layout.WriteDone(ctx, root, layout.DoneKey("demo", "problems", m.Spec()), m); err != nil {
			t.Fatal(err)
		}
	}
	r := &fakeRunner{}
	var out bytes.Buffer
	subs, err := Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin", Out: &out, Runner: r})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var got []string
	for _, s := range subs {
		got = append(got, fmt.Sprintf("%s/%s id=%s array=%s off=%d dep=%v", s.Stage, s.Step, s.JobID, s.Array, s.Offset, s.Dependency))
	}
	// MaxArraySize 4: missing 0,3,4,5,7,8,9 → chunks [0,3] [4,5,7] [8,9].
	want := []string{
		"ingest/map id=101 array=0,3%2 off=0 dep=[]",
		"ingest/map id=102 array=0-1,3%2 off=4 dep=[]",
		"ingest/map id=103 array=0-1%2 off=8 dep=[]",
		"dedup/map id=104 array=0-2%2 off=0 dep=[101 102 103]",
		"dedup/reduce id=105 array= off=0 dep=[104]",
		"tag/map id=106 array=0%2 off=0 dep=[105]",
		"summarize/map id=107 array=0%2 off=0 dep=[106]",
		"pairs/map id=108 array=0%2 off=0 dep=[107]",
		"calibrate/reduce id=109 array= off=0 dep=[108]",
		"select/reduce id=110 array= off=0 dep=[109]",
		"judge/map id=111 array=0%2 off=0 dep=[110]",
		"rate/map id=112 array=0%2 off=0 dep=[111]",
		// evaluate needs only select's outputs: it runs beside judge and rate.
		"evaluate/map id=113 array=0-3%2 off=0 dep=[110]",
		"evaluate/map id=114 array=0-1%2 off=4 dep=[110]",
		"report/reduce id=115 array= off=0 dep=[112 113 114]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("submissions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reduce := r.calls[len(r.calls)-11]
	if !strings.Contains(reduce, "--dependency=afterok:104") || strings.Contains(reduce, "--array") {
		t.Errorf("reduce sbatch call: %s", reduce)
	}
	for off, name := range map[int]string{0: "ingest-map.sbatch", 4: "ingest-map-from-4.sbatch", 8: "ingest-map-from-8.sbatch"} {
		b, err := os.ReadFile(filepath.Join(LogDir(cfg), "sbatch", name))
		if err != nil || !strings.Contains(string(b), fmt.Sprintf("export SABER_SHARD_OFFSET=%d\n", off)) {
			t.Errorf("%s: offset %d not in the script (%v)", name, off, err)
		}
	}
	jobs, err := ReadJobs(ctx, root, "demo")
	if err != nil || len(jobs.Submissions) != 15 || jobs.Submissions[4].JobID != "105" {
		t.Fatalf("_jobs.json: %+v, %v", jobs, err)
	}
	// With the run's jobs still queued, a second submit refuses.
	r.queued = "101\n104\n"
	_, err = Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin", Runner: r})
	if err == nil || !strings.Contains(err.Error(), "still queued or running (101, 104)") {
		t.Fatalf("resubmit while queued: %v", err)
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
		"'vllm' 'serve' 'openai/gpt-oss-120b' '--port' '8123' &", "SLURM_RESTART_COUNT", "# sbatch --parsable --array=0-9"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry run lacks %q", want)
		}
	}
	scripts, _ := filepath.Glob(filepath.Join(LogDir(cfg), "sbatch", "*.sbatch"))
	if len(scripts) != 12 {
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
