package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/shard"
)

// TestPipelineWithMSC2020 is the pipeline half of the MSC2020 bar: every
// stage, ingest to select, completes in process on 2,000 real MATH
// problems with MSC2020's top and second-level classes (JSKOS, 63 top
// classes as the domains, no keywords) as the ontology and the offline
// backends.
func TestPipelineWithMSC2020(t *testing.T) {
	math := mathDir(t)
	ctx := context.Background()
	dir := t.TempDir()
	input := filepath.Join(dir, "math.jsonl")
	in, err := os.Open(filepath.Join(math, "MATH_test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(input)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<24)
	for n := 0; n < 2000 && sc.Scan(); n++ {
		fmt.Fprintf(out, "%s\n", sc.Bytes())
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	onto, err := filepath.Abs("../../artifacts/ontology/testdata/msc2020-classes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, filepath.Join(dir, "data"), store.Options{})
	cfg, err := ParseConfig([]byte(fmt.Sprintf(`run: msc
root: %s
log: {progress_seconds: 0}
ingest: {sources: [{name: math, paths: [%s], license: MIT, fields: {id: unique_id, statement: problem, solution: solution, subject: type}}]}
benchmark: {k: 3, ontology: {file: %s}}
calibrate: {min_eligible: 5}
select: {per_domain: 5, allow_shortfall: true}
tag: {allow_label_only: true}
`, filepath.Join(dir, "data"), input, onto)))
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range Default().Nodes() {
		st, step := node.Stage, node.Step
		if st.Optional && (st.Enabled == nil || !st.Enabled(cfg)) {
			continue
		}
		n := step.Count(cfg)
		for i := 0; i < n; i++ {
			if _, err := stage.RunShard(ctx, cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
				t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
			}
		}
	}
	one := shard.Spec{Index: 0, Count: 1}
	rows, err := dataset.Read[dataset.TopicRow](ctx, root, layout.DataKey("msc", dataset.Topics.Name, one))
	if err != nil || len(rows) == 0 {
		t.Fatalf("topics: %d rows, %v", len(rows), err)
	}
	qs, err := dataset.Read[dataset.Query](ctx, root, layout.DataKey("msc", dataset.Queries.Name, one))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d documents tagged with MSC classes; %d queries selected", len(rows), len(qs))
}
