// Package evaluate runs retrievers over the benchmark (paper §4.1, App. C;
// SPEC §3): for each query, the retriever (built by jobs/retrieval from
// its name: a lexical built-in or one of the config's `retrievers:`) scores
// the query's own candidates (lexical indexes are built per query over
// them, C.4) and the candidates are ranked by score, ties by document id.
// It writes `runs` and `timings`. Shards are query ranges × retrievers ×
// settings, so a slow retriever spreads over many tasks while the lexical
// ones take few.
package evaluate

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/evaluate/decl"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
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
			n, cfg.Evaluate.Shards, len(cfg.Evaluate.Retrievers), len(cfg.Evaluate.Settings), env.Shard.Count))
	}
	task, err := cfg.EvalTask(env.Shard.Index)
	if err != nil {
		return stage.BadInput(err)
	}
	env.Log = env.Log.With().Str("retriever", task.Retriever).Str("setting", task.Setting).Logger()
	qs, cands, err := readers.RangeQueries(ctx, env, shard.Spec{Index: task.Range, Count: task.Ranges})
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
	workers := stage.Workers(cfg.Evaluate.Workers)
	threads := runtime.GOMAXPROCS(0) / workers
	reg := retrieval.NewRegistry(cfg.Retrievers, retrieval.Options{Dir: cfg.Dir(), LexicalThreads: threads})
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
	runs := make([][]dataset.RunRow, len(qs))
	timings := make([]dataset.Timing, len(qs))
	prog := env.Progress("queries", int64(len(qs)))
	err = parallel.For(ctx, len(qs), workers, func(ctx context.Context, i int) error {
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
		order, scores, took, err := retrieval.Rank(retrieval.WithQueryID(ctx, q.ID), ret, ids, qt, dt)
		if err != nil {
			return fmt.Errorf("query %s: %s: %w", q.ID, task.Retriever, err)
		}
		rows := make([]dataset.RunRow, len(order))
		for rank, k := range order {
			rows[rank] = dataset.RunRow{Retriever: task.Retriever, Setting: task.Setting, Query: q.ID, Doc: ids[k], Score: scores[k], Rank: int32(rank + 1)}
		}
		runs[i] = rows
		timings[i] = dataset.Timing{Retriever: task.Retriever, Setting: task.Setting, Query: q.ID, Candidates: int32(len(ids)), Seconds: took.Seconds()}
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
	env.Count("queries", int64(len(qs)))
	env.Count("rows", int64(len(all)))
	env.Log.Info().Int("queries", len(qs)).Int("rows", len(all)).Msg("ranked")
	if err := stage.WriteOutput(ctx, env, dataset.Timings, timings); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Runs, all)
}
