package slurm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

// fakeSlurm makes dir the whole PATH and writes each named command into
// it as a script that prints its stderr line and exits 1. A command not
// named is not on PATH.
func fakeSlurm(t *testing.T, cmds map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, stderr := range cmds {
		body := "#!/bin/sh\necho " + Quote(stderr) + " >&2\nexit 1\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

// checkFailure checks err's exit code and that its message holds every
// want and never the value of PATH (no environment value in a message).
func checkFailure(t *testing.T, err error, code int, pathDir string, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want exit %d", code)
	}
	if got := stage.ExitCode(err); got != code {
		t.Errorf("exit %d, want %d: %v", got, code, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %v", w, err)
		}
	}
	if strings.Contains(err.Error(), pathDir) {
		t.Errorf("message prints PATH's value %s: %v", pathDir, err)
	}
}

// TestExecRunnerExitCodes: a Slurm command not on PATH is exit 2, naming
// it and the login node; one that refuses its arguments is 2 with its
// message; a controller that does not answer is 75.
func TestExecRunnerExitCodes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, stderr string
		code         int
		want         []string
	}{
		{"invalid partition", "sbatch: error: Batch job submission failed: Invalid partition name specified", stage.ExitBadInput, []string{"Invalid partition name specified"}},
		{"invalid account", "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified", stage.ExitBadInput, []string{"Invalid account"}},
		{"controller down", "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)", stage.ExitTempFail, []string{"Unable to contact slurm controller", "rerun once it is reachable"}},
		{"socket timeout", "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation", stage.ExitTempFail, []string{"Socket timed out"}},
		{"connection refused", "sbatch: error: slurm_persist_conn_open_without_init: failed to open persistent connection to host:ctl:6817: Connection refused", stage.ExitTempFail, []string{"Connection refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fakeSlurm(t, map[string]string{"sbatch": tc.stderr})
			_, err := ExecRunner{}.Run(ctx, "sbatch", "--parsable", "job.sbatch")
			checkFailure(t, err, tc.code, dir, append(tc.want, "sbatch --parsable job.sbatch")...)
		})
	}
	t.Run("not on PATH", func(t *testing.T) {
		dir := fakeSlurm(t, nil)
		_, err := ExecRunner{}.Run(ctx, "sbatch", "--parsable", "job.sbatch")
		checkFailure(t, err, stage.ExitBadInput, dir, "sbatch is not on PATH", "Slurm login node")
	})
	t.Run("interrupted", func(t *testing.T) {
		fakeSlurm(t, nil)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := ExecRunner{}.Run(cctx, "/bin/sleep", "5")
		if got := stage.ExitCode(err); got != stage.ExitTempFail {
			t.Errorf("interrupted: exit %d, want 75: %v", got, err)
		}
	})
	t.Run("squeue's Invalid job id still reads as an empty queue", func(t *testing.T) {
		fakeSlurm(t, map[string]string{"squeue": "slurm_load_jobs error: Invalid job id specified"})
		active, err := ActiveJobs(ctx, ExecRunner{}, &Jobs{Submissions: []Submission{{JobID: "7"}}})
		if err != nil || len(active) != 0 {
			t.Errorf("ActiveJobs = %v, %v; want none, no error", active, err)
		}
	})
}

// TestSubmitAndCancelWithoutSlurm: saber submit where scontrol or sbatch
// is missing exits 2 naming the command (and slurm.max_array_size, which
// skips scontrol); sbatch refusing the job exits 2 with sbatch's message
// and the config keys to fix; an unreachable controller exits 75, for
// submit and cancel alike.
func TestSubmitAndCancelWithoutSlurm(t *testing.T) {
	ctx := context.Background()
	submit := func(extra string) error {
		t.Helper()
		cfg, path := writeConfig(t, extra)
		_, err := Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin"})
		return err
	}
	withMax := "slurm:\n  max_array_size: 4\n  defaults: {partition: nosuch}\n"

	dir := fakeSlurm(t, nil)
	checkFailure(t, submit(""), stage.ExitBadInput, dir, "set slurm.max_array_size to skip", "scontrol is not on PATH", "Slurm login node")
	checkFailure(t, submit(withMax), stage.ExitBadInput, dir, "sbatch is not on PATH", "Slurm login node")

	dir = fakeSlurm(t, map[string]string{"scontrol": "slurm_load_ctl_conf error: Unable to contact slurm controller (connect failure)"})
	checkFailure(t, submit(""), stage.ExitTempFail, dir, "Unable to contact slurm controller")

	dir = fakeSlurm(t, map[string]string{"sbatch": "sbatch: error: Batch job submission failed: Invalid partition name specified"})
	checkFailure(t, submit(withMax), stage.ExitBadInput, dir, "Invalid partition name specified", "sbatch refused the job", "slurm.stages.ingest or slurm.defaults")

	dir = fakeSlurm(t, map[string]string{"sbatch": "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"})
	checkFailure(t, submit(withMax), stage.ExitTempFail, dir, "Socket timed out")

	// cancel: a run with a job recorded, squeue unreachable or missing.
	cfg, path := writeConfig(t, "slurm:\n  max_array_size: 4\n")
	if _, err := Submit(ctx, cfg, Options{ConfigPath: path, Stages: pipeline.Stages, BinDir: "/opt/saber/bin", Runner: &fakeRunner{}}); err != nil {
		t.Fatal(err)
	}
	dir = fakeSlurm(t, map[string]string{"squeue": "slurm_load_jobs error: Unable to contact slurm controller (connect failure)"})
	_, err := Cancel(ctx, cfg, ExecRunner{}, os.Stderr)
	checkFailure(t, err, stage.ExitTempFail, dir, "squeue", "Unable to contact slurm controller")
	dir = fakeSlurm(t, nil)
	_, err = Cancel(ctx, cfg, ExecRunner{}, os.Stderr)
	checkFailure(t, err, stage.ExitBadInput, dir, "squeue is not on PATH")
}
