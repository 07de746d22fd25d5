package judge_test

import (
	"context"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// TestDefaultJudgmentsUnchanged pins the bytes of `judgments` (and so of
// everything rate fits from them) as they were before the position audit
// and judge.both_orders existed, for the same seed, benchmark and judge:
// with both off — the default — the judge must write exactly these bytes.
func TestDefaultJudgmentsUnchanged(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	fj := &fakeJudge{seen: map[[32]byte]int{}}
	srv := llmtest.NewServer(t, fj.handle)
	cfg := setup(t, t.TempDir(), srv.URL, 5)
	if _, err := runStages(ctx, t, cfg, []stage.Stage{judge.Stage}); err != nil {
		t.Fatal(err)
	}
	got := hashes(ctx, t, cfg, dataset.Judgments.Name)
	want := map[string]string{
		"judgments/part-00000-of-00002.parquet": "fd017b66031d47d598db4e58b16985d67605477f012ba1d229131e8abf761d34",
		"judgments/part-00001-of-00002.parquet": "9b0a035310b5d95a58d2cf40737edaa4534a43eb757d25f2bd0237e377d5ee06",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: sha256 %s, want %s (the default judge's bytes changed)", k, got[k], v)
		}
	}
}
