package judge_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
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
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
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
	// The comparison is the first user message: a re-ask appends the bad
	// answer and a correction after it, and this judge stays undecided on
	// a pair however often it is asked.
	var u string
	for _, m := range req.Messages {
		if m.Role == "user" {
			u = m.Content
			break
		}
	}
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

// benchmark writes what select and dedup would have given judge: a corpus
// of generated problems (two parts), and per domain 3 queries with 3
// candidates in each category (9 per query, all of the query's domain),
// each dataset with its own completion manifest. It returns the
// candidates by query.
func benchmark(t *testing.T, root store.Store, run string) map[string][]string {
	t.Helper()
	const n = 400
	var docs []dataset.Document
	byDomain := map[string][]string{}
	for i := 0; i < n; i++ {
		p := synth.Generate(synth.Config{N: n, Seed: 3}, i)
		docs = append(docs, dataset.Document{ID: p.ID, Source: p.Source, Statement: p.Statement, Solution: p.Solution, Subject: p.Domain, Origin: "synth"})
		byDomain[p.Domain] = append(byDomain[p.Domain], p.ID)
	}
	var qs []dataset.Query
	var cands []dataset.Candidate
	byQuery := map[string][]string{}
	cats := []string{"topic", "summary", "both"}
	for _, d := range synth.Domains() {
		ids := byDomain[d]
		if len(ids) < 3+3*9 {
			t.Fatalf("domain %s has %d documents", d, len(ids))
		}
		for j := 0; j < 3; j++ {
			q := ids[j]
			qs = append(qs, dataset.Query{ID: q, Domain: d, TopicOnly: 3, SummaryOnly: 3, Both: 3, TauTopic: 0.858, TauSumm: 0.211})
			for k, doc := range ids[3+9*j : 3+9*j+9] {
				cands = append(cands, dataset.Candidate{Query: q, Doc: doc, Category: cats[k%3], SimTopic: 0.9, SimSumm: 0.3})
				byQuery[q] = append(byQuery[q], doc)
			}
		}
	}
	slices.SortFunc(docs, func(a, b dataset.Document) int { return strings.Compare(a.ID, b.ID) })
	for i := 0; i < 2; i++ {
		spec := shard.Spec{Index: i, Count: 2}
		lo, hi := spec.Range(len(docs))
		stagetest.Put(t, root, run, dataset.Corpus, spec, slices.Clone(docs[lo:hi]))
	}
	stagetest.PutOne(t, root, run, dataset.Queries, qs)
	stagetest.PutOne(t, root, run, dataset.Candidates, cands)
	return byQuery
}

// setup writes the benchmark under dir and returns the config with the
// judge on the fake server.
func setup(t *testing.T, dir, url string, rounds int) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(fmt.Sprintf(`run: j
root: %s/data
log: {progress_seconds: 0}
llm: {base_url: %q, model: fake-judge, api_key_env: SABER_TEST_JUDGE_KEY, timeout_seconds: 5, max_attempts: 8, concurrency: 6}
judge: {shards: 2, backend: llm, rounds: %d}
`, dir, url, rounds)), judge.Section)
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

// hashes returns the SHA-256 of every part of the datasets, from their
// manifests.
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
			for _, o := range m.Objects(ds) {
				out[strings.TrimPrefix(o.Key, cfg.Run+"/")] = o.SHA256
			}
		}
	}
	return out
}

