package judge_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/readers"
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

// biasedJudge answers Sample 1 in exactly a share first of its calls
// (call n says 1 when ⌊first·n⌋ steps up), whatever the samples: a judge
// with nothing but position bias. first < 0 makes it the consistent
// content judge of fakeJudge instead.
type biasedJudge struct {
	first float64
	fj    fakeJudge
}

func (b *biasedJudge) handle(req llmtest.ChatRequest) string {
	if b.first < 0 {
		return b.fj.handle(req)
	}
	b.fj.handle(req) // counts the call and the prompt
	n := float64(b.fj.calls.Load())
	if math.Floor(b.first*n) > math.Floor(b.first*(n-1)) {
		return "Sample 1.\n$\\boxed{1}$"
	}
	return "Sample 2.\n$\\boxed{2}$"
}

func setupJudge(t *testing.T, url, judgeYAML string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(fmt.Sprintf(`run: j
root: %s/data
log: {progress_seconds: 0}
llm: {base_url: %q, model: fake-judge, api_key_env: SABER_TEST_JUDGE_KEY, timeout_seconds: 5, max_attempts: 8, concurrency: 6}
judge: {shards: 2, backend: llm, %s}
`, t.TempDir(), url, judgeYAML)), judge.Section)
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(context.Background(), cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	benchmark(t, root, cfg.Run)
	return cfg
}

// TestPositionAuditRecoversBias: a judge that prefers Sample 1 in 70% of
// comparisons is reported at 0.70 with a Wilson interval that contains it,
// whether the audit re-judges every comparison swapped (position_audit: 1)
// or the tournament judges both orders; a judge of content alone is
// reported at 0.5 and fully self-consistent; one always answering Sample 1
// at 1 and never consistent.
func TestPositionAuditRecoversBias(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	for _, tt := range []struct {
		name, yaml         string
		first              float64 // the judge's share of Sample 1 answers; < 0: content only
		wantFirst, wantCon float64 // reported first-position wins and self-consistency; NaN: any
	}{
		{"position_audit 1, 70% Sample 1", "rounds: 5, position_audit: 1", 0.70, 0.70, math.NaN()},
		{"both_orders, 70% Sample 1", "rounds: 5, both_orders: true", 0.70, 0.70, math.NaN()},
		{"position_audit 1, content only", "rounds: 5, position_audit: 1", -1, 0.5, 1},
		{"both_orders, always Sample 1", "rounds: 5, both_orders: true", 1, 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bj := &biasedJudge{first: tt.first, fj: fakeJudge{seen: map[[32]byte]int{}}}
			srv := llmtest.NewServer(t, bj.handle)
			cfg := setupJudge(t, srv.URL, tt.yaml)
			if _, err := runStages(ctx, t, cfg, []stage.Stage{judge.Stage}); err != nil {
				t.Fatal(err)
			}
			root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
			js := readAll[dataset.Judgment](ctx, t, root, "j", dataset.Judgments.Name)
			rows := readAll[dataset.JudgeAuditRow](ctx, t, root, "j", dataset.JudgeAudit.Name)
			wantRows := len(js)
			if strings.Contains(tt.yaml, "both_orders") {
				wantRows = len(js) / 2
			}
			if len(rows) == 0 || len(rows) != wantRows {
				t.Fatalf("%d audit rows for %d judgments, want %d", len(rows), len(js), wantRows)
			}
			sum := readers.SummarizeAudit(rows, nil)
			o := sum.Overall()
			fw := o.FirstWins
			t.Logf("first-position wins %.3f [%.3f, %.3f] of %d; consistency %.3f of %d", fw.P, fw.Lo, fw.Hi, fw.N, o.Consistent.P, o.Consistent.N)
			// ±1 call of the 70% sequence over a few hundred.
			if fw.N != 2*len(rows) || math.Abs(fw.P-tt.wantFirst) > 0.005 || !(fw.Lo <= tt.wantFirst && tt.wantFirst <= fw.Hi) {
				t.Errorf("first-position wins %.4f [%.3f, %.3f] of %d verdicts, want %.2f inside the interval, of %d", fw.P, fw.Lo, fw.Hi, fw.N, tt.wantFirst, 2*len(rows))
			}
			if !math.IsNaN(tt.wantCon) && o.Consistent.P != tt.wantCon {
				t.Errorf("self-consistency %.3f, want %.2f", o.Consistent.P, tt.wantCon)
			}
			md := sum.Markdown()
			if biased := tt.wantFirst > 0.5; biased != strings.Contains(md, "favours the first position") {
				t.Errorf("biased %v, but the report says:\n%s", biased, md)
			}
		})
	}
}

