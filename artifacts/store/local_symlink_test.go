package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
)

// TestSymlinkLeavingTheRootIsRefused: a folder inside a local root that is
// a symlink to elsewhere is refused (exit 2) for every operation, and
// nothing is written where it leads, unless storage.follow_symlinks is
// true. A symlink to a folder inside the root, and a file that is itself a
// symlink (an input linked into place), are fine.
func TestSymlinkLeavingTheRootIsRefused(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "root")
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "r", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "r", "corpus")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "r", "inner"), filepath.Join(root, "r", "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "old.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "old.parquet"), filepath.Join(root, "r", "linked.parquet")); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, root, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		var se *store.SymlinkError
		if !errors.As(err, &se) || se.ExitCode() != 2 {
			t.Errorf("%s: err = %v, want a *store.SymlinkError (exit 2)", what, err)
		}
	}
	_, err = store.Put(ctx, st, "r/corpus/part-00000-of-00001.parquet", []byte("data"), store.Once)
	refused("Put", err)
	_, err = store.Put(ctx, st, "r/corpus/_done/part-00000-of-00001.json", []byte("{}"), store.Once)
	refused("Put in a new folder below", err)
	_, err = st.Open(ctx, "r/corpus/old.parquet")
	refused("Open", err)
	_, err = st.Stat(ctx, "r/corpus/old.parquet")
	refused("Stat", err)
	_, err = st.List(ctx, "r/corpus/")
	refused("List", err)
	refused("Delete", st.Delete(ctx, "r/corpus/old.parquet"))
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the folder the symlink leads to holds %d entries, want only the old file", len(ents))
	}

	if _, err := store.Put(ctx, st, "r/alias/part.parquet", []byte("data"), store.Once); err != nil {
		t.Errorf("a symlink inside the root: %v", err)
	}
	if b, err := store.ReadAll(ctx, st, "r/linked.parquet"); err != nil || string(b) != "x" {
		t.Errorf("a file that is a symlink: %q, %v", b, err)
	}

	follow, err := store.Open(ctx, root, store.Options{FollowSymlinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(ctx, follow, "r/corpus/part-00000-of-00001.parquet", []byte("data"), store.Once); err != nil {
		t.Errorf("follow_symlinks: true: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "part-00000-of-00001.parquet")); err != nil {
		t.Errorf("follow_symlinks: true wrote nothing through the link: %v", err)
	}
}