// TestJudgeResumesWithoutRepeatingACall interrupts the judge (as USR1 or
// TERM does: the context ends) just after a round boundary and mid-round;
// the rerun resumes from the checkpoint and gives the bytes of an
// uninterrupted run (and so the same ratings, which rate computes from
// judgments alone), with a timing for every judgment, and across both runs
// the fake server answered every distinct prompt exactly once.
func TestJudgeResumesWithoutRepeatingACall(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	const rounds = 6
	judgeOnly := []stage.Stage{judge.Stage}

	refJ := &fakeJudge{seen: map[[32]byte]int{}}
	refSrv := llmtest.NewServer(t, refJ.handle)
	refDir := t.TempDir()
	refCfg := setup(t, refDir, refSrv.URL, rounds)
	want, err := runStages(ctx, t, refCfg, judgeOnly)
	if err != nil {
		t.Fatal(err)
	}
	total := refJ.calls.Load()
	perRound := total / rounds
	if total == 0 || want["judgments/part-00000-of-00002.parquet"] == "" || want["judgments/part-00001-of-00002.parquet"] == "" {
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
			ictx, cancel := context.WithCancel(ctx)
			fj.onCall = func(n int64) {
				if n == stop.at {
					cancel()
				}
			}
			_, err := runStages(ictx, t, cfg, judgeOnly)
			if err == nil || stage.ExitCode(err) != stage.ExitTempFail {
				t.Fatalf("interrupted judge: err %v (exit %d), want exit 75", err, stage.ExitCode(err))
			}
			cancel()
			fj.onCall = nil
			before := fj.calls.Load()
			if _, err := runStages(ctx, t, cfg, judgeOnly); err != nil {
				t.Fatal(err)
			}
			got := hashes(ctx, t, cfg, dataset.Judgments.Name)
			for k, v := range want {
				if strings.HasPrefix(k, "judgments/") {
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
			// The timings of the rounds before the stop came back from the
			// checkpoint: one per judgment.
			type match struct {
				q    string
				r, m int32
			}
			judged := map[match]bool{}
			for _, j := range readAll[dataset.Judgment](ctx, t, root, "j", dataset.Judgments.Name) {
				judged[match{j.Query, j.Round, j.Match}] = true
			}
			timed := map[match]bool{}
			for _, tm := range readAll[dataset.JudgeTiming](ctx, t, root, "j", dataset.JudgeTimings.Name) {
				timed[match{tm.Query, tm.Round, tm.Match}] = true
			}
			if len(judged) == 0 || !maps.Equal(judged, timed) {
				t.Errorf("%d judgments, %d timings: want one timing per judgment", len(judged), len(timed))
			}
		})
	}
}

// readAll reads every part of a complete dataset of run.
func readAll[T any](ctx context.Context, t *testing.T, root store.Store, run, ds string) []T {
	t.Helper()
	ms, err := layout.Complete(ctx, root, run, ds)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, m := range ms {
		for _, o := range m.Objects(ds) {
			rows, err := dataset.Read[T](ctx, root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rows...)
		}
	}
	return out
}

// TestJudgeUnderFaults: 10% transport faults and 10% answers without a
// verdict: the run completes, invalid judgments are kept and counted, and
// every query's tournament is whole — every round played, every candidate
// in it, only its own candidates compared, no pair twice — which is what
// rate needs to give every candidate a rating.
func TestJudgeUnderFaults(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	ctx := context.Background()
	fj := &fakeJudge{seen: map[[32]byte]int{}, badFrac: 0.10}
	srv := llmtest.NewServer(t, fj.handle)
	srv.SetFaults(llmtest.Faults{Rate: 0.10, Seed: 5, RetryAfterSeconds: 1})
	dir := t.TempDir()
	const rounds = 4
	cfg := setup(t, dir, srv.URL, rounds)
	if _, err := runStages(ctx, t, cfg, []stage.Stage{judge.Stage}); err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	ms, err := layout.Complete(ctx, root, "j", "judgments")
	if err != nil {
		t.Fatal(err)
	}
	var invalid, judgments, retries, shareCount, shareOf int64
	for _, m := range ms {
		invalid += m.Stats["invalid"]
		judgments += m.Stats["judgments"]
		retries += m.Stats["llm_retries"]
		shareCount += m.Stats[llmcall.StatInvalidShareCount]
		shareOf += m.Stats[llmcall.StatInvalidShareOf]
	}
	if invalid == 0 || invalid > judgments/4 || retries == 0 {
		t.Errorf("manifests: %d invalid of %d judgments, %d retries; want some invalid (about 10%%) and retries", invalid, judgments, retries)
	}
	// About 10% invalid is under judge.max_invalid_share: written, and
	// counted for `saber stats`.
	if shareCount != invalid || shareOf != judgments {
		t.Errorf("manifests: invalid share %d of %d, want %d of %d", shareCount, shareOf, invalid, judgments)
	}
	js := readAll[dataset.Judgment](ctx, t, root, "j", dataset.Judgments.Name)
	var rowsInvalid int64
	for _, r := range js {
		if r.Invalid {
			rowsInvalid++
			if r.Winner != "" || r.Reason != judge.ReasonUnparseable || r.Asks != 3 {
				t.Errorf("invalid judgment %+v: want no winner, reason unparseable, 3 asks", r)
			}
		} else if r.Winner != r.Sample1 && r.Winner != r.Sample2 {
			t.Errorf("judgment %+v: the winner is neither sample", r)
		}
	}
	if rowsInvalid != invalid || int64(len(js)) != judgments {
		t.Errorf("%d invalid of %d rows, manifests say %d of %d", rowsInvalid, len(js), invalid, judgments)
	}
	cands := map[[2]string]bool{}
	perQuery := map[string]int{}
	for _, c := range readAll[dataset.Candidate](ctx, t, root, "j", dataset.Candidates.Name) {
		cands[[2]string{c.Query, c.Doc}] = true
		perQuery[c.Query]++
	}
	played := map[[2]string]bool{}
	pairs := map[[3]string]bool{}
	roundsOf := map[string]map[int32]bool{}
	for _, r := range js {
		if !cands[[2]string{r.Query, r.Sample1}] || !cands[[2]string{r.Query, r.Sample2}] || r.Sample1 == r.Sample2 {
			t.Errorf("judgment %+v: not two of the query's candidates", r)
		}
		a, b := min(r.Sample1, r.Sample2), max(r.Sample1, r.Sample2)
		if pairs[[3]string{r.Query, a, b}] {
			t.Errorf("query %s: %s and %s compared twice", r.Query, a, b)
		}
		pairs[[3]string{r.Query, a, b}] = true
		played[[2]string{r.Query, r.Sample1}], played[[2]string{r.Query, r.Sample2}] = true, true
		if roundsOf[r.Query] == nil {
			roundsOf[r.Query] = map[int32]bool{}
		}
		roundsOf[r.Query][r.Round] = true
	}
	if len(cands) == 0 || len(played) != len(cands) {
		t.Errorf("%d of %d candidates took part in their query's tournament", len(played), len(cands))
	}
	for q := range perQuery {
		if len(roundsOf[q]) != rounds {
			t.Errorf("query %s: %d rounds judged, want %d", q, len(roundsOf[q]), rounds)
		}
	}
}

