package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
// one goroutine, but the garbage collector works beside it on another
// core: MB/s is wall time, and MB/cpu-s (input MB per CPU second of the
// whole process, user + system) is the figure per core, which also holds
// on a loaded machine where wall time does not.
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
	cpu0 := processCPU()
	var staged int64
	for i := 0; i < b.N; i++ {
		res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{Force: true})
		if err != nil {
			b.Fatal(err)
		}
		staged = 0
		for _, o := range res.Outputs {
			staged += o.Size
		}
	}
	if cpu := (processCPU() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(b.N)*float64(gen.Len())/1e6/cpu, "MB/cpu-s")
	}
	b.ReportMetric(float64(staged)/1e6, "MB-staged")
}

// processCPU is the process's user + system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
