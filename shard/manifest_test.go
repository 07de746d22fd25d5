package shard

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/store"
)

func TestManifestWriteOnceAndComplete(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	m := &Manifest{Stage: "ingest", Run: "r", Shard: 0, Shards: 2, Outputs: []Object{{Key: "r/problems/part-00000-of-00002.parquet", SHA256: "aa"}}}
	key := DoneKey("r", "problems", m.Spec())
	if done, _ := Done(ctx, st, key); done {
		t.Fatal("done before writing")
	}
	if err := WriteDone(ctx, st, key, m); err != nil {
		t.Fatal(err)
	}
	// A second finisher with the same outputs is accepted; with other outputs it is an error.
	if err := WriteDone(ctx, st, key, m); err != nil {
		t.Fatalf("same outputs: %v", err)
	}
	other := *m
	other.Outputs = []Object{{Key: m.Outputs[0].Key, SHA256: "bb"}}
	if err := WriteDone(ctx, st, key, &other); err == nil {
		t.Fatal("different outputs accepted")
	}
	_, err := Complete(ctx, st, "r", "problems")
	var inc *IncompleteError
	if !errors.As(err, &inc) || !strings.Contains(err.Error(), "missing [1]") {
		t.Fatalf("Complete with one of two shards: %v", err)
	}
	m1 := *m
	m1.Shard = 1
	if err := WriteDone(ctx, st, DoneKey("r", "problems", m1.Spec()), &m1); err != nil {
		t.Fatal(err)
	}
	ms, err := Complete(ctx, st, "r", "problems")
	if err != nil || len(ms) != 2 || ms[0].Shard != 0 || ms[1].Shard != 1 {
		t.Fatalf("Complete = %v, %v", ms, err)
	}
	// A stale manifest of another shard count makes the set ambiguous.
	m3 := *m
	m3.Shards = 3
	if err := WriteDone(ctx, st, DoneKey("r", "problems", m3.Spec()), &m3); err != nil {
		t.Fatal(err)
	}
	if _, err := Complete(ctx, st, "r", "problems"); !errors.As(err, &inc) {
		t.Fatalf("mixed shard counts: %v", err)
	}
	if _, err := Complete(ctx, st, "r", "nothing"); !errors.As(err, &inc) {
		t.Fatalf("empty dataset: %v", err)
	}
}
