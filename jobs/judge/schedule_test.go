package judge_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// The schedulers under test, sized for the test benchmark's 9 candidates a
// query: small enough that the adaptive ones stop and pair by information
// within 8 rounds.
var testSchedulers = []struct{ name, yaml string }{
	{"swiss", ""},
	{"swiss-adaptive", "scheduler: {kind: swiss-adaptive, top_k: 3, stable_rounds: 1, min_rounds: 2}"},
	{"active", "scheduler: {kind: active, top_k: 3, stable_rounds: 2, min_rounds: 5, swiss_rounds: 2, matches: 3, per_candidate: 2}"},
	// Both orders feed the tournament a tie when they disagree: the replay
	// must rebuild the same fits, and so the same stops and pairings.
	{"active both orders", "both_orders: true, scheduler: {kind: active, top_k: 3, stable_rounds: 2, min_rounds: 5, swiss_rounds: 2, matches: 3, per_candidate: 2}"},
	// A budget of 4 games a candidate: the tournament ends before the rounds do.
	{"refine", "scheduler: {kind: refine, swiss_rounds: 2, games: 4, window: 4}"},
	// The same budget, spent on the top 5 of 9 after the opening.
	{"swiss-top", "scheduler: {kind: swiss-top, swiss_rounds: 2, games: 4}"},
}

// TestSchedulersResumeWithoutRepeatingACall is the bar: under each
// scheduler a tournament interrupted mid-way (mid-round, as USR1 does)
// resumes from its checkpoint and writes the bytes of an uninterrupted
// run, and across both runs the fake server answered every distinct prompt
// once and no more calls were made than uninterrupted. It also checks that
// the adaptive schedulers took effect: fewer calls than Swiss over the same
// rounds, and some tournament shorter than the rounds.
func TestSchedulersResumeWithoutRepeatingACall(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	const rounds = 8
	judgeOnly := []stage.Stage{judge.Stage}
	var swissCalls int64
	for _, sc := range testSchedulers {
		t.Run(sc.name, func(t *testing.T) {
			yaml := "rounds: 8"
			if sc.yaml != "" {
				yaml += ", " + sc.yaml
			}
			refJ := &fakeJudge{seen: map[[32]byte]int{}}
			refSrv := llmtest.NewServer(t, refJ.handle)
			refCfg := setupJudge(t, refSrv.URL, yaml)
			want, err := runStages(ctx, t, refCfg, judgeOnly)
			if err != nil {
				t.Fatal(err)
			}
			total := refJ.calls.Load()
			if sc.name == "swiss" {
				swissCalls = total
			} else if swissCalls > 0 && total >= swissCalls && !strings.Contains(sc.yaml, "both_orders") {
				t.Errorf("%s made %d calls, Swiss %d over the same %d rounds: the scheduler saved nothing", sc.name, total, swissCalls, rounds)
			}
			root, _ := store.Open(ctx, refCfg.RootURI(), store.Options{})
			roundsOf := map[string]int32{}
			for _, j := range readAll[dataset.Judgment](ctx, t, root, "j", dataset.Judgments.Name) {
				roundsOf[j.Query] = max(roundsOf[j.Query], j.Round)
			}
			short := 0
			for _, r := range roundsOf {
				if r < rounds {
					short++
				}
			}
			if sc.name == "swiss" && short > 0 || sc.name != "swiss" && short == 0 {
				t.Errorf("%s: %d of %d tournaments ended before round %d", sc.name, short, len(roundsOf), rounds)
			}
			t.Logf("%s: %d calls uninterrupted, %d of %d tournaments stopped early", sc.name, total, short, len(roundsOf))

			fj := &fakeJudge{seen: map[[32]byte]int{}}
			srv := llmtest.NewServer(t, fj.handle)
			cfg := setupJudge(t, srv.URL, yaml)
			ictx, cancel := context.WithCancel(ctx)
			defer cancel()
			stopAt := total / 2
			fj.onCall = func(n int64) {
				if n == stopAt {
					cancel()
				}
			}
			if _, err := runStages(ictx, t, cfg, judgeOnly); err == nil || stage.ExitCode(err) != stage.ExitTempFail {
				t.Fatalf("interrupted judge: err %v (exit %d), want exit 75", err, stage.ExitCode(err))
			}
			fj.onCall = nil
			before := fj.calls.Load()
			if _, err := runStages(ctx, t, cfg, judgeOnly); err != nil {
				t.Fatal(err)
			}
			got := hashes(ctx, t, cfg, dataset.Judgments.Name)
			for k, v := range want {
				if strings.HasPrefix(k, "judgments/") && got[k] != v {
					t.Errorf("%s: resumed %s, uninterrupted %s", k, got[k], v)
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
		})
	}
}

// TestSchedulerConfig: the Swiss default written out is no key at all (the
// same hash as before judge.scheduler existed), an adaptive kind gets its
// defaults filled in, and bad values are refused naming the key.
func TestSchedulerConfig(t *testing.T) {
	parse := func(judgeYAML string) (*config.Config, error) {
		return config.Parse([]byte("run: j\nroot: /tmp/x\njudge: {"+judgeYAML+"}\n"), judge.Section)
	}
	base, err := parse("rounds: 20")
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range []string{"rounds: 20, scheduler: {kind: swiss}", "rounds: 20, scheduler: {}"} {
		c, err := parse(y)
		if err != nil {
			t.Fatalf("%s: %v", y, err)
		}
		if judge.Section.Of(c).Scheduler != nil {
			t.Errorf("%s: scheduler %+v, want none (the default)", y, judge.Section.Of(c).Scheduler)
		}
		a, b := base.Values("judge"), c.Values("judge")
		if len(a) != len(b) {
			t.Errorf("%s: judge values %v, want those of no scheduler key %v", y, b, a)
		}
		for k, v := range a {
			if b[k] != v {
				t.Errorf("%s: %s = %s, want %s", y, k, b[k], v)
			}
		}
	}
	c, err := parse("scheduler: {kind: active}")
	if err != nil {
		t.Fatal(err)
	}
	if s := judge.Section.Of(c).Scheduler; s.Games != nil || s.TopShare != nil {
		t.Errorf("active: games %v, top_share %v written out, want neither (the hash of an active config must not change)", s.Games, s.TopShare)
	}
	if c, err := parse("scheduler: {kind: swiss-top}"); err != nil {
		t.Error(err)
	} else if s := judge.Section.Of(c).Scheduler; s.Games == nil || *s.Games != 9.9 || s.TopShare == nil || *s.TopShare != 0.5 || s.SwissRounds != 8 || s.Window != nil {
		t.Errorf("swiss-top defaults: %+v", s)
	}
	s := judge.Section.Of(c).Scheduler
	if s == nil || s.TopK != 10 || s.StableRounds != 5 || s.Matches != 40 || s.SwissRounds != 5 || s.PerCandidate != 3 || s.MinRounds != 12 || s.Epsilon != 0.002 {
		t.Errorf("active defaults: %+v", s)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"scheduler: {kind: greedy}", "judge.scheduler.kind"},
		{"scheduler: {kind: swiss, top_k: 5}", "judge.scheduler: kind swiss takes no parameters"},
		{"scheduler: {kind: active, epsilon: 1.5}", "judge.scheduler.epsilon"},
		{"scheduler: {kind: swiss-adaptive, stable_rounds: -1}", "judge.scheduler.stable_rounds"},
		{"scheduler: {kind: active, matches: -2}", "judge.scheduler.matches"},
		{"scheduler: {kind: active, games: 4}", "games tunes kinds refine and swiss-top only"},
		{"scheduler: {kind: swiss-top, window: 4}", "window and top_weight tune kind refine only"},
		{"scheduler: {kind: refine, top_share: 0.5}", "top_share tunes kind swiss-top only"},
		{"scheduler: {kind: swiss-top, top_share: 1.5}", "judge.scheduler.top_share"},
		{"scheduler: {kind: swiss-top, games: 4}", "judge.scheduler.games"}, // < its 8 Swiss rounds
	} {
		_, err := parse(tt.yaml)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want one naming %q", tt.yaml, err, tt.want)
		}
	}
}

