package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequeueStopsAfterMaxRequeues runs a rendered script whose stage
// exits 75, with a fake scontrol, at several SLURM_RESTART_COUNTs: it
// requeues until the task has restarted slurm.max_requeues times, then
// lets the task fail with exit 75 and a line that says why.
func TestRequeueStopsAfterMaxRequeues(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	write := func(name, body string) string {
		p := filepath.Join(bin, name)
		if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calls := filepath.Join(dir, "scontrol.calls")
	write("scontrol", `echo "$@" >> `+Quote(calls))
	stageBin := write("ingest", "exit 75")
	text, err := Render(Script{Run: "r", Stage: "ingest", Step: "map", JobName: "saber-r-ingest", Sharded: true, Shards: 4,
		LogDir: dir, Binary: stageBin, Config: "/c.yaml", MaxRequeues: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "max_requeues=2\n") {
		t.Fatalf("script does not carry slurm.max_requeues:\n%s", text)
	}
	script := filepath.Join(dir, "job.sbatch")
	os.WriteFile(script, []byte(text), 0o600)
	tests := []struct {
		restarts string // SLURM_RESTART_COUNT; "" leaves it unset (a first run)
		requeued bool
		want     string
	}{
		{"", true, "saber: requeueing 41_3 (restart 1 of at most 2)"},
		{"1", true, "saber: requeueing 41_3 (restart 2 of at most 2)"},
		{"2", false, "saber: not requeueing 41_3: it exited 75 (transient) after 2 restarts, and slurm.max_requeues is 2"},
		{"7", false, "after 7 restarts, and slurm.max_requeues is 2"},
	}
	for _, tt := range tests {
		os.Remove(calls)
		cmd := exec.Command("bash", script)
		cmd.Env = []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "SLURM_JOB_ID=44", "SLURM_ARRAY_JOB_ID=41", "SLURM_ARRAY_TASK_ID=3"}
		if tt.restarts != "" {
			cmd.Env = append(cmd.Env, "SLURM_RESTART_COUNT="+tt.restarts)
		}
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 75 {
			t.Errorf("restarts %q: script exit %v, want 75 either way\n%s", tt.restarts, err, out)
		}
		got, _ := os.ReadFile(calls)
		if requeued := string(got) == "requeue 41_3\n"; requeued != tt.requeued || !strings.Contains(string(out), tt.want) {
			t.Errorf("restarts %q: scontrol calls %q, want requeued=%v and %q in:\n%s", tt.restarts, got, tt.requeued, tt.want, out)
		}
	}
}

// TestScriptsAreOwnerOnly: a rendered script holds slurm.defaults.env's values and
// paths, so saber writes it readable by its owner only.
func TestScriptsAreOwnerOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.sbatch")
	// An older saber's temporary, world-readable, must not keep its mode.
	os.WriteFile(p+".tmp", nil, 0o755)
	if err := writeAtomic(p, "#!/bin/bash\n"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("script mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
}
