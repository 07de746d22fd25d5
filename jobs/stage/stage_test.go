package stage

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/shard"
)

// countingStore counts every call that reads or writes an object.
type countingStore struct {
	store.Store
	opens, lists, creates, deletes atomic.Int64
}

func (c *countingStore) Open(ctx context.Context, key string) (store.Object, error) {
	c.opens.Add(1)
	return c.Store.Open(ctx, key)
}

func (c *countingStore) List(ctx context.Context, prefix string) ([]store.Info, error) {
	c.lists.Add(1)
	return c.Store.List(ctx, prefix)
}

func (c *countingStore) Create(ctx context.Context, key string, mode store.Mode) (store.Writer, error) {
	c.creates.Add(1)
	return c.Store.Create(ctx, key, mode)
}

func (c *countingStore) Delete(ctx context.Context, key string) error {
	c.deletes.Add(1)
	return c.Store.Delete(ctx, key)
}

func testStage(runs *atomic.Int64, fail error) (Stage, Step) {
	step := Step{
		Name: "map", Dataset: "problems", Shards: func(*config.Config) int { return 2 },
		Run: func(ctx context.Context, env *Env) error {
			runs.Add(1)
			if fail != nil {
				return fail
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			out, err := dataset.Problems.Write(ctx, env.Out, env.DataKey("problems"), []dataset.Problem{{ID: fmt.Sprint(env.Shard.Index)}})
			if err != nil {
				return err
			}
			env.AddOutput(out)
			env.Count("rows", 1)
			return nil
		},
	}
	return Stage{Name: "test", Steps: []Step{step}}, step
}

func testConfig(t *testing.T) *config.Config {
	cfg, err := config.Parse([]byte("run: r\nroot: mem\n"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestDoneShardIsSkippedWithoutIO(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	st := &countingStore{Store: store.NewMem()}
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	spec := shard.Spec{Index: 1, Count: 2}
	res, err := RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil || res.Skipped || res.Manifest == nil || res.Manifest.Rows != 1 || res.Manifest.Stats["rows"] != 1 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	if res.Manifest.ConfigHash != cfg.Hash() || res.Manifest.CodeVersion == "" || len(res.Manifest.Outputs) != 1 {
		t.Errorf("manifest %+v", res.Manifest)
	}
	st.opens.Store(0)
	st.creates.Store(0)
	st.lists.Store(0)
	res, err = RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{})
	if err != nil || !res.Skipped || runs.Load() != 1 {
		t.Fatalf("second run: %+v, %v, runs %d", res, err, runs.Load())
	}
	if st.opens.Load()+st.creates.Load()+st.lists.Load()+st.deletes.Load() != 0 {
		t.Errorf("a done shard read or wrote: %d opens, %d creates, %d lists", st.opens.Load(), st.creates.Load(), st.lists.Load())
	}
	// --force redoes it, removing the marker first and writing it again.
	res, err = RunShard(ctx, cfg, stg, step, spec, st, zerolog.Nop(), Options{Force: true})
	if err != nil || res.Skipped || runs.Load() != 2 || st.deletes.Load() != 1 {
		t.Fatalf("force: %+v, %v, runs %d", res, err, runs.Load())
	}
	if done, _ := layout.Done(ctx, st, layout.DoneKey("r", "problems", spec)); !done {
		t.Error("no marker after --force")
	}
}

func TestFailureAndInterruptLeaveNoMarker(t *testing.T) {
	tests := []struct {
		name     string
		fail     error
		cancel   bool
		wantCode int
	}{
		{"bad input", BadInput(errors.New("bad row")), false, ExitBadInput},
		{"bug", errors.New("boom"), false, ExitBug},
		{"signal", nil, true, ExitTempFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			st := store.NewMem()
			var runs atomic.Int64
			stg, step := testStage(&runs, tt.fail)
			spec := shard.Spec{Index: 0, Count: 2}
			_, err := RunShard(ctx, testConfig(t), stg, step, spec, st, zerolog.Nop(), Options{})
			if ExitCode(err) != tt.wantCode {
				t.Errorf("exit %d (%v), want %d", ExitCode(err), err, tt.wantCode)
			}
			if done, _ := layout.Done(context.Background(), st, layout.DoneKey("r", "problems", spec)); done {
				t.Error("failed shard has a completion marker")
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{errors.New("x"), ExitBug},
		{fmt.Errorf("wrap: %w", BadInput(errors.New("x"))), ExitBadInput},
		{&config.Error{Problems: []string{"x"}}, ExitBadInput},
		{&dataset.SchemaError{URI: "u", Column: "c"}, ExitBadInput},
		{&dataset.NotParquetError{URI: "u", Err: errors.New("x")}, ExitBadInput},
		{&layout.IncompleteError{Dataset: "d"}, ExitBadInput},
		{fmt.Errorf("x: %w", context.Canceled), ExitTempFail},
		{ErrInterrupted, ExitTempFail},
		{fmt.Errorf("document d: %w", fmt.Errorf("llm: chat: giving up after 8 attempts: %w (%w)", errors.New("HTTP 503"), llm.ErrExhausted)), ExitTempFail},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}

func TestUpstreamNeedsCompleteDataset(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(t)
	st := store.NewMem()
	var runs atomic.Int64
	stg, step := testStage(&runs, nil)
	if _, err := RunShard(ctx, cfg, stg, step, shard.Spec{Index: 0, Count: 2}, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	env := &Env{Config: cfg, In: st}
	_, err := env.Upstream(ctx, "problems")
	if ExitCode(err) != ExitBadInput {
		t.Fatalf("half-done upstream: %v", err)
	}
	if _, err := RunShard(ctx, cfg, stg, step, shard.Spec{Index: 1, Count: 2}, st, zerolog.Nop(), Options{}); err != nil {
		t.Fatal(err)
	}
	objs, err := env.Upstream(ctx, "problems")
	if err != nil || len(objs) != 2 || len(env.inputs) != 2 {
		t.Fatalf("Upstream = %v, %v", objs, err)
	}
}
