package stagetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

// PutBy is PutOne as stage st writes the dataset, with the config its
// manifest records: values given as plain strings ("llm", "model-x") are
// recorded JSON-encoded, as a stage's manifest records them, for tests of
// what reads the writers' manifests (the provenance of labels).
func PutBy[T any](t testing.TB, s store.Store, run string, ds dataset.Dataset[T], st string, cfg map[string]string, rows []T) layout.Object {
	t.Helper()
	ctx := context.Background()
	spec := shard.Spec{Index: 0, Count: 1}
	o, err := ds.Write(ctx, s, layout.DataKey(run, ds.Name, spec), rows)
	if err != nil {
		t.Fatalf("write %s: %v", ds.Name, err)
	}
	o.Dataset = ds.Name
	values := map[string]string{}
	for k, v := range cfg {
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		values[k] = string(js)
	}
	m := &layout.Manifest{Stage: st, Step: "map", Run: run, Dataset: ds.Name, Format: ds.Version,
		Shard: spec.Index, Shards: spec.Count, Rows: o.Rows, Outputs: []layout.Object{o}, Config: values}
	if err := layout.WriteDone(ctx, s, layout.DoneKey(run, ds.Name, spec), m); err != nil {
		t.Fatalf("write manifest of %s: %v", ds.Name, err)
	}
	return o
}
