// Package judge runs each query's Swiss tournament of pairwise judgments
// (paper §3.5, App. B.3, prompt F.3; SPEC §3): R rounds paired by
// lib/swiss, each comparison decided by the judge (an LLM, or the offline
// lexical judge), written to `judgments`.
//
// It is the most expensive stage of the benchmark, so it never wastes or
// loses a call:
//
//   - Rounds run in lockstep over the shard's queries, and a round's
//     comparisons of every query run concurrently up to the configured
//     workers (the LLM client's concurrency by default): a server sees
//     thousands of requests per round, not 75.
//   - After every round the shard writes a checkpoint (every judgment so
//     far) to <run>/_checkpoints/judge/part-<i>-of-<n>/; a rerun replays
//     the tournaments from it (schedule.Replay checks every pairing) and
//     continues with the next round.
//   - judge.scheduler (lib/schedule) may stop a query's tournament before
//     R rounds, or pair its later rounds by information rather than by
//     wins; the default is the paper's Swiss rule, unchanged.
//   - On USR1/TERM/INT no new comparison starts; those in flight finish
//     (their answers land in the LLM cache), the round is not recorded and
//     the shard exits 75. The rerun re-pairs that round identically and
//     finds the finished answers in the cache: no call is repeated.
//   - Latencies are measurements, not results: they go to `judge_timings`,
//     so `judgments` has the same bytes however often a shard was resumed.
package judge

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/judge/decl"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/schedule"
	"github.com/saber-math/saber/lib/swiss"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

// Tournament is one query's state.
type tournament struct {
	query  *readers.Doc
	domain string
	docs   []*readers.Doc // candidates, by document id
	index  map[string]int
	t      schedule.Tournament
}

