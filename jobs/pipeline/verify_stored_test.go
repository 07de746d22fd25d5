package pipeline

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

// TestVerifyStoredRefusesAnEditedManifest: `saber verify --stored` checks
// each manifest's own digest, not only the objects it names: a hand-edited
// rows count is reported as a damaged manifest, with the command that
// redoes its shard, though every object still matches.
func TestVerifyStoredRefusesAnEditedManifest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg, err := ParseConfig([]byte("run: r\nroot: " + dir + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, dir, store.Options{})
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
	checks, err := VerifyStored(ctx, cfg)
	if err != nil || len(checks) != 1 || !checks[0].OK() {
		t.Fatalf("intact run: %+v, %v", checks, err)
	}

	file := filepath.Join(dir, filepath.FromSlash(key))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"rows": 5,`, `"rows": 6,`, 1)
	if edited == string(b) {
		t.Fatal("no rows field to edit")
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	checks, err = VerifyStored(ctx, cfg)
	if err != nil || len(checks) != 1 || checks[0].OK() || checks[0].Damaged == nil {
		t.Fatalf("edited rows: %+v, %v; want one damaged manifest", checks, err)
	}
	ExplainDamaged(checks[0].Damaged, "/x/run.yaml")
	var out strings.Builder
	if PrintStored(&out, checks) {
		t.Error("PrintStored reports an edited manifest as matching")
	}
	if s := out.String(); !strings.Contains(s, "DAMAGED  manifest "+root.URI(key)) || !strings.Contains(s, "bin/dedup --config /x/run.yaml --reduce --force") {
		t.Errorf("report does not name the manifest and its redo:\n%s", s)
	}
}
