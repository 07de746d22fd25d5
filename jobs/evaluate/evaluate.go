// Package evaluate runs retrievers over the benchmark (paper §4.1, App. C;
// SPEC §3): for each query, the retriever (built by jobs/retrieval from
// its name: a lexical built-in or one of the config's `retrievers:`) scores
// the query's own candidates (lexical indexes are built per query over
// them, C.4) and the candidates are ranked by score, ties by document id.
// It writes `runs` and `timings`. Shards are query ranges × retrievers ×
// settings, so a slow retriever spreads over many tasks while the lexical
// ones take few.
//
// The HTTP retrievers keep what they compute in the run's cache
// (jobs/retrieval/memo.go), so that each document is embedded or scored
// once per model however many queries, settings and reruns ask for it.
// Latency is measured apart, as App. C.5 does, with no caching: a
// memoizing retriever scores the latency sample's queries (report's
// latency_queries, drawn by reportdecl.LatencySample) in the main setting
// cold (what they computed joins the memo after their timed region), and
// only those queries get a row in `timings`. Lexical retrievers
// and plugins keep nothing and are timed on every query.
package evaluate

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/evaluate/decl"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/shard"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

func run(ctx context.Context, env *stage.Env) error {
	cfg := env.Config
	if n := cfg.EvalTasks(); env.Shard.Count != n {
		return stage.BadInput(fmt.Errorf("evaluate has %d shards under this config (%d query ranges × %d retrievers × %d settings), not %d",
			n, config.EvaluateShards.Get(cfg), len(config.EvaluateRetrievers.Get(cfg)), len(config.EvaluateSettings.Get(cfg)), env.Shard.Count))
	}
	task, err := cfg.EvalTask(env.Shard.Index)
	if err != nil {
		return stage.BadInput(err)
	}
	env.Log = env.Log.With().Str("retriever", task.Retriever).Str("setting", task.Setting).Logger()
	allQueries, err := readers.Queries(ctx, env)
	if err != nil {
		return err
	}
	qs, cands, err := readers.InRange(ctx, env, allQueries, shard.Spec{Index: task.Range, Count: task.Ranges})
	if err != nil {
		return err
	}
	texts, err := readers.Texts(ctx, env, qs, cands)
	if err != nil {
		return err
	}
	// One retriever per shard, built after the inputs are read (a plugin
	// starts and warms up here, outside the timed region) and closed at
	// the end.
	ctx = env.Log.WithContext(ctx)
	// A lexical retriever scores evaluate.workers queries at once; the
	// cores they leave go to each query's documents (C.5: documents in
	// flight), so that workers: 1 times each query in isolation on every
	// core, as the paper does.
	workers := stage.Workers(config.EvaluateWorkers.Get(cfg))
	threads := runtime.GOMAXPROCS(0) / workers
	cache, err := env.LLMCache()
	if err != nil {
		return err
	}
	reg := retrieval.NewRegistry(cfg.RetrieverSpecs(), retrieval.Options{Dir: cfg.Dir(), LexicalThreads: threads, Cache: cache})
	ret, err := reg.Build(ctx, task.Retriever)
	if err != nil {
		if errors.Is(err, retrievers.ErrBadSpec) {
			return stage.BadInput(err)
		}
		return err
	}
	defer func() {
		if err := ret.Close(); err != nil {
			env.Log.Warn().Err(err).Msg("closing the retriever")
		}
	}()
	if w := reg.Workers(task.Retriever); w > 0 {
		workers = w
	}
	timed := timedQueries(env, task.Setting, ret, allQueries)
	runs := make([][]dataset.RunRow, len(qs))
	timings := make([]*dataset.Timing, len(qs))
	// The timed queries first: their texts, kept after each, are then in
	// the memo for the others of the shard.
	seq := make([]int, 0, len(qs))
	for _, cold := range []bool{true, false} {
		for i, q := range qs {
			if (timed == nil || timed[q.ID]) == cold {
				seq = append(seq, i)
			}
		}
	}
	prog := env.Progress("queries", int64(len(qs)))
	err = parallel.For(ctx, len(qs), workers, func(ctx context.Context, k int) error {
		i := seq[k]
		q := qs[i]
		ids := cands[q.ID]
		docs := make([]*readers.Doc, len(ids))
		for k, id := range ids {
			docs[k] = texts[id]
		}
		qt, dt, err := readers.SettingTexts(task.Setting, texts[q.ID], docs)
		if err != nil {
			return stage.BadInput(err)
		}
		// Timed: from handing over the candidates to the sorted ranking (C.5).
		qctx := retrieval.WithQueryID(ctx, q.ID)
		cold := timed == nil || timed[q.ID]
		if cold {
			qctx = retrieval.Cold(qctx)
		}
		order, scores, took, err := retrieval.Rank(qctx, ret, ids, qt, dt)
		if err != nil {
			return fmt.Errorf("query %s: %s: %w", q.ID, task.Retriever, err)
		}
		// What a cold query computed goes to the memo now, outside the
		// timed region.
		if err := retrieval.KeepCold(qctx); err != nil {
			return fmt.Errorf("query %s: %s: %w", q.ID, task.Retriever, err)
		}
		rows := make([]dataset.RunRow, len(order))
		for rank, k := range order {
			rows[rank] = dataset.RunRow{Retriever: task.Retriever, Setting: task.Setting, Query: q.ID, Doc: ids[k], Score: scores[k], Rank: int32(rank + 1)}
		}
		runs[i] = rows
		if cold {
			timings[i] = &dataset.Timing{Retriever: task.Retriever, Setting: task.Setting, Query: q.ID, Candidates: int32(len(ids)), Seconds: took.Seconds()}
		}
		prog.Add(1)
		return nil
	})
	prog.Finish()
	if err != nil {
		return err
	}
	if rec, ok := ret.(retrieval.LLMRecorder); ok {
		for _, c := range rec.LLMClients() {
			llmcall.Record(env, c)
		}
	}
	if cnt, ok := ret.(retrieval.Counter); ok {
		for k, v := range cnt.Counts() {
			env.Count(k, v)
		}
	}
	var all []dataset.RunRow
	for _, r := range runs {
		all = append(all, r...)
	}
	var times []dataset.Timing
	for _, t := range timings {
		if t != nil {
			times = append(times, *t)
		}
	}
	env.Count("queries", int64(len(qs)))
	env.Count("timed_queries", int64(len(times)))
	env.Count("rows", int64(len(all)))
	env.Log.Info().Int("queries", len(qs)).Int("rows", len(all)).Msg("ranked")
	if err := stage.WriteOutput(ctx, env, dataset.Timings, times); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Runs, all)
}

// timedQueries are the queries a shard times (App. C.5): nil, every one,
// for a retriever that keeps nothing between queries; for one that does
// (retrieval.Memoizes), the latency sample's in the main setting, which it
// scores cold, and none in the other settings.
func timedQueries(env *stage.Env, setting string, ret retrieval.Retriever, all []dataset.Query) map[string]bool {
	if !retrieval.Memoizes(ret) {
		return nil
	}
	timed := map[string]bool{}
	if setting != env.Config.MainSetting() {
		return timed
	}
	ids := make([]string, len(all))
	for i, q := range all {
		ids[i] = q.ID
	}
	for _, id := range reportdecl.LatencySample(env.RunSeed(), ids, reportdecl.LatencyQueries(env.Config)) {
		timed[id] = true
	}
	return timed
}
