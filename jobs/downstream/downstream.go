// Package downstream is the deduplication experiment (paper §4.3, App.
// B.4, D.11, Tables 2, 11, 12): does the ordering SABER-Math gives
// retrievers transfer to a real task? Each query's statement is rewritten
// (the rewrite stage: same mathematics, another surface form) and each
// retriever, searching with the rewrite, must find the query's original.
//
// Two stages, both off the main line (on when downstream.retrievers is
// set):
//
//   - embed (EmbedStage): the pool embedded once per bi-encoder into
//     `pool_embeddings`, reused by every later ranking.
//   - downstream, sharded by query range × retriever: for each query with
//     a valid rewrite, the rank of its original
//   - over the full pool (scale pool, Tables 2 and 11): every unique
//     document of the benchmark — queries and candidates, each once —
//     sorted by id, statements only (the rewrite restates a statement). A
//     bi-encoder's rank comes from the exact blocked product of
//     lib/poolrank over the stored vectors, on every core, memory bounded
//     by its block; a lexical baseline scores the pool as one index (BM25's
//     idf from the pool, not per query). Other kinds (cross-encoders, chat
//     rerankers, plugins) cannot score 71K documents per query and are left
//     out of this scale, as in the paper.
//   - within the query's own candidates plus the original (scale
//     candidates, Table 12): every retriever, through the same Score call
//     evaluate makes.
//     The query (its rewrite) is never in the pool it searches, and the
//     original is in it exactly once. Ranks are exact, ties by document id.
//     A sample of queries per bi-encoder shard (downstream.check) has its
//     scores against the whole pool recomputed by a naive loop; any
//     difference fails the shard as a bug.
//
// The reduce writes `dedup_results` — per scale and retriever the median
// rank and the percentage of queries with the original in the top 1, 4,
// 16 and 64, beside its SABER-Math nDCG@10 from `results` — and
// reports/downstream.{md,csv,tex} with Spearman's ρ between nDCG@10 and
// each of −median, top-1 and top-64, as the paper reports.
//
// The paper's phrasing places the rewrite in the pool and searches with
// the original; here the rewrite is the query and the original the target,
// so that the pool is one fixed set for every query: embedded once,
// indexed once. For a bi-encoder the two differ only in which text gets
// the query template.
package downstream

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/downstream/decl"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/poolrank"
	"github.com/saber-math/saber/shard"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": runMap, "reduce": runReduce})

// query is one query of the shard with a valid rewrite.
type query struct {
	id, rewrite string
	target      int // the original's index in the pool
}

func runMap(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	if len(cfg.Retrievers) == 0 {
		return stage.BadInput(fmt.Errorf("downstream is off under this config: %s", decl.Off))
	}
	if n := cfg.Shards * len(cfg.Retrievers); env.Shard.Count != n {
		return stage.BadInput(fmt.Errorf("downstream has %d shards under this config (downstream.shards %d × %d retrievers), not %d",
			n, cfg.Shards, len(cfg.Retrievers), env.Shard.Count))
	}
	name := cfg.Retrievers[env.Shard.Index/cfg.Shards]
	r := shard.Spec{Index: env.Shard.Index % cfg.Shards, Count: cfg.Shards}
	env.Log = env.Log.With().Str("retriever", name).Logger()
	ctx = env.Log.WithContext(ctx)
	pool, err := readPool(ctx, env)
	if err != nil {
		return err
	}
	rewrites, err := readRewrites(ctx, env)
	if err != nil {
		return err
	}
	lo, hi := r.Range(len(pool.Queries))
	var qs []query
	invalid := 0
	for _, q := range pool.Queries[lo:hi] {
		rw, ok := rewrites[q.ID]
		if !ok {
			return stage.BadInput(fmt.Errorf("rewrites: no row for query %s (rewrites of another selection? rerun rewrite)", q.ID))
		}
		if !rw.Valid {
			invalid++
			continue
		}
		t, _ := pool.Index(q.ID)
		qs = append(qs, query{id: q.ID, rewrite: rw.Statement, target: t})
	}
	// The rewrite is the query: it must not be a document of the pool it
	// searches (an identical rewrite is invalid, so this holds unless a
	// rewrite equals some other document's statement).
	byText := make(map[string]int, len(pool.IDs))
	for i, s := range pool.Statements {
		byText[s] = i
	}
	for _, q := range qs {
		if i, ok := byText[q.rewrite]; ok {
			return stage.BadInput(fmt.Errorf("rewrites: query %s's rewrite is the statement of pool document %s: it would find itself (rerun rewrite)", q.id, pool.IDs[i]))
		}
	}
	env.Count("queries", int64(len(qs)))
	env.Count("invalid_rewrites", int64(invalid))
	env.Count("pool", int64(len(pool.IDs)))

	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ret, closeFn, err := build(ctx, env, name, 1)
	if err != nil {
		return err
	}
	defer closeFn()
	qWorkers := workers
	if w := retrieval.NewRegistry(env.Config.RetrieverSpecs(), retrieval.Options{}).Workers(name); w > 0 {
		qWorkers = w
	}
	var rows []dataset.DedupRank
	for _, scale := range cfg.Scales {
		var got []dataset.DedupRank
		switch {
		case scale == ScaleCandidates:
			got, err = rankCandidates(ctx, env, ret, pool, qs, qWorkers)
		case !onPool(env.Config, name):
			spec, _ := env.Config.Retriever(name)
			env.Log.Info().Str("kind", spec.Kind).Msg("not a bi-encoder or lexical baseline: left out of the full pool, as in the paper")
			env.Count("pool_skipped", 1)
			continue
		case slices.Contains(config.LexicalRetrievers, name):
			got, err = rankPoolLexical(ctx, env, ret, pool, qs, workers)
		default:
			got, err = rankPoolVectors(ctx, env, ret, pool, qs, qWorkers, poolrank.Options{QueryBlock: cfg.QueryBlock, DocBlock: cfg.DocBlock, Workers: workers}, cfg.Check)
		}
		if err != nil {
			return err
		}
		for i := range got {
			got[i].Retriever, got[i].Scale = name, scale
		}
		rows = append(rows, got...)
	}
	if rec, ok := ret.(retrieval.LLMRecorder); ok {
		for _, c := range rec.LLMClients() {
			llmcall.Record(env, c)
		}
	}
	env.Count("rows", int64(len(rows)))
	env.Log.Info().Int("queries", len(qs)).Int("invalid_rewrites", invalid).Int("pool", len(pool.IDs)).Int("rows", len(rows)).Msg("ranked")
	return stage.WriteOutput(ctx, env, dataset.DedupRanks, rows)
}

