package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

// BenchmarkIngestJSONL is one map shard's throughput over the generated
// corpus as JSONL (make bench's ingest row; goal ≥ 50 MB/s per core): read,
// parse and judge every row, and write the staging parts. A map shard is
// one goroutine, so MB/s is per core.
func BenchmarkIngestJSONL(b *testing.B) {
	var gen bytes.Buffer
	if err := synth.Write(&gen, synth.Config{N: 20000, Seed: 1, DupFrac: synth.DefaultDupFrac}); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "synth.jsonl"), gen.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	y := "run: b\nroot: data\nlog: {progress_seconds: 0}\ningest:\n  sources:\n" +
		"    - {name: synth, paths: [synth.jsonl], fields: {id: id, subject: domain, source: source}}\n"
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(p, Section)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(gen.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{Force: true}); err != nil {
			b.Fatal(err)
		}
	}
}