// TestJudgeCheckpoints: judge declares its checkpoints (and the LLM
// cache), keeps them under layout.CheckpointPrefix(run, "judge", shard),
// one round's judgments and timings at a time, removes them when the shard
// is done, and cannot touch them without the declaration.
func TestJudgeCheckpoints(t *testing.T) {
	t.Setenv("SABER_TEST_JUDGE_KEY", "test-key")
	step := judge.Stage.Steps[0]
	if !step.Checkpoints || !step.Cache {
		t.Fatalf("judge's step declares checkpoints %v, cache %v; want both", step.Checkpoints, step.Cache)
	}
	ctx := context.Background()
	fj := &fakeJudge{seen: map[[32]byte]int{}}
	srv := llmtest.NewServer(t, fj.handle)
	cfg := setup(t, t.TempDir(), srv.URL, 5)
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	spec := shard.Spec{Index: 1, Count: 2}
	qs := readAll[dataset.Query](ctx, t, root, "j", dataset.Queries.Name)
	lo, hi := spec.Range(len(qs))
	mine := map[string]bool{}
	for _, q := range qs[lo:hi] {
		mine[q.ID] = true
	}
	// Round 1 pairs 9 candidates into 4 matches per query; stop early in round 2.
	round1 := int64(4 * len(mine))
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	fj.onCall = func(n int64) {
		if n == round1+2 {
			cancel()
		}
	}
	_, err := stage.RunShard(ictx, cfg, judge.Stage, step, spec, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitTempFail {
		t.Fatalf("interrupted shard: err %v (exit %d), want exit 75", err, stage.ExitCode(err))
	}
	fj.onCall = nil
	prefix := layout.CheckpointPrefix("j", "judge", spec) + "/"
	if prefix != "j/_checkpoints/judge/part-00001-of-00002/" {
		t.Errorf("checkpoint prefix %s", prefix)
	}
	all, err := root.List(ctx, "j/_checkpoints/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range all {
		if !strings.HasPrefix(in.Key, prefix) {
			t.Errorf("checkpoint %s outside %s", in.Key, prefix)
		}
		names = append(names, strings.TrimPrefix(in.Key, prefix))
	}
	slices.Sort(names)
	// Each name carries the process's token: round-0001.<token>.parquet.
	var kinds []string
	for _, n := range names {
		kind, rest, _ := strings.Cut(n, ".")
		kinds = append(kinds, kind+"."+rest[strings.LastIndexByte(rest, '.')+1:])
	}
	if !slices.Equal(kinds, []string{"round-0001.parquet", "timings-0001.parquet"}) || len(names) != 2 || strings.Count(names[0], ".") != 2 {
		t.Fatalf("checkpoints after round 1: %v, want round 1's judgments and timings, named with the process's token", names)
	}
	rows, err := dataset.Read[dataset.Judgment](ctx, root, prefix+names[0])
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(rows)) != round1 {
		t.Errorf("round 1's checkpoint holds %d judgments, want %d", len(rows), round1)
	}
	for _, r := range rows {
		if r.Round != 1 || !mine[r.Query] {
			t.Errorf("checkpointed judgment %+v: not round 1 of this shard's queries", r)
		}
	}

	// Without the declaration the step may not keep checkpoints: it stops
	// before judging anything.
	undeclared := step
	undeclared.Checkpoints = false
	calls := fj.calls.Load()
	env := stage.NewEnv(cfg, judge.Stage, undeclared, shard.Spec{Index: 0, Count: 2}, root, root, zerolog.Nop())
	err = undeclared.Run(ctx, env)
	var ue *stage.UndeclaredError
	if !errors.As(err, &ue) || !strings.Contains(ue.What, "checkpoints") || stage.ExitCode(err) != stage.ExitBug {
		t.Errorf("judge without Checkpoints declared: err %v (exit %d), want an UndeclaredError for checkpoints, exit 1", err, stage.ExitCode(err))
	}
	if fj.calls.Load() != calls {
		t.Errorf("judge without Checkpoints declared made %d calls", fj.calls.Load()-calls)
	}

	// The rerun resumes from round 1 and removes the checkpoints when done.
	if _, err := stage.RunShard(ctx, cfg, judge.Stage, step, spec, root, zerolog.Nop(), stage.Options{}); err != nil {
		t.Fatal(err)
	}
	if left, _ := root.List(ctx, "j/_checkpoints/"); len(left) != 0 {
		t.Errorf("checkpoints left after the shard finished: %v", left)
	}
}

