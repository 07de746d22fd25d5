package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

// TestVerifyStoredExitCodes: `saber verify --stored` exits 0 on a run
// whose manifests and objects match, and 2 — bad data, not a bug (1) —
// when a stored object differs from its manifest or a manifest was edited
// (rows), naming the manifest and the command that redoes its shard.
func TestVerifyStoredExitCodes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(cfg, []byte("run: r\nroot: data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, filepath.Join(dir, "data"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one := shard.Spec{Index: 0, Count: 1}
	part := layout.DataKey("r", "corpus", one)
	data := []byte("the part's bytes")
	if _, err := store.Put(ctx, root, part, data, store.Replace); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	key := layout.DoneKey("r", "corpus", one)
	m := &layout.Manifest{Stage: "dedup", Step: "reduce", Run: "r", Dataset: "corpus", Shard: 0, Shards: 1, Rows: 5,
		Outputs: []layout.Object{{Key: part, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data)), Rows: 5}}}
	if err := layout.WriteDone(ctx, root, key, m); err != nil {
		t.Fatal(err)
	}
	verify := func() (int, string) {
		var out strings.Builder
		code := cmdVerify(ctx, []string{"--config", cfg, "--stored"}, &out, &out)
		return code, out.String()
	}
	if code, out := verify(); code != 0 {
		t.Fatalf("intact run: exit %d\n%s", code, out)
	}

	partFile := filepath.Join(dir, "data", filepath.FromSlash(part))
	if err := os.WriteFile(partFile, []byte("other bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(); code != 2 || !strings.Contains(out, "STORED   "+part) {
		t.Errorf("changed object: exit %d, want 2 with a STORED line\n%s", code, out)
	}
	if err := os.WriteFile(partFile, data, 0o644); err != nil {
		t.Fatal(err)
	}

	manifest := filepath.Join(dir, "data", filepath.FromSlash(key))
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), `"rows": 5,`, `"rows": 50,`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(); code != 2 || !strings.Contains(out, "DAMAGED  manifest "+root.URI(key)) ||
		!strings.Contains(out, "bin/dedup --config "+cfg+" --reduce --force") {
		t.Errorf("edited rows: exit %d, want 2 naming the manifest and its redo\n%s", code, out)
	}
}
