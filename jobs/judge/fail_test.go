package judge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/shard"
)

// runShard0 runs judge's shard 0 of 2 and returns the root, the number
// of queries in the shard and the shard's error.
func runShard0(t *testing.T, srv *llmtest.Server, rounds int) (store.Store, int, error) {
	t.Helper()
	ctx := context.Background()
	cfg := setup(t, t.TempDir(), srv.URL, rounds)
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	spec := shard.Spec{Index: 0, Count: 2}
	_, err := stage.RunShard(ctx, cfg, judge.Stage, judge.Stage.Steps[0], spec, root, zerolog.Nop(), stage.Options{})
	env := stage.NewEnv(cfg, judge.Stage, judge.Stage.Steps[0], spec, root, root, zerolog.Nop())
	qs, _, qerr := readers.RangeQueries(ctx, env, spec)
	if qerr != nil {
		t.Fatal(qerr)
	}
	return root, len(qs), err
}

// noOutputs fails unless shard 0/2 left no manifest, no part and no
// checkpoint.
func noOutputs(t *testing.T, root store.Store) {
	t.Helper()
	ctx := context.Background()
	spec := shard.Spec{Index: 0, Count: 2}
	for _, k := range stage.DoneKeys("j", judge.Stage.Steps[0], spec) {
		if done, err := layout.Done(ctx, root, k); err != nil || done {
			t.Errorf("manifest %s written (%v)", k, err)
		}
	}
	for _, p := range []string{"j/judgments/", "j/judge_timings/", layout.CheckpointPrefix("j", "judge", spec) + "/"} {
		if left, _ := root.List(ctx, p); len(left) != 0 {
			t.Errorf("%s: left %v", p, left)
		}
	}
}

// TestJudgeNeverBoxedFails: a judge model that never writes \boxed{} made
// every judgment invalid, all-zero ratings and exit 0. Now the shard stops
// after round 1 (not after paying for every round) with exit 2 and a
// message naming the invalid share, judge.max_invalid_share and a sample
// answer; it writes no manifest, no output and leaves no checkpoint.
func TestJudgeNeverBoxedFails(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	srv := llmtest.NewServer(t, func(llmtest.ChatRequest) string { return "Both samples are about algebra; I cannot choose." })
	root, nq, err := runShard0(t, srv, 5)
	if stage.ExitCode(err) != stage.ExitBadInput {
		t.Fatalf("err = %v (exit %d); want exit 2", err, stage.ExitCode(err))
	}
	for _, w := range []string{"judgments invalid (100.0%)", "judge.max_invalid_share = 0.5", "round 1: unparseable", `"Both samples are about algebra`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
	// Round 1 pairs 9 candidates into 4 matches per query; each asked
	// three times (parse_retries 2). Nothing of round 2 was asked.
	if got, max := srv.Requests(), int64(nq*4*3); got == 0 || got > max {
		t.Errorf("%d requests; want round 1's, at most %d", got, max)
	}
	noOutputs(t, root)
}

// TestJudgeStopsOnRefusedKey: a 401 stops the judge at once (exit 2,
// naming llm.api_key_env) instead of recording every comparison as a
// refused, invalid judgment.
func TestJudgeStopsOnRefusedKey(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "sk-wrong")
	srv := llmtest.NewServer(t, func(llmtest.ChatRequest) string { return `\boxed{1}` })
	srv.RequireAPIKey("sk-right")
	root, _, err := runShard0(t, srv, 3)
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), "llm.api_key_env") {
		t.Fatalf("err = %v (exit %d); want exit 2 naming llm.api_key_env", err, stage.ExitCode(err))
	}
	if srv.Requests() > 6 { // llm.concurrency in setup
		t.Errorf("%d requests; want at most one per worker", srv.Requests())
	}
	noOutputs(t, root)
}
