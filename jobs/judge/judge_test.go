package judge_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/rate"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`... so $\boxed{1}$`, 1},
		{`Sample 2 is closer.\n$\boxed{2}$`, 2},
		{`first \boxed{1} then on reflection \boxed{2}`, 2},
		{`\boxed {1}`, 1},
		{`\boxed{{2}}`, 2},
		{`\boxed{ 1 }`, 1},
		{`no verdict`, 0},
		{`\boxed{3}`, 0},
		{`\boxed{12}`, 0},
		{`boxed{1}`, 0},
	}
	for _, tt := range tests {
		if got := judge.ParseAnswer(tt.in); got != tt.want {
			t.Errorf("ParseAnswer(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// fakeJudge answers F.3 prompts the way a consistent judge would: the
// sample whose problem text has the larger latent score (a hash) wins.
// Answers whose prompt hashes into the bad fraction have no \boxed{}.
type fakeJudge struct {
	mu      sync.Mutex
	seen    map[[32]byte]int
	calls   atomic.Int64
	badFrac float64
	onCall  func(n int64)
}

func section(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

func latent(s string) uint64 {
	h := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(h[:8])
}

func (f *fakeJudge) handle(req llmtest.ChatRequest) string {
	u := req.Messages[len(req.Messages)-1].Content
	h := sha256.Sum256([]byte(u))
	f.mu.Lock()
	f.seen[h]++
	f.mu.Unlock()
	n := f.calls.Add(1)
	if f.onCall != nil {
		f.onCall(n)
	}
	if float64(latent(u)%1000) < f.badFrac*1000 {
		return "I cannot decide between these two."
	}
	a := section(u, "[Sample 1]\n- Problem: ", "\n- Correct Solution:")
	b := section(u, "[Sample 2]\n- Problem: ", "\n- Correct Solution:")
	if latent(a) > latent(b) {
		return "Profiles ... Sample 1 is closer.\n$\\boxed{1}$"
	}
	return "Profiles ... Sample 2 is closer.\n$\\boxed{2}$"
}

// setup runs ingest → select (offline) on a generated corpus and returns
// the config with the judge on the fake server.
func setup(t *testing.T, dir, url string, rounds int) *config.Config {
	t.Helper()
	input := filepath.Join(dir, "synth.jsonl")
	if _, err := os.Stat(input); err != nil {
		f, _ := os.Create(input)
		if err := synth.Write(f, synth.Config{N: 1500, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`run: j
root: %s/data
log: {progress_seconds: 0}
llm: {base_url: %q, model: fake-judge, api_key_env: SABER_TEST_JUDGE_KEY, timeout_seconds: 5, max_attempts: 8, concurrency: 6}
ingest: {sources: [{name: s, paths: [%s], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]}
calibrate: {min_eligible: 3}
select: {k: 3, per_domain: 3, allow_shortfall: true}
judge: {shards: 2, backend: llm, rounds: %d}
rate: {shards: 3}
`, dir, url, input, rounds)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func runStages(ctx context.Context, t *testing.T, cfg *config.Config, stages []stage.Stage) (map[string]string, error) {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	out := map[string]string{}
	for _, st := range stages {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				res, err := stage.RunShard(ctx, cfg, st, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{})
				if err != nil {
					return out, fmt.Errorf("%s %s %d/%d: %w", st.Name, step.Name, i, n, err)
				}
				if res.Manifest != nil {
					for _, o := range res.Manifest.Outputs {
						out[strings.TrimPrefix(o.Key, cfg.Run+"/")] = o.SHA256
					}
				}
			}
		}
	}
	return out, nil
}

// hashes returns the SHA-256 of every output of the datasets' manifests.
func hashes(ctx context.Context, t *testing.T, cfg *config.Config, datasets ...string) map[string]string {
	t.Helper()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	out := map[string]string{}
	for _, ds := range datasets {
		ms, err := layout.Complete(ctx, root, cfg.Run, ds)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			for _, o := range m.Outputs {
				out[strings.TrimPrefix(o.Key, cfg.Run+"/")] = o.SHA256
			}
		}
	}
	return out
}

func throughSelect(t *testing.T) []stage.Stage {
	for i, st := range pipeline.Stages {
		if st.Name == "select" {
			return pipeline.Stages[:i+1]
		}
	}
	t.Fatal("no select stage")
	return nil
}

// TestJudgeResumesWithoutRepeatingACall interrupts the judge (as USR1 or
// TERM does: the context ends) just after a round boundary and mid-round;
// the rerun resumes from the checkpoint and gives the bytes of an
// uninterrupted run, and across both runs the fake server answered every
// distinct prompt exactly once.
func TestJudgeResumesWithoutRepeatingACall(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	const rounds = 6
	judgeRate := []stage.Stage{judge.Stage, rate.Stage}

	refJ := &fakeJudge{seen: map[[32]byte]int{}}
	refSrv := llmtest.NewServer(t, refJ.handle)
	refDir := t.TempDir()
	refCfg := setup(t, refDir, refSrv.URL, rounds)
	if _, err := runStages(ctx, t, refCfg, throughSelect(t)); err != nil {
		t.Fatal(err)
	}
	want, err := runStages(ctx, t, refCfg, judgeRate)
	if err != nil {
		t.Fatal(err)
	}
	total := refJ.calls.Load()
	perRound := total / rounds
	if total == 0 || want["judgments/part-00000-of-00002.parquet"] == "" || want["ratings/part-00000-of-00003.parquet"] == "" {
		t.Fatalf("reference run: %d calls, outputs %v", total, want)
	}
	t.Logf("reference: %d calls over %d rounds", total, rounds)

	for _, stop := range []struct {
		name string
		at   int64
	}{{"after a round boundary", perRound*2 + 1}, {"mid-round", perRound*3 + perRound/2}} {
		t.Run(stop.name, func(t *testing.T) {
			fj := &fakeJudge{seen: map[[32]byte]int{}}
			srv := llmtest.NewServer(t, fj.handle)
			dir := t.TempDir()
			cfg := setup(t, dir, srv.URL, rounds)
			if _, err := runStages(ctx, t, cfg, throughSelect(t)); err != nil {
				t.Fatal(err)
			}
			ictx, cancel := context.WithCancel(ctx)
			fj.onCall = func(n int64) {
				if n == stop.at {
					cancel()
				}
			}
			_, err := runStages(ictx, t, cfg, judgeRate)
			if err == nil || stage.ExitCode(err) != stage.ExitTempFail {
				t.Fatalf("interrupted judge: err %v (exit %d), want exit 75", err, stage.ExitCode(err))
			}
			cancel()
			fj.onCall = nil
			before := fj.calls.Load()
			if _, err := runStages(ctx, t, cfg, judgeRate); err != nil {
				t.Fatal(err)
			}
			got := hashes(ctx, t, cfg, "judgments", "ratings")
			for k, v := range want {
				if strings.HasPrefix(k, "judgments/") || strings.HasPrefix(k, "ratings/") {
					if got[k] != v {
						t.Errorf("%s: resumed %s, uninterrupted %s", k, got[k], v)
					}
				}
			}
			for h, n := range fj.seen {
				if n != 1 {
					t.Errorf("prompt %x answered %d times", h[:6], n)
				}
			}
			if fj.calls.Load() != total {
				t.Errorf("calls: %d before the stop + %d after = %d, uninterrupted %d", before, fj.calls.Load()-before, fj.calls.Load(), total)
			}
			root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
			if left, _ := root.List(ctx, "j/_checkpoints/"); len(left) != 0 {
				t.Errorf("checkpoints left after the shard finished: %v", left)
			}
		})
	}
}

// TestJudgeUnderFaults: 10% transport faults and 10% answers without a
// verdict: the run completes, invalid judgments are kept and counted, and
// every candidate has a rating.
func TestJudgeUnderFaults(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	fj := &fakeJudge{seen: map[[32]byte]int{}, badFrac: 0.10}
	srv := llmtest.NewServer(t, fj.handle)
	srv.SetFaults(llmtest.Faults{Rate: 0.10, Seed: 5, RetryAfterSeconds: 1})
	dir := t.TempDir()
	cfg := setup(t, dir, srv.URL, 4)
	if _, err := runStages(ctx, t, cfg, throughSelect(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := runStages(ctx, t, cfg, []stage.Stage{judge.Stage, rate.Stage}); err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	ms, err := layout.Complete(ctx, root, "j", "judgments")
	if err != nil {
		t.Fatal(err)
	}
	var invalid, judgments, retries int64
	for _, m := range ms {
		invalid += m.Stats["invalid"]
		judgments += m.Stats["judgments"]
		retries += m.Stats["llm_retries"]
	}
	if invalid == 0 || invalid > judgments/4 || retries == 0 {
		t.Errorf("manifests: %d invalid of %d judgments, %d retries; want some invalid (about 10%%) and retries", invalid, judgments, retries)
	}
	var rowsInvalid int64
	for _, m := range ms {
		for _, o := range m.Outputs {
			if strings.Contains(o.Key, "/judgments/") {
				rows, _ := dataset.Read[dataset.Judgment](ctx, root, o.Key)
				for _, r := range rows {
					if r.Invalid {
						rowsInvalid++
						if r.Winner != "" || r.Reason != judge.ReasonUnparseable || r.Asks != 3 {
							t.Errorf("invalid judgment %+v: want no winner, reason unparseable, 3 asks", r)
						}
					}
				}
			}
		}
	}
	if rowsInvalid != invalid {
		t.Errorf("%d invalid rows, manifests say %d", rowsInvalid, invalid)
	}
	cands := map[[2]string]bool{}
	cm, _ := layout.Complete(ctx, root, "j", "candidates")
	for _, m := range cm {
		for _, o := range m.Outputs {
			if strings.Contains(o.Key, "/candidates/") {
				rows, _ := dataset.Read[dataset.Candidate](ctx, root, o.Key)
				for _, r := range rows {
					cands[[2]string{r.Query, r.Doc}] = true
				}
			}
		}
	}
	rm, _ := layout.Complete(ctx, root, "j", "ratings")
	rated := 0
	for _, m := range rm {
		rows, _ := dataset.Read[dataset.Rating](ctx, root, m.Outputs[0].Key)
		for _, r := range rows {
			if !cands[[2]string{r.Query, r.Doc}] || r.Rating < 0 || r.Rating > 5 {
				t.Errorf("rating %+v: not a candidate or out of [0, 5]", r)
			}
			rated++
		}
	}
	if rated != len(cands) || rated == 0 {
		t.Errorf("%d ratings for %d candidates", rated, len(cands))
	}
}