func newJudge(env *stage.Env) (Judge, func(), error) {
	cfg := Section.Of(env.Config)
	if !cfg.UsesLLM() {
		return &LexicalJudge{}, func() {}, nil
	}
	prompt := prompts.Judge
	if cfg.SharedFirst() {
		prompt = prompts.JudgeSharedFirst
	}
	c, record, err := llmcall.New(env, &cfg.Options, prompt)
	if err != nil {
		return nil, nil, err
	}
	return &LLMJudge{c}, record, nil
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	qs, cands, err := readers.RangeQueries(ctx, env, env.Shard)
	if err != nil {
		return err
	}
	texts, err := readers.Texts(ctx, env, qs, cands)
	if err != nil {
		return err
	}
	judge, record, err := newJudge(env)
	if err != nil {
		return err
	}
	defer record()

	ts := make([]*tournament, len(qs))
	byQuery := map[string]*tournament{}
	for i, q := range qs {
		tr := &tournament{query: texts[q.ID], domain: q.Domain, index: map[string]int{}}
		for k, d := range cands[q.ID] {
			if d == q.ID {
				return stage.BadInput(fmt.Errorf("query %s is its own candidate in candidates", q.ID))
			}
			tr.docs = append(tr.docs, texts[d])
			tr.index[d] = k
		}
		if tr.t, err = schedule.New(cfg.Schedule(), len(tr.docs), swiss.SeedRounds(env.RunSeed(), env.Stage, q.ID)); err != nil {
			return err
		}
		ts[i], byQuery[q.ID] = tr, tr
	}

	prefix, err := env.CheckpointPrefix()
	if err != nil {
		return err
	}
	ck := newCheckpoints(env.Out, prefix)
	done, rows, timings, err := ck.load(ctx)
	if err != nil {
		return err
	}
	if done > 0 {
		if err := replay(cfg.Schedule(), env.RunSeed(), env.Stage, byQuery, done, rows, cfg.BothOrders); err != nil {
			return stage.BadInput(fmt.Errorf("checkpoint %s: %w (delete it to restart the shard; answers already paid for come from the LLM cache)", ck.loadedURI(), err))
		}
		env.Log.Info().Int("rounds_done", done).Int("judgments", len(rows)).Msg("resuming from checkpoint")
	}
	workers := cfg.InFlight(env.Config)
	prog := env.Progress("rounds", int64(cfg.Rounds))
	prog.Add(int64(done))
	sample := "" // one invalid judgment, for the message of a failed shard
	for r := done + 1; r <= cfg.Rounds; r++ {
		// An adaptive scheduler may have stopped every tournament of the
		// shard: the rounds left would all be empty.
		if allStopped(ts) {
			env.Log.Info().Int("rounds", r-1).Msg("every tournament stopped early (judge.scheduler)")
			break
		}
		type task struct {
			tr *tournament
			m  swiss.Match
			k  int
			nm int // matches of the tournament's round
		}
		var tasks []task
		for _, tr := range ts {
			ms := tr.t.Pair().Matches
			for k, m := range ms {
				tasks = append(tasks, task{tr, m, k, len(ms)})
			}
		}
		// With both orders, comparison i+n is comparison i swapped.
		n := len(tasks)
		calls := n
		if cfg.BothOrders {
			calls = 2 * n
		}
		verdicts := make([]Verdict, calls)
		groups := sendGroups(calls, workers, func(i int) *tournament { return tasks[i%n].tr })
		err := parallel.For(ctx, len(groups), workers, func(ctx context.Context, g int) error {
			for _, i := range groups[g] {
				if ctx.Err() != nil {
					return nil // no new comparison after a signal
				}
				// A started comparison finishes even after a signal, so
				// its answer reaches the cache and the rerun repeats no
				// call; the client's own timeout bounds the wait.
				tk := tasks[i%n]
				s1, s2 := tk.tr.docs[tk.m.First], tk.tr.docs[tk.m.Second]
				if i >= n {
					s1, s2 = s2, s1
				}
				v, err := judge.Compare(context.WithoutCancel(ctx), tk.tr.query, s1, s2)
				if err != nil {
					return fmt.Errorf("query %s round %d: %w", tk.tr.query.ID, r, err)
				}
				verdicts[i] = v
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return stage.ErrInterrupted
		}
		perT := map[*tournament][]swiss.Judgment{}
		for i := range calls {
			tk := tasks[i%n]
			first, second, match := tk.m.First, tk.m.Second, int32(tk.k)
			if i >= n {
				first, second, match = second, first, int32(tk.nm+tk.k)
			}
			v := verdicts[i]
			row, winner := judgmentRow(judge, tk.tr, r, match, first, second, v)
			if row.Invalid && sample == "" {
				sample = fmt.Sprintf("query %s round %d: %s, answer %s", row.Query, r, v.Reason, llmcall.Excerpt(v.Raw))
			}
			if i < n {
				perT[tk.tr] = append(perT[tk.tr], swiss.Judgment{Match: tk.m, Winner: winner})
			} else {
				// The swapped judgment is in perT at the same place in
				// the tournament's list as its original.
				js := perT[tk.tr]
				js[tk.k].Winner = bothOrders(js[tk.k].Winner, winner)
			}
			rows = append(rows, row)
			timings = append(timings, dataset.JudgeTiming{Query: row.Query, Round: row.Round, Match: row.Match,
				LatencyMS: float64(v.Latency.Microseconds()) / 1000, Cached: v.Cached, Attempts: int32(v.Attempts)})
		}
		for _, tr := range ts {
			if err := tr.t.Record(perT[tr]); err != nil {
				return fmt.Errorf("query %s round %d: %w", tr.query.ID, r, err)
			}
		}
		// A judge that cannot answer shows it in round 1: stop there, not
		// after every round was paid for. The checkpoint goes too, so the
		// rerun with a fixed judge starts its tournaments over (the
		// answers already received stay free in the LLM cache).
		if inv := invalidJudgments(rows); llmcall.CheckInvalidShare(invalidWhat, inv, int64(len(rows)), invalidKey, cfg.MaxInvalidShare, "") != nil {
			if err := ck.clear(ctx); err != nil {
				env.Log.Warn().Err(err).Msg("could not remove the checkpoint of a failed shard")
			}
			return llmcall.RecordInvalidShare(env, invalidWhat, inv, int64(len(rows)), invalidKey, cfg.MaxInvalidShare, sampleOf(sample, rows))
		}
		if err := ck.save(ctx, r, rows, timings); err != nil {
			return err
		}
		prog.Add(1)
		env.Log.Debug().Int("round", r).Int("comparisons", len(tasks)).Msg("round done")
	}
	prog.Finish()
	audit, err := positionAudit(ctx, env, judge, ts, rows, workers)
	if err != nil {
		return err
	}
	invalid := invalidJudgments(rows)
	for _, r := range rows {
		if r.Invalid {
			env.Count("invalid_"+r.Reason, 1)
		}
	}
	env.Count("queries", int64(len(qs)))
	env.Count("judgments", int64(len(rows)))
	env.Count("invalid", invalid)
	env.Log.Info().Int("queries", len(qs)).Int("judgments", len(rows)).Int64("invalid", invalid).Msg("tournaments done")
	if err := llmcall.RecordInvalidShare(env, invalidWhat, invalid, int64(len(rows)), invalidKey, cfg.MaxInvalidShare, sampleOf(sample, rows)); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.JudgeTimings, timings); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.JudgeAudit, audit); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Judgments, rows); err != nil {
		return err
	}
	// The outputs hold everything; the checkpoint is garbage now. Should
	// this delete be lost, the next run of a done shard never reads it.
	return ck.clear(ctx)
}