// TestPromptOrderConfig: paper written out is no key at all (the same
// values and hash as before judge.prompt_order existed), shared_first
// selects F.3s, and anything else is refused naming the key.
func TestPromptOrderConfig(t *testing.T) {
	parse := func(judgeYAML string) (*config.Config, error) {
		return config.Parse([]byte("run: j\nroot: /tmp/x\njudge: {"+judgeYAML+"}\n"), judge.Section)
	}
	base, err := parse("rounds: 20")
	if err != nil {
		t.Fatal(err)
	}
	paper, err := parse("rounds: 20, prompt_order: paper")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := base.Values("judge"), paper.Values("judge"); !maps.Equal(a, b) || judge.Section.Of(paper).SharedFirst() {
		t.Errorf("prompt_order: paper gives values %v, want those of no key %v", b, a)
	}
	sf, err := parse("rounds: 20, prompt_order: shared_first")
	if err != nil {
		t.Fatal(err)
	}
	if !judge.Section.Of(sf).SharedFirst() || maps.Equal(base.Values("judge"), sf.Values("judge")) {
		t.Errorf("prompt_order: shared_first: SharedFirst %v, values %v", judge.Section.Of(sf).SharedFirst(), sf.Values("judge"))
	}
	if _, err := parse("prompt_order: instructions_last"); err == nil || !strings.Contains(err.Error(), "judge.prompt_order") {
		t.Errorf("a bad prompt_order: err %v, want one naming judge.prompt_order", err)
	}
}
