// Package stagestest runs stages in-process for tests: every shard of
// each selected step in turn, as a run would, without binaries.
package stagestest

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/shard"
)

// Run runs the stages list names (pipeline.Select's syntax; "" for all)
// of cfg's run in root, every shard of every step in turn, failing t on
// the first error.
func Run(t testing.TB, cfg *config.Config, root store.Store, list string) {
	t.Helper()
	sel, err := pipeline.Select(cfg, list)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sel {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				if _, err := stage.RunShard(context.Background(), cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
					t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
				}
			}
		}
	}
}