// sendGroups splits a round's calls [0, calls) into the groups one worker
// sends in sequence: each query's comparisons together, in their order,
// so that a server with a cache per slot (llama-server) keeps the query's
// prompt (the part every comparison of it shares) in one slot and
// computes only the samples of its later comparisons. When the shard has
// fewer queries than workers, a query's comparisons are split into as
// many consecutive groups as keep every worker busy: the server's
// throughput comes before its cache. Which worker sends a comparison
// changes no answer (answers are cached by content), only when it is
// sent.
func sendGroups(calls, workers int, queryOf func(i int) *tournament) [][]int {
	var byQuery [][]int
	at := map[*tournament]int{}
	for i := range calls {
		q := queryOf(i)
		k, ok := at[q]
		if !ok {
			k = len(byQuery)
			at[q] = k
			byQuery = append(byQuery, nil)
		}
		byQuery[k] = append(byQuery[k], i)
	}
	if len(byQuery) == 0 {
		return nil
	}
	parts := max(1, (workers+len(byQuery)-1)/len(byQuery)) // groups per query
	var out [][]int
	for _, is := range byQuery {
		p := min(parts, len(is))
		for k := range p {
			out = append(out, is[k*len(is)/p:(k+1)*len(is)/p])
		}
	}
	return out
}

func allStopped(ts []*tournament) bool {
	for _, tr := range ts {
		if !tr.t.Stopped() {
			return false
		}
	}
	return true
}

// The invalid share's unit and threshold key, in messages.
const (
	invalidWhat = "judgments invalid"
	invalidKey  = "judge.max_invalid_share"
)

func invalidJudgments(rows []dataset.Judgment) int64 {
	var n int64
	for _, r := range rows {
		if r.Invalid {
			n++
		}
	}
	return n
}

// sampleOf is the sample of this process's first invalid verdict, else
// (every invalid judgment replayed from a checkpoint, whose answers are
// only hashes) the first invalid row.
func sampleOf(sample string, rows []dataset.Judgment) string {
	if sample != "" {
		return sample
	}
	for _, r := range rows {
		if r.Invalid {
			return fmt.Sprintf("query %s round %d: %s, answer sha256 %s", r.Query, r.Round, r.Reason, r.AnswerSHA256)
		}
	}
	return ""
}