// TestJudgeRefusesChangedCandidates: a candidates part whose bytes changed
// after it was written — here one byte of the file's created_by, so it is
// still valid Parquet of the same size with the same rows — is refused
// with exit 2 before judge uses it: nothing is judged, written or marked
// done.
func TestJudgeRefusesChangedCandidates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg, err := config.Parse([]byte(fmt.Sprintf("run: j\nroot: %s\nlog: {progress_seconds: 0}\njudge: {shards: 2, rounds: 3}\n", dir)), judge.Section)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	benchmark(t, root, "j")
	key := layout.DataKey("j", dataset.Candidates.Name, shard.Spec{Index: 0, Count: 1})
	orig, err := store.ReadAll(ctx, root, key)
	if err != nil {
		t.Fatal(err)
	}
	before, err := dataset.Read[dataset.Candidate](ctx, root, key)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(orig, []byte("saber"))
	if i < 0 {
		t.Fatal("no created_by in the candidates part")
	}
	changed := bytes.Clone(orig)
	changed[i] = 'S'
	if _, err := store.Put(ctx, root, key, changed, store.Replace); err != nil {
		t.Fatal(err)
	}
	after, err := dataset.Read[dataset.Candidate](ctx, root, key)
	if err != nil || !slices.Equal(before, after) {
		t.Fatalf("the changed part no longer reads as the same rows (%v): the test would not isolate the hash check", err)
	}

	_, err = stage.RunShard(ctx, cfg, judge.Stage, judge.Stage.Steps[0], shard.Spec{Index: 0, Count: 2}, root, zerolog.Nop(), stage.Options{})
	var ch *dataset.ChangedError
	if !errors.As(err, &ch) || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "candidates/part-00000-of-00001.parquet") {
		t.Fatalf("judge over changed candidates: err %v (exit %d), want a changed-part error naming it, exit 2", err, stage.ExitCode(err))
	}
	for _, prefix := range []string{"j/judgments/", "j/judge_timings/", "j/_checkpoints/"} {
		if left, _ := root.List(ctx, prefix); len(left) != 0 {
			t.Errorf("judge over changed candidates wrote %v", left)
		}
	}
}
