package stage

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/shard"
)

// listCounter counts List calls: each reading of a dataset's manifests
// lists its completion markers.
type listCounter struct {
	store.Store
	lists atomic.Int64
}

func (l *listCounter) List(ctx context.Context, prefix string) ([]store.Info, error) {
	l.lists.Add(1)
	return l.Store.List(ctx, prefix)
}

// TestSummarizerReadsOnce: a Summarizer reads a dataset's manifests once
// however many steps ask for its statistics, and not at all for one the
// caller already summed (Know), as `saber stats` does.
func TestSummarizerReadsOnce(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	var runs atomic.Int64
	st, step := testStage(&runs, nil)
	mem := store.NewMem()
	if _, err := RunShard(ctx, cfg, st, step, shard.Spec{Index: 0, Count: 1}, mem, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	root := &listCounter{Store: mem}
	sm := NewSummarizer(cfg, root)
	first := sm.Stats(ctx, "problems")
	if first["rows"] != 1 {
		t.Fatalf("stats of problems = %v, want rows 1", first)
	}
	read := root.lists.Load()
	if read == 0 {
		t.Fatal("Stats read no manifests")
	}
	if again := sm.Stats(ctx, "problems"); again["rows"] != 1 || root.lists.Load() != read {
		t.Errorf("a second Stats listed %d more times (stats %v)", root.lists.Load()-read, again)
	}
	if sm.Stats(ctx, "nothing") != nil {
		t.Error("stats of a dataset with no shards: want nil")
	}
	sm.Know("rejects", map[string]int64{"rows": 7})
	before := root.lists.Load()
	if got := sm.Stats(ctx, "rejects"); got["rows"] != 7 || root.lists.Load() != before {
		t.Errorf("a known dataset: stats %v after %d lists, want what Know gave and none", got, root.lists.Load()-before)
	}
}