// replay rebuilds every tournament from the checkpoint's judgments.
func replay(sc schedule.Config, runSeed uint64, stageName string, byQuery map[string]*tournament, done int, rows []dataset.Judgment, bothOrdersOn bool) error {
	type replayKey struct {
		q    string
		r    int32
		a, b int
	}
	per := map[string][]swiss.Judgment{}
	seen := map[replayKey]int{} // → index in per[q]
	swapped := map[replayKey]bool{}
	for _, r := range rows {
		tr := byQuery[r.Query]
		if tr == nil {
			return fmt.Errorf("judgment for query %s, which is not in this shard", r.Query)
		}
		a, ok1 := tr.index[r.Sample1]
		b, ok2 := tr.index[r.Sample2]
		if !ok1 || !ok2 {
			return fmt.Errorf("query %s: judgment of %s vs %s, not both candidates", r.Query, r.Sample1, r.Sample2)
		}
		w := swiss.Invalid
		switch r.Winner {
		case r.Sample1:
			w = a
		case r.Sample2:
			w = b
		}
		if r.Invalid {
			w = swiss.Invalid
		}
		// A pair met only once in a tournament, so a second judgment of
		// it in the same round is its swapped order (judge.both_orders).
		key := replayKey{r.Query, r.Round, min(a, b), max(a, b)}
		if i, ok := seen[key]; ok {
			if !bothOrdersOn || per[r.Query][i].First != b {
				return fmt.Errorf("query %s round %d: %s and %s judged twice (a checkpoint of another judge.both_orders?)", r.Query, r.Round, r.Sample1, r.Sample2)
			}
			per[r.Query][i].Winner = bothOrders(per[r.Query][i].Winner, w)
			swapped[key] = true
			continue
		}
		seen[key] = len(per[r.Query])
		per[r.Query] = append(per[r.Query], swiss.Judgment{Match: swiss.Match{Round: int(r.Round), First: a, Second: b}, Winner: w})
	}
	if bothOrdersOn && len(swapped) != len(seen) {
		return fmt.Errorf("%d of %d comparisons judged in one order only, but judge.both_orders is on (a checkpoint written without it?)", len(seen)-len(swapped), len(seen))
	}
	for q, tr := range byQuery {
		t, err := schedule.Replay(sc, len(tr.docs), swiss.SeedRounds(runSeed, stageName, q), done, per[q])
		if err != nil {
			return fmt.Errorf("query %s: %w", q, err)
		}
		tr.t = t
	}
	return nil
}

// judgmentRow is the row of one comparison, first shown as Sample 1, and
// the tournament's winner index (swiss.Invalid without a verdict).
func judgmentRow(j Judge, tr *tournament, r int, match int32, first, second int, v Verdict) (dataset.Judgment, int) {
	row := dataset.Judgment{
		Query: tr.query.ID, Round: int32(r), Match: match,
		Sample1: tr.docs[first].ID, Sample2: tr.docs[second].ID,
		Invalid: v.Winner == 0, Reason: v.Reason, AnswerSHA256: llmcall.AnswerHash(v.Raw), Asks: int32(v.Asks),
		Backend: j.Backend(), Model: j.Model(), PromptVersion: j.PromptVersion(),
		PromptTokens: int32(v.PromptTokens), CompletionTokens: int32(v.CompletionTokens),
	}
	winner := swiss.Invalid
	switch v.Winner {
	case 1:
		winner, row.Winner = first, row.Sample1
	case 2:
		winner, row.Winner = second, row.Sample2
	}
	return row, winner
}

// bothOrders is the tournament's outcome of a comparison judged in both
// orders: the winner both name, the one verdict when the other order has
// none, and a tie — a win for nobody, swiss.Invalid — when they disagree.
func bothOrders(w1, w2 int) int {
	switch {
	case w1 == swiss.Invalid:
		return w2
	case w2 == swiss.Invalid || w1 == w2:
		return w1
	}
	return swiss.Invalid
}
