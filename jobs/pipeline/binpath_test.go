package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/stage"
)

// TestBinaryPathKeepsToBinDir: a binaries folder that is set is the only
// place a stage binary is taken from; one it lacks is exit 2 naming the
// setting, never a binary of another build from beside saber or on PATH.
func TestBinaryPathKeepsToBinDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ingest"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := BinaryPath(dir, "ingest"); err != nil || p != filepath.Join(dir, "ingest") {
		t.Errorf("BinaryPath(dir, ingest) = %q, %v", p, err)
	}
	// sh is on PATH: the old lookup fell through to it.
	for _, name := range []string{"dedup", "sh"} {
		_, err := BinaryPath(dir, name)
		if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "executor.bin_dir") {
			t.Errorf("BinaryPath(dir, %s): %v (exit %d), want exit 2 naming executor.bin_dir", name, err, stage.ExitCode(err))
		}
	}
	if _, err := BinaryPath(filepath.Join(dir, "nowhere"), "ingest"); err == nil {
		t.Error("a binaries folder that does not exist was accepted")
	}
}
