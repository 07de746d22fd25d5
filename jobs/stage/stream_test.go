package stage

import (
	"bytes"
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// TestStreamOutputWritesAsWriteOutput: a part streamed (StreamOutput) has
// the bytes of the same rows written whole (WriteOutput), with the
// dataset's own options — a staging dataset's fast codec included.
func TestStreamOutputWritesAsWriteOutput(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	rows := []dataset.IngestSpan{{Source: 0, File: 0, Name: "a.jsonl", End: 10, Size: 10, Lines: 2}, {Source: 0, File: 1, Name: "b.jsonl", End: 7, Size: 7, Lines: 1}}
	if !dataset.IngestSpans.Staging {
		t.Fatal("the test needs a staging dataset")
	}
	write := func(stream bool) []byte {
		step := Step{Name: "map", Outputs: []string{dataset.IngestSpans.Name}, Shards: func(*config.Config) int { return 1 },
			Run: func(ctx context.Context, env *Env) error {
				if !stream {
					return WriteOutput(ctx, env, dataset.IngestSpans, rows)
				}
				w, err := StreamOutput(ctx, env, dataset.IngestSpans)
				if err != nil {
					return err
				}
				if err := w.Write(rows...); err != nil {
					w.Abort()
					return err
				}
				_, err = w.Close()
				return err
			}}
		st := Stage{Name: "test", Section: toySection, Steps: []Step{step}}
		mem := store.NewMem()
		if _, err := RunShard(ctx, cfg, st, step, shard.Spec{Index: 0, Count: 1}, mem, zerolog.Nop(), Options{}); err != nil {
			t.Fatal(err)
		}
		b, err := store.ReadAll(ctx, mem, layout.DataKey(cfg.Run, dataset.IngestSpans.Name, shard.Spec{Index: 0, Count: 1}))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if whole, streamed := write(false), write(true); !bytes.Equal(whole, streamed) {
		t.Errorf("streamed part (%d bytes) differs from the part written whole (%d bytes)", len(streamed), len(whole))
	}
}
