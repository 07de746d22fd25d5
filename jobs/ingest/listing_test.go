package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// rowsOf is n JSONL rows with ids prefix0 … prefix<n-1>.
func rowsOf(prefix string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"uid": "%s%d", "statement": "Find %s%d.", "solution": "x = %d."}`+"\n", prefix, i, prefix, i, i)
	}
	return b.String()
}

// listedRun writes files (paths relative to a temp dir, folders made) and
// a config whose one source reads paths.
func listedRun(t *testing.T, paths string, files map[string]string) (dir string, cfg *config.Config, root store.Store) {
	t.Helper()
	dir = t.TempDir()
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	y := "run: t\nroot: data\nlog: {progress_seconds: 0}\ningest:\n  sources:\n    - {name: s, paths: " + paths + ", fields: {id: uid}}\n"
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, Section)
	if err != nil {
		t.Fatal(err)
	}
	root, err = store.Open(context.Background(), cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	return dir, cfg, root
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// staleMap runs every map shard of n and wants each refused as stale
// (exit 2) with a message holding every one of want; it returns the
// message of the first.
func staleMap(t *testing.T, cfg *config.Config, root store.Store, n int, want ...string) string {
	t.Helper()
	var first string
	for i := 0; i < n; i++ {
		_, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
		var stale *stage.StaleError
		if !errors.As(err, &stale) || stage.ExitCode(err) != stage.ExitBadInput {
			t.Fatalf("map %d/%d: %v; want a stale error (exit 2)", i, n, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("map %d/%d: %v\nlacks %q", i, n, err, w)
			}
		}
		if first == "" {
			first = err.Error()
		}
	}
	return first
}

// forceAll redoes every map shard of n and the reduce, and returns the
// problems.
func forceAll(t *testing.T, cfg *config.Config, root store.Store, n int) []dataset.Problem {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		if res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{Force: true}); err != nil || res.Skipped {
			t.Fatalf("--force map %d/%d: %+v, %v", i, n, res, err)
		}
	}
	one := shard.Spec{Index: 0, Count: 1}
	// The reduce read the map's old parts: stale now, redone.
	if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[1], one, root, zerolog.Nop(), stage.Options{}); !strings.Contains(fmt.Sprint(err), "is stale") {
		t.Errorf("reduce after the map was redone: %v; want stale", err)
	}
	if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[1], one, root, zerolog.Nop(), stage.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	probs, err := dataset.Read[dataset.Problem](ctx, root, layout.DataKey(cfg.Run, "problems", one))
	if err != nil {
		t.Fatal(err)
	}
	return probs
}

// current wants every map shard of n and the reduce skipped as done.
func current(t *testing.T, what string, cfg *config.Config, root store.Store, n int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
		if err != nil || !res.Skipped {
			t.Fatalf("%s: map %d/%d: %+v, %v; want skipped", what, i, n, res, err)
		}
	}
	res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[1], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if err != nil || !res.Skipped {
		t.Fatalf("%s: reduce: %+v, %v; want skipped", what, res, err)
	}
}

// TestFileAddedUnderGlobIsStale is the audit's case: a file added under a
// source's glob after the run finished makes every map shard stale, the
// refusal naming the pattern and the new file (no longer skipped as done
// while `saber verify` finds 130 rows where 50 are served); --force reads
// it, and a rerun is current again. Unchanged, the run stays current, and
// each manifest records the pattern with what it matched.
func TestFileAddedUnderGlobIsStale(t *testing.T) {
	dir, cfg, root := listedRun(t, `["in/*.jsonl"]`, map[string]string{"in/a.jsonl": rowsOf("a", 50)})
	probs, _, err := runShards(t, cfg, 2)
	if err != nil || len(probs) != 50 {
		t.Fatalf("first run: %d problems, %v", len(probs), err)
	}
	pattern, a := filepath.Join(dir, "in", "*.jsonl"), filepath.Join(dir, "in", "a.jsonl")
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		m, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, "ingest_rows", shard.Spec{Index: i, Count: 2}))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(m.Listings), fmt.Sprint([]layout.Listing{{Path: pattern, Files: []string{a}}}); got != want {
			t.Errorf("shard %d listings %s, want %s", i, got, want)
		}
	}
	current(t, "unchanged", cfg, root, 2)
	// A file the glob does not match changes nothing.
	writeFile(t, filepath.Join(dir, "in", "notes.txt"), "not a source\n")
	current(t, "a file the glob does not match", cfg, root, 2)

	b := filepath.Join(dir, "in", "b.jsonl")
	writeFile(t, b, rowsOf("b", 80))
	msg := staleMap(t, cfg, root, 2, "input path "+pattern+" matches other files now: 1 new ("+b+")", "--rerun-stale")
	if strings.Contains(msg, "gone") {
		t.Errorf("refusal names a file gone: %s", msg)
	}
	if probs := forceAll(t, cfg, root, 2); len(probs) != 130 {
		t.Errorf("after --force: %d problems, want 130", len(probs))
	}
	current(t, "after --force", cfg, root, 2)
}

// TestFileGoneFromGlobIsStale: a file removed from a glob's matches makes
// the shard stale once, named as gone from the pattern (not again as a
// file gone); --force reads what is left. With every match gone the
// shard is stale too, and --force is refused naming the pattern.
func TestFileGoneFromGlobIsStale(t *testing.T) {
	dir, cfg, root := listedRun(t, `["in/*.jsonl"]`, map[string]string{"in/a.jsonl": rowsOf("a", 50), "in/b.jsonl": rowsOf("b", 80)})
	if probs, _, err := runShards(t, cfg, 2); err != nil || len(probs) != 130 {
		t.Fatalf("first run: %d problems, %v", len(probs), err)
	}
	pattern, a, b := filepath.Join(dir, "in", "*.jsonl"), filepath.Join(dir, "in", "a.jsonl"), filepath.Join(dir, "in", "b.jsonl")
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	msg := staleMap(t, cfg, root, 2, "input path "+pattern+" matches other files now: 1 gone ("+b+")")
	if strings.Contains(msg, "input file "+b+" is gone") {
		t.Errorf("the gone file is named twice: %s", msg)
	}
	if probs := forceAll(t, cfg, root, 2); len(probs) != 50 {
		t.Errorf("after --force: %d problems, want 50", len(probs))
	}
	current(t, "after --force", cfg, root, 2)

	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	staleMap(t, cfg, root, 2, "input path "+pattern+" matches other files now: 1 gone ("+a+")")
	_, err := stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 2}, root, zerolog.Nop(), stage.Options{Force: true})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), `"in/*.jsonl" matched no files`) {
		t.Errorf("--force with no file left: %v; want exit 2 naming the pattern", err)
	}
}

// TestFileAddedToFolderIsStale: a source path naming a folder reads every
// file under it: one added in a subfolder, or one removed, makes the shard
// stale, naming the folder and the file.
func TestFileAddedToFolderIsStale(t *testing.T) {
	dir, cfg, root := listedRun(t, `[in]`, map[string]string{"in/a.jsonl": rowsOf("a", 5), "in/sub/b.jsonl": rowsOf("b", 7)})
	if probs, _, err := runShards(t, cfg, 1); err != nil || len(probs) != 12 {
		t.Fatalf("first run: %d problems, %v", len(probs), err)
	}
	folder := filepath.Join(dir, "in")
	current(t, "unchanged", cfg, root, 1)
	writeFile(t, filepath.Join(dir, "in", "sub", "c.jsonl"), rowsOf("c", 3))
	staleMap(t, cfg, root, 1, "input path "+folder+" matches other files now: 1 new (", "in/sub/c.jsonl)")
	if probs := forceAll(t, cfg, root, 1); len(probs) != 15 {
		t.Errorf("after --force: %d problems, want 15", len(probs))
	}
	current(t, "after --force", cfg, root, 1)
	if err := os.Remove(filepath.Join(dir, "in", "sub", "b.jsonl")); err != nil {
		t.Fatal(err)
	}
	staleMap(t, cfg, root, 1, "input path "+folder+" matches other files now: 1 gone (", "in/sub/b.jsonl)")
}

// TestManifestWithoutListingsIsNotStale: a manifest an older saber wrote
// records no listings: what its paths matched then is unknown, so a file
// added since is not compared (the shard stays current, as before);
// its recorded files are still compared by size.
func TestManifestWithoutListingsIsNotStale(t *testing.T) {
	dir, cfg, root := listedRun(t, `["in/*.jsonl"]`, map[string]string{"in/a.jsonl": rowsOf("a", 5)})
	if _, _, err := runShards(t, cfg, 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, ds := range []string{"ingest_rows", "ingest_problems", "ingest_spans"} {
		key := layout.DoneKey(cfg.Run, ds, shard.Spec{Index: 0, Count: 1})
		m, err := layout.ReadDone(ctx, root, key)
		if err != nil {
			t.Fatal(err)
		}
		m.Listings = nil
		if m.Digest, err = layout.Digest(m); err != nil {
			t.Fatal(err)
		}
		data, _ := json.MarshalIndent(m, "", "  ")
		if strings.Contains(string(data), "listings") {
			t.Fatalf("an empty listing is written: %s", data)
		}
		if _, err := store.Put(ctx, root, key, data, store.Replace); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "in", "b.jsonl"), rowsOf("b", 3))
	current(t, "old manifest, file added", cfg, root, 1)
	writeFile(t, filepath.Join(dir, "in", "a.jsonl"), rowsOf("a", 6))
	staleMap(t, cfg, root, 1, "input file "+filepath.Join(dir, "in", "a.jsonl")+" changed")
}