// readRewrites reads every rewrite, by query.
func readRewrites(ctx context.Context, env *stage.Env) (map[string]dataset.RewriteRow, error) {
	parts, err := env.Upstream(ctx, dataset.Rewrites.Name)
	if err != nil {
		return nil, err
	}
	out := map[string]dataset.RewriteRow{}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.RewriteRow) error {
			for _, r := range rows {
				out[r.Query] = r
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rankCandidates ranks, for each query, its candidates and its original
// with the rewrite as the query (Table 12).
func rankCandidates(ctx context.Context, env *stage.Env, ret retrieval.Retriever, pool *Pool, qs []query, workers int) ([]dataset.DedupRank, error) {
	rows := make([]dataset.DedupRank, len(qs))
	prog := env.Progress("queries (candidates)", int64(len(qs)))
	err := parallel.For(ctx, len(qs), workers, func(ctx context.Context, i int) error {
		q := qs[i]
		ids := append(slices.Clone(pool.Candidates[q.id]), q.id)
		slices.Sort(ids)
		docs := make([]string, len(ids))
		for k, id := range ids {
			j, _ := pool.Index(id)
			docs[k] = pool.Statements[j]
		}
		order, scores, _, err := retrieval.Rank(retrieval.WithQueryID(ctx, q.id), ret, ids, q.rewrite, docs)
		if err != nil {
			return fmt.Errorf("query %s: %s: %w", q.id, ret.Name(), err)
		}
		t, _ := slices.BinarySearch(ids, q.id)
		rank := slices.Index(order, t) + 1
		rows[i] = dataset.DedupRank{Query: q.id, Rank: int32(rank), Pool: int32(len(ids)), Score: scores[t]}
		prog.Add(1)
		return nil
	})
	prog.Finish()
	return rows, err
}

// rankPoolLexical scores the whole pool for each query: the scorer indexes
// the pool's documents, so idf and average length are the pool's.
func rankPoolLexical(ctx context.Context, env *stage.Env, ret retrieval.Retriever, pool *Pool, qs []query, workers int) ([]dataset.DedupRank, error) {
	rows := make([]dataset.DedupRank, len(qs))
	prog := env.Progress("queries (pool)", int64(len(qs)))
	err := parallel.For(ctx, len(qs), workers, func(ctx context.Context, i int) error {
		q := qs[i]
		scores, err := ret.Score(ctx, q.rewrite, pool.Statements)
		if err != nil {
			return fmt.Errorf("query %s: %s: %w", q.id, ret.Name(), err)
		}
		if len(scores) != len(pool.IDs) {
			return fmt.Errorf("query %s: %s returned %d scores for %d documents", q.id, ret.Name(), len(scores), len(pool.IDs))
		}
		rows[i] = dataset.DedupRank{Query: q.id, Rank: int32(poolrank.RankOf(scores, q.target)), Pool: int32(len(pool.IDs)), Score: scores[q.target]}
		prog.Add(1)
		return nil
	})
	prog.Finish()
	return rows, err
}

// rankPoolVectors ranks the pool by the stored document vectors and the
// queries' vectors with lib/poolrank, then checks a sample naively.
func rankPoolVectors(ctx context.Context, env *stage.Env, ret retrieval.Retriever, pool *Pool, qs []query, workers int, opt poolrank.Options, check int) ([]dataset.DedupRank, error) {
	emb, ok := ret.(retrieval.Embedder)
	if !ok {
		return nil, fmt.Errorf("%s: a bi-encoder that does not embed", ret.Name())
	}
	vecs, _, err := readVectors(ctx, env, pool, ret.Name())
	if err != nil {
		return nil, err
	}
	dim := len(vecs[0])
	docs := poolrank.NewMatrix(len(vecs), dim)
	for i, v := range vecs {
		if len(v) != dim {
			return nil, stage.BadInput(fmt.Errorf("pool_embeddings: %s: document %s has %d dimensions, %s %d (rerun embed)", ret.Name(), pool.IDs[i], len(v), pool.IDs[0], dim))
		}
		copy(docs.Row(i), v)
	}
	vecs = nil
	qm := poolrank.NewMatrix(len(qs), dim)
	prog := env.Progress("queries embedded", int64(len(qs)))
	err = parallel.For(ctx, len(qs), workers, func(ctx context.Context, i int) error {
		v, err := emb.EmbedQuery(retrieval.WithQueryID(ctx, qs[i].id), qs[i].rewrite)
		if err != nil {
			return fmt.Errorf("query %s: %s: %w", qs[i].id, ret.Name(), err)
		}
		if len(v) != dim {
			return fmt.Errorf("query %s: %s: the query vector has %d dimensions, the pool's %d (a model changed since embed? rerun embed)", qs[i].id, ret.Name(), len(v), dim)
		}
		copy(qm.Row(i), v)
		prog.Add(1)
		return nil
	})
	prog.Finish()
	if err != nil {
		return nil, err
	}
	poolrank.Normalize(docs)
	poolrank.Normalize(qm)
	targets := make([]int, len(qs))
	for i, q := range qs {
		targets[i] = q.target
	}
	ranks, scores, err := poolrank.Ranks(ctx, qm, docs, targets, opt)
	if err != nil {
		return nil, err
	}
	checked, err := checkNaive(qm, docs, targets, ranks, sample(len(qs), check))
	if err != nil {
		return nil, &stage.BugError{Err: fmt.Errorf("%s: %w", ret.Name(), err)}
	}
	env.Count("checked_queries", int64(checked))
	env.Log.Info().Int("checked", checked).Int("pool", docs.Rows).Int("dimensions", dim).Msg("full-pool ranks equal the naive computation on the sample")
	rows := make([]dataset.DedupRank, len(qs))
	for i, q := range qs {
		rows[i] = dataset.DedupRank{Query: q.id, Rank: int32(ranks[i]), Pool: int32(docs.Rows), Score: float64(scores[i])}
	}
	return rows, nil
}

// sample picks n of [0, total) spread evenly (all when n ≥ total).
func sample(total, n int) []int {
	if n >= total {
		n = total
	}
	out := make([]int, n)
	for k := range out {
		out[k] = k * total / n
	}
	return out
}

// checkNaive recomputes, for the sampled queries, every score against the
// pool with a plain loop and the rank from those scores, and compares them
// with the blocked product (poolrank.Block) and Ranks: a difference is a
// bug of the kernel, never of the data.
func checkNaive(q, d poolrank.Matrix, targets, ranks []int, picks []int) (int, error) {
	row := make([]float32, d.Rows)
	for _, i := range picks {
		poolrank.Block(q, d, i, i+1, 0, d.Rows, row)
		qi := q.Row(i)
		naive := make([]float32, d.Rows)
		for j := 0; j < d.Rows; j++ {
			dj := d.Row(j)
			var s float32
			for k := range qi {
				s += float32(qi[k] * dj[k])
			}
			naive[j] = s
			if s != row[j] {
				return 0, fmt.Errorf("the blocked product's score of query %d and document %d is %v, the naive loop's %v", i, j, row[j], s)
			}
		}
		if r := poolrank.RankOf(naive, targets[i]); r != ranks[i] {
			return 0, fmt.Errorf("query %d: the blocked ranking puts its original at %d, the naive one at %d", i, ranks[i], r)
		}
	}
	return len(picks), nil
}
