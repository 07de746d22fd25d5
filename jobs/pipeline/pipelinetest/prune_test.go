package pipelinetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPrune: the current tree's build stays; others go once unused for
// pruneAfter, or for pruneBusy beyond the pruneKeep most recently used,
// each with its lock file.
func TestPrune(t *testing.T) {
	base := t.TempDir()
	ages := map[string]time.Duration{
		"keep": 10 * time.Hour, "fresh": time.Minute, "a": 5 * time.Minute, "b": 10 * time.Minute,
		"c": 20 * time.Minute, "d": 40 * time.Minute, "e": 50 * time.Minute, "old": 3 * time.Hour,
	}
	for name, age := range ages {
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+".lock", nil, 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
	}
	prune(base, "keep")
	var left []string
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	// By use, newest first: fresh, a, b, c (the 4 kept), d and e (past
	// pruneBusy beyond them), old (past pruneAfter).
	want := []string{"a", "a.lock", "b", "b.lock", "c", "c.lock", "fresh", "fresh.lock", "keep", "keep.lock"}
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}
