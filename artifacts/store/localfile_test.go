package store

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestLocalFile: a local file's bytes reach its name only at Commit, with
// its mode; Abort, or an error from WriteFile's fn, leaves the name as it
// was (absent, or the old bytes) and no temporary behind.
func TestLocalFile(t *testing.T) {
	dir := t.TempDir()
	entries := func() []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	path := filepath.Join(dir, "run.txt")

	// Two open at once, as an export writes them; neither visible before Commit.
	a, err := CreateFile(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateFile(filepath.Join(dir, "other.txt"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "first ")
	io.WriteString(b, "discarded")
	io.WriteString(a, "file\n")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before Commit: stat %s = %v, want not there", path, err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	a.Abort() // after Commit: nothing
	if got, err := os.ReadFile(path); err != nil || string(got) != "first file\n" {
		t.Fatalf("after Commit: %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if names := entries(); len(names) != 1 || names[0] != "run.txt" {
		t.Errorf("after Commit and Abort the folder holds %v, want run.txt alone", names)
	}
	if _, err := a.Write([]byte("late")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Commit: %v, want ErrClosed", err)
	}
	if err := a.Commit(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a second Commit: %v, want ErrClosed", err)
	}

	// WriteFile whose fn fails keeps the old bytes.
	boom := errors.New("boom")
	err = WriteFile(path, 0o600, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteFile with a failing fn: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "first file\n" {
		t.Errorf("after a failed WriteFile: %q, want the old bytes", got)
	}
	if names := entries(); len(names) != 1 {
		t.Errorf("after a failed WriteFile the folder holds %v", names)
	}
	if err := WriteFile(path, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, "second\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "second\n" {
		t.Errorf("after WriteFile: %q", got)
	}
}
