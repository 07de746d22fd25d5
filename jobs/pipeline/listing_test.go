package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/shard"
)

// TestFileAddedUnderGlobIsStaleInThePlan is the audit's case through the
// planner that `saber status`, `saber run --dry-run` and `saber run` use:
// after a finished ingest, a file added under its source's glob makes
// every ingest map shard stale (the dry run refuses, naming the pattern
// and the file, instead of "0 shards would run"), and --rerun-stale's
// invalidation recomputes ingest with every row; the run is then current.
func TestFileAddedUnderGlobIsStaleInThePlan(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rows := func(name, prefix string, n int) {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `{"uid": "%s%d", "statement": "Find %s%d.", "solution": "x = %d."}`+"\n", prefix, i, prefix, i, i)
		}
		if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "in", name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows("a.jsonl", "a", 50)
	cfg, err := ParseConfig([]byte(fmt.Sprintf("run: g\nroot: %s/data\nlog: {progress_seconds: 0}\ningest:\n  shards: 2\n  sources: [{name: s, paths: [%s/in/*.jsonl], fields: {id: uid}}]\n", dir, dir)))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	sel, err := Select(cfg, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	runAll := func() map[string]int {
		t.Helper()
		ran := map[string]int{}
		for _, st := range sel {
			for _, step := range st.Steps {
				n := step.Count(cfg)
				for i := 0; i < n; i++ {
					res, err := stage.RunShard(ctx, cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
					if err != nil {
						t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
					}
					if !res.Skipped {
						ran[st.Name+" "+step.Name]++
					}
				}
			}
		}
		return ran
	}
	problems := func() int {
		t.Helper()
		ps, err := dataset.Read[dataset.Problem](ctx, root, layout.DataKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1}))
		if err != nil {
			t.Fatal(err)
		}
		return len(ps)
	}
	dryRun := func(rerun Rerun) (*DryRunResult, string) {
		t.Helper()
		res, err := DryRun(ctx, cfg, sel, rerun, false)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		res.Print(&out)
		return res, out.String()
	}
	runAll()
	if n := problems(); n != 50 {
		t.Fatalf("first run: %d problems", n)
	}
	if res, out := dryRun(Rerun{}); res.Refusal != nil || !strings.Contains(out, "dry run: 0 shards would run") {
		t.Fatalf("unchanged: %v\n%s", res.Refusal, out)
	}

	rows("b.jsonl", "b", 80)
	pattern, b := filepath.Join(dir, "in", "*.jsonl"), filepath.Join(dir, "in", "b.jsonl")
	res, out := dryRun(Rerun{Command: "saber run --config run.yaml"})
	if res.Refusal == nil || stage.ExitCode(res.Refusal) != stage.ExitBadInput {
		t.Fatalf("file added: refusal %v, want the stale refusal (exit 2)\n%s", res.Refusal, out)
	}
	for _, want := range []string{"input path " + pattern + " matches other files now: 1 new (" + b + ")", "--rerun-stale"} {
		if !strings.Contains(out+res.Refusal.Error(), want) {
			t.Errorf("dry run lacks %q:\n%s\n%v", want, out, res.Refusal)
		}
	}
	for _, d := range res.Steps {
		if d.Name == "ingest map" && fmt.Sprint(d.Stale) != "[0 1]" {
			t.Errorf("ingest map stale shards %v, want [0 1]", d.Stale)
		}
	}
	if res, _ := dryRun(Rerun{Stale: true}); fmt.Sprint(res.Steps[0].Run, res.Steps[1].Run) != "[0 1] [0]" {
		t.Errorf("--rerun-stale dry run: runs %v %v", res.Steps[0].Run, res.Steps[1].Run)
	}

	// --rerun-stale: the invalidation saber run makes, then the shards.
	if err := graph.Prepare(ctx, graph.NewPlanner(cfg, root), graph.NodesOf(sel), Rerun{Stale: true}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if ran := runAll(); fmt.Sprint(ran) != "map[ingest map:2 ingest reduce:1]" {
		t.Errorf("--rerun-stale ran %v", ran)
	}
	if n := problems(); n != 130 {
		t.Errorf("after --rerun-stale: %d problems, want 130", n)
	}
	if res, out := dryRun(Rerun{}); res.Refusal != nil || !strings.Contains(out, "dry run: 0 shards would run") {
		t.Errorf("after --rerun-stale: %v\n%s", res.Refusal, out)
	}
}
