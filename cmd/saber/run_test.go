package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeIngest writes a config of run r whose executor runs a shell script
// in place of the ingest binary, logging to dir/logs, and returns the
// config's path.
func fakeIngest(t *testing.T, dir, script string) string {
	t.Helper()
	return fakeIngestRun(t, dir, "r", filepath.Join(dir, "logs"), script)
}

// fakeIngestRun is fakeIngest for a run of another name and log_dir.
func fakeIngestRun(t *testing.T, dir, run, logDir, script string) string {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "ingest"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	y := fmt.Sprintf(`run: %s
root: %s
executor: {bin_dir: %s, log_dir: %s}
ingest:
  shards: 1
  sources:
    - name: a
      paths: [a.jsonl]
      fields: {id: id, statement: statement, solution: solution}
`, run, filepath.Join(dir, "data"), bin, logDir)
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunExitsWithShardCode: `saber run` exits with the failed shard's own
// code (it always exited 1), and a shard killed by a signal is reported as
// such, not as "exit -1".
func TestRunExitsWithShardCode(t *testing.T) {
	tests := []struct {
		script string
		code   int
		want   string
	}{
		{"echo bad row >&2; exit 2", 2, "failed (exit 2)"},
		{"exit 75", 75, "failed (exit 75)"},
		{"exit 1", 1, "failed (exit 1)"},
		{"kill -KILL $$", 75, "was killed by signal 9 (killed), by an operator or the kernel's OOM killer"},
		{"kill -TERM $$", 75, "was killed by signal 15 (terminated)"},
		{"kill -ABRT $$", 1, "was killed by signal 6 (aborted)"},
	}
	for _, tt := range tests {
		cfg := fakeIngest(t, t.TempDir(), tt.script)
		out, code := saber(t, "run", "--config", cfg, "--stages", "ingest")
		if code != tt.code || !strings.Contains(out, "ingest map shard 0/1 "+tt.want) || strings.Contains(out, "exit -1") {
			t.Errorf("shard %q: saber run exit %d, want %d and %q:\n%s", tt.script, code, tt.code, tt.want, out)
		}
	}
}
