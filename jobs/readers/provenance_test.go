package readers

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/shard"
)

// TestReadProvenance: each distinct backend and model among the writing
// shards is named once, in shard order (a judge rerun on part of the
// queries with another model shows both); a manifest without
// <stage>.backend says it is not recorded and is not taken for offline.
func TestReadProvenance(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	judged := []map[string]string{
		{"judge.backend": `"llm"`, "llm.model": `"a"`},
		{"judge.backend": `"llm"`, "judge.llm.model": `"b"`, "llm.model": `"a"`},
		{"judge.backend": `"llm"`, "llm.model": `"a"`},
	}
	for i, cfg := range judged {
		spec := shard.Spec{Index: i, Count: len(judged)}
		o, err := dataset.Judgments.Write(ctx, root, layout.DataKey("r", dataset.Judgments.Name, spec), []dataset.Judgment{{Query: "q"}})
		if err != nil {
			t.Fatal(err)
		}
		m := &layout.Manifest{Stage: "judge", Step: "map", Run: "r", Dataset: dataset.Judgments.Name, Format: dataset.Judgments.Version,
			Shard: i, Shards: spec.Count, Rows: o.Rows, Outputs: []layout.Object{o}, Config: cfg}
		if err := layout.WriteDone(ctx, root, layout.DoneKey("r", dataset.Judgments.Name, spec), m); err != nil {
			t.Fatal(err)
		}
	}
	stagetest.PutOne(t, root, "r", dataset.Topics, []dataset.TopicRow{{ID: "d"}}) // no tag.backend recorded
	cfg, err := config.Parse([]byte("run: r\nroot: " + dir + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	st := stage.Stage{Name: "t", Steps: []stage.Step{{Name: "reduce", Inputs: []string{dataset.Topics.Name, dataset.Judgments.Name}}}}
	env := stage.NewEnv(cfg, st, st.Steps[0], shard.Spec{Index: 0, Count: 1}, root, root, zerolog.Nop())
	p, err := ReadProvenance(ctx, env, dataset.Topics.Name, dataset.Judgments.Name)
	if err != nil {
		t.Fatal(err)
	}
	want := []Labeller{{Labels: "topics", Stage: "tag"}, {Labels: "judgments", Stage: "judge", Backend: "llm", Model: "a"},
		{Labels: "judgments", Stage: "judge", Backend: "llm", Model: "b"}}
	if len(p.Labellers) != len(want) {
		t.Fatalf("labellers %+v, want %+v", p.Labellers, want)
	}
	for i := range want {
		if p.Labellers[i] != want[i] {
			t.Errorf("labeller %d: %+v, want %+v", i, p.Labellers[i], want[i])
		}
	}
	if p.Offline || p.Warning != "" ||
		p.Note != "Labels from: topics: backend not recorded (its manifests carry no tag.backend); judgments: judge llm backend, model a; judgments: judge llm backend, model b." {
		t.Errorf("provenance %+v", p)
	}
	if _, err := ReadProvenance(ctx, env, dataset.Summaries.Name); err == nil || !strings.Contains(err.Error(), "provenance of summaries") {
		t.Errorf("undeclared summaries: err %v", err)
	}
}