// TestAuditAndBothOrdersResume: the position audit's sample is the share
// asked for, and both features replay like every judgment: a run stopped
// mid-audit, or mid-round of a both-orders tournament, resumes to the
// bytes of an uninterrupted run with no prompt answered twice (the
// tournament's rounds from the checkpoint, the rest from the LLM cache).
func TestAuditAndBothOrdersResume(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	const yamlAudit, yamlBoth = "rounds: 4, position_audit: 0.3", "rounds: 4, both_orders: true"
	for _, tt := range []struct {
		name, yaml string
		// stop is the call to stop at, from the reference run's calls
		// and audit rows.
		stop func(calls, audited int64) int64
	}{
		{"mid-audit", yamlAudit, func(calls, audited int64) int64 { return calls - audited + audited/2 }},
		{"both orders, mid-round", yamlBoth, func(calls, _ int64) int64 { return calls/4*2 + calls/8 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ref := &fakeJudge{seen: map[[32]byte]int{}}
			refSrv := llmtest.NewServer(t, ref.handle)
			refCfg := setupJudge(t, refSrv.URL, tt.yaml)
			if _, err := runStages(ctx, t, refCfg, []stage.Stage{judge.Stage}); err != nil {
				t.Fatal(err)
			}
			want := hashes(ctx, t, refCfg, dataset.Judgments.Name, dataset.JudgeAudit.Name)
			root, _ := store.Open(ctx, refCfg.RootURI(), store.Options{})
			js := readAll[dataset.Judgment](ctx, t, root, "j", dataset.Judgments.Name)
			audit := readAll[dataset.JudgeAuditRow](ctx, t, root, "j", dataset.JudgeAudit.Name)
			if tt.yaml == yamlAudit {
				if share := float64(len(audit)) / float64(len(js)); share < 0.22 || share > 0.38 {
					t.Errorf("%d of %d comparisons audited (%.2f), want about 0.3", len(audit), len(js), share)
				}
				for _, r := range audit {
					if !judge.Audited(refCfg.Seed, r.Query, r.Round, r.Match, 0.3) {
						t.Errorf("audited %s round %d match %d is not in the seeded sample", r.Query, r.Round, r.Match)
					}
					if r.Source != judge.AuditSample || !r.Consistent || r.Domain == "" {
						t.Errorf("audit row %+v: want source sample, consistent (the content judge), a domain", r)
					}
				}
			} else {
				for _, r := range audit {
					if r.Source != judge.AuditBothOrders || !r.Consistent {
						t.Errorf("audit row %+v: want source both_orders, consistent", r)
					}
				}
			}

			fj := &fakeJudge{seen: map[[32]byte]int{}}
			srv := llmtest.NewServer(t, fj.handle)
			cfg := setupJudge(t, srv.URL, tt.yaml)
			ictx, cancel := context.WithCancel(ctx)
			at := tt.stop(ref.calls.Load(), int64(len(audit)))
			fj.onCall = func(n int64) {
				if n == at {
					cancel()
				}
			}
			_, err := runStages(ictx, t, cfg, []stage.Stage{judge.Stage})
			cancel()
			if stage.ExitCode(err) != stage.ExitTempFail {
				t.Fatalf("stopped at call %d of %d: err %v, want exit 75", at, ref.calls.Load(), err)
			}
			fj.onCall = nil
			if _, err := runStages(ctx, t, cfg, []stage.Stage{judge.Stage}); err != nil {
				t.Fatal(err)
			}
			got := hashes(ctx, t, cfg, dataset.Judgments.Name, dataset.JudgeAudit.Name)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: resumed %s, uninterrupted %s", k, got[k], v)
				}
			}
			for h, n := range fj.seen {
				if n != 1 {
					t.Errorf("prompt %x answered %d times", h[:6], n)
				}
			}
			if fj.calls.Load() != ref.calls.Load() {
				t.Errorf("%d calls over both runs, uninterrupted %d", fj.calls.Load(), ref.calls.Load())
			}
		})
	}
}
