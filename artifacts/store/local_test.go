package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
)

func openLocal(t *testing.T) (store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st, dir
}

func TestLocal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		st, _ := openLocal(t)
		return st
	})
}

// A writer killed before Commit leaves its .tmp- file behind; the key must
// stay invisible and List must not show the temporary.
func TestLocalCrashLeavesNothingVisible(t *testing.T) {
	ctx := context.Background()
	st, dir := openLocal(t)
	if _, err := store.Put(ctx, st, "run/part-0", []byte("done"), store.Replace); err != nil {
		t.Fatal(err)
	}
	w, err := st.Create(ctx, "run/part-1", store.Once)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("half of it")); err != nil {
		t.Fatal(err)
	}
	// "Crash": no Commit, no Abort.
	tmps, _ := filepath.Glob(filepath.Join(dir, "run", ".tmp-*"))
	if len(tmps) != 1 {
		t.Fatalf("temporaries on disk = %v, want one", tmps)
	}
	infos, err := st.List(ctx, "run/")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Key != "run/part-0" {
		t.Errorf("List = %+v, want only run/part-0", infos)
	}
	if _, err := st.Stat(ctx, "run/part-1"); !errors.Is(err, store.ErrNotExist) {
		t.Errorf("Stat of crashed write = %v, want ErrNotExist", err)
	}
	// A restarted writer can still write the key once.
	if _, err := store.Put(ctx, st, "run/part-1", []byte("all of it"), store.Once); err != nil {
		t.Fatal(err)
	}
}

func TestLocalLayout(t *testing.T) {
	ctx := context.Background()
	st, dir := openLocal(t)
	if _, err := store.Put(ctx, st, "a/b/c", []byte("x"), store.Replace); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	if got, want := st.URI("a/b/c"), "file://"+filepath.ToSlash(dir)+"/a/b/c"; got != want {
		t.Errorf("URI = %q, want %q", got, want)
	}
	// The URI opens the same root again.
	st2, err := store.Open(ctx, strings.TrimSuffix(st.URI("a"), "/a"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := store.ReadAll(ctx, st2, "a/b/c"); err != nil || string(data) != "x" {
		t.Errorf("ReadAll via file URI = %q, %v", data, err)
	}
	// Errors name the URI and keep ErrNotExist.
	_, err = st.Open(ctx, "a/nope")
	if !errors.Is(err, store.ErrNotExist) || !strings.Contains(err.Error(), st.URI("a/nope")) {
		t.Errorf("Open missing = %v", err)
	}
	// Listing below a file, or a root that does not exist yet, is empty.
	if infos, err := st.List(ctx, "a/b/c/d/"); err != nil || len(infos) != 0 {
		t.Errorf("List below a file = %v, %v", infos, err)
	}
	missing, err := store.Open(ctx, filepath.Join(dir, "not", "yet"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if infos, err := missing.List(ctx, ""); err != nil || len(infos) != 0 {
		t.Errorf("List of missing root = %v, %v", infos, err)
	}
}
