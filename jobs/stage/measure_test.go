package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/shard"
)

// timedStage writes a result (`problems`, the same bytes every run) and a
// measurement (`timings`, other bytes every run, as a wall time has) per
// shard, then calls wrote (which may block) before RunShard writes the
// manifests, so a test can interleave two finishers of one shard.
func timedStage(wrote func()) (Stage, Step) {
	var n atomic.Int64
	step := Step{
		Name: "map", Outputs: []string{dataset.Problems.Name, dataset.Timings.Name}, Shards: func(*config.Config) int { return 1 },
		Run: func(ctx context.Context, env *Env) error {
			if err := WriteOutput(ctx, env, dataset.Problems, []dataset.Problem{{ID: "p"}}); err != nil {
				return err
			}
			secs := float64(n.Add(1))
			if err := WriteOutput(ctx, env, dataset.Timings, []dataset.Timing{{Retriever: "bm25", Query: "p", Seconds: secs}}); err != nil {
				return err
			}
			wrote()
			return nil
		},
	}
	return Stage{Name: "timed", Section: toySection, Steps: []Step{step}}, step
}

func storedSHA(t *testing.T, st store.Store, key string) string {
	t.Helper()
	data, err := store.ReadAll(context.Background(), st, key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestConcurrentFinishersOfAShard: two processes of one shard write their
// parts, then their manifests. The results match, the timings do not: the
// second finisher is accepted (completion does not compare measurements),
// every object the stored manifests name is stored with the bytes they
// say (each timings part has its own name, so the second's cannot replace
// the first's), and the second's unnamed timings part is removed.
func TestConcurrentFinishersOfAShard(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	st := store.NewMem()
	spec := shard.Spec{Index: 0, Count: 1}
	firstWrote := make(chan struct{})
	bothWrote := make(chan struct{})
	firstDone := make(chan struct{})
	var writers atomic.Int64
	stg, step := timedStage(func() {
		if writers.Add(1) == 1 {
			close(firstWrote)
			<-bothWrote // the first waits until the second has written its parts too
			return
		}
		close(bothWrote)
		<-firstDone // the second writes its manifests after the first's
	})
	errs := make(chan error, 2)
	go func() {
		_, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
		close(firstDone)
		errs <- err
	}()
	// The second starts once the first has written: which goroutine the
	// scheduler runs first must not decide which one is "the first".
	<-firstWrote
	go func() {
		_, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
		errs <- err
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a finisher failed: %v", err)
		}
	}
	named := map[string]bool{}
	for _, ds := range step.Outputs {
		m, err := layout.ReadDone(ctx, st, layout.DoneKey("r", ds, spec))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range m.Outputs {
			named[o.Key] = true
			if got := storedSHA(t, st, o.Key); got != o.SHA256 {
				t.Errorf("%s's manifest says %s has sha256 %s; stored: %s", ds, o.Key, o.SHA256, got)
			}
		}
	}
	parts, err := st.List(ctx, layout.DatasetPrefix("r", dataset.Timings.Name)+"part-")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || !named[parts[0].Key] || !strings.HasPrefix(parts[0].Key, "r/timings/part-00000-of-00001.") {
		t.Errorf("timings parts stored: %v; want only the one the manifests name, named by its hash", parts)
	}
}

// TestRedoDropsReplacedMeasurements: --force replaces the shard's
// manifests, and the timings part only the old ones named goes with them.
func TestRedoDropsReplacedMeasurements(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t, "")
	st := store.NewMem()
	spec := shard.Spec{Index: 0, Count: 1}
	stg, step := timedStage(func() {})
	for _, force := range []bool{false, true} {
		if _, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{Force: force}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := layout.ReadDone(ctx, st, layout.DoneKey("r", dataset.Timings.Name, spec))
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := st.List(ctx, layout.DatasetPrefix("r", dataset.Timings.Name)+"part-")
	if objs := m.Objects(dataset.Timings.Name); len(parts) != 1 || len(objs) != 1 || parts[0].Key != objs[0].Key {
		t.Errorf("after --force: timings parts %v, manifest names %v; want just the new one", parts, objs)
	}
}
