// Package stagetest writes the datasets of a run as the stages do, for the
// tests of a stage that reads what another stage wrote: each part with its
// own completion manifest, so the stage under test finds complete inputs
// without running the stages before it.
package stagetest

import (
	"context"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

// Put writes rows as shard spec of a dataset of run (sorted by the
// dataset's key) with its completion manifest, and returns the part.
func Put[T any](t testing.TB, st store.Store, run string, ds dataset.Dataset[T], spec shard.Spec, rows []T) layout.Object {
	t.Helper()
	ctx := context.Background()
	o, err := ds.Write(ctx, st, layout.DataKey(run, ds.Name, spec), rows)
	if err != nil {
		t.Fatalf("write %s: %v", ds.Name, err)
	}
	o.Dataset = ds.Name
	m := &layout.Manifest{Stage: "test", Step: "map", Run: run, Dataset: ds.Name, Format: ds.Version,
		Shard: spec.Index, Shards: spec.Count, Rows: o.Rows, Outputs: []layout.Object{o}, Config: map[string]string{}}
	if err := layout.WriteDone(ctx, st, layout.DoneKey(run, ds.Name, spec), m); err != nil {
		t.Fatalf("write manifest of %s: %v", ds.Name, err)
	}
	return o
}

// PutOne is Put of the single shard 0/1.
func PutOne[T any](t testing.TB, st store.Store, run string, ds dataset.Dataset[T], rows []T) layout.Object {
	t.Helper()
	return Put(t, st, run, ds, shard.Spec{Index: 0, Count: 1}, rows)
}

// ReadAll reads every row of a dataset of run from its complete parts, in
// the order of their manifests: what a stage wrote, for a test to check.
func ReadAll[T any](t testing.TB, st store.Store, run string, ds dataset.Dataset[T]) []T {
	t.Helper()
	ctx := context.Background()
	ms, err := layout.Complete(ctx, st, run, ds.Name)
	if err != nil {
		t.Fatalf("manifests of %s: %v", ds.Name, err)
	}
	var out []T
	for _, m := range ms {
		for _, o := range m.Objects(ds.Name) {
			rows, err := dataset.Read[T](ctx, st, o.Key)
			if err != nil {
				t.Fatalf("read %s: %v", o.Key, err)
			}
			out = append(out, rows...)
		}
	}
	return out
}
