package downstream

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/downstream/decl"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// EmbedStage is the stage declared in decl, with its steps' work.
var EmbedStage = stage.Implement(decl.EmbedStage, map[string]stage.RunFunc{"map": runEmbed})

// embedBatch is the documents handed to a bi-encoder per call: the client
// splits them into its own requests (batch_size, in_flight); this only
// bounds what one call holds and paces the progress line.
const embedBatch = 256

func runEmbed(ctx context.Context, env *stage.Env) error {
	// Embed declares the two keys of downstream: it reads in the section.
	embedShards := decl.EmbedShardsKey.Get(env.Config)
	if n := decl.EmbedTasks(env.Config); env.Shard.Count != n {
		return stage.BadInput(fmt.Errorf("embed has %d shards under this config (%d bi-encoders × downstream.embed_shards %d), not %d",
			n, len(BiEncoders(env.Config)), embedShards, env.Shard.Count))
	}
	models := BiEncoders(env.Config)
	if len(models) == 0 {
		env.Log.Info().Msg("no bi-encoder among downstream.retrievers: nothing to embed")
		return stage.WriteOutput(ctx, env, dataset.PoolEmbeddings, nil)
	}
	name := models[env.Shard.Index/embedShards]
	r := shard.Spec{Index: env.Shard.Index % embedShards, Count: embedShards}
	env.Log = env.Log.With().Str("retriever", name).Logger()
	pool, err := readPool(ctx, env)
	if err != nil {
		return err
	}
	lo, hi := r.Range(len(pool.IDs))
	emb, closeFn, err := buildEmbedder(env.Log.WithContext(ctx), env, name)
	if err != nil {
		return err
	}
	defer closeFn()
	prog := env.Progress("documents", int64(hi-lo))
	rows := make([]dataset.PoolEmbedding, 0, hi-lo)
	dim := 0
	for b := lo; b < hi; b += embedBatch {
		e := min(b+embedBatch, hi)
		vecs, err := emb.EmbedDocuments(ctx, pool.Statements[b:e])
		if err != nil {
			return fmt.Errorf("embed %s: documents %s..%s: %w", name, pool.IDs[b], pool.IDs[e-1], err)
		}
		for k, v := range vecs {
			if dim == 0 {
				dim = len(v)
			}
			if len(v) != dim {
				return fmt.Errorf("embed %s: document %s has %d dimensions, the others %d", name, pool.IDs[b+k], len(v), dim)
			}
			rows = append(rows, dataset.PoolEmbedding{Retriever: name, Model: emb.Model(), Doc: pool.IDs[b+k], Vector: v})
		}
		prog.Add(int64(e - b))
	}
	prog.Finish()
	if rec, ok := emb.(retrieval.LLMRecorder); ok {
		for _, c := range rec.LLMClients() {
			llmcall.Record(env, c)
		}
	}
	env.Count("documents", int64(len(rows)))
	env.Count("pool", int64(len(pool.IDs)))
	env.Count("dimensions", int64(dim))
	env.Log.Info().Int("documents", len(rows)).Int("pool", len(pool.IDs)).Int("dimensions", dim).Msg("pool embedded")
	return stage.WriteOutput(ctx, env, dataset.PoolEmbeddings, rows)
}

// build returns the named retriever, errors of configuration as bad input.
func build(ctx context.Context, env *stage.Env, name string, threads int) (retrieval.Retriever, func(), error) {
	cache, err := env.LLMCache()
	if err != nil {
		return nil, nil, err
	}
	reg := retrieval.NewRegistry(env.Config.RetrieverSpecs(), retrieval.Options{Dir: env.Config.Dir(), LexicalThreads: threads, Cache: cache})
	ret, err := reg.Build(ctx, name)
	if err != nil {
		if errors.Is(err, retrievers.ErrBadSpec) {
			return nil, nil, stage.BadInput(err)
		}
		return nil, nil, err
	}
	return ret, func() {
		if err := ret.Close(); err != nil {
			env.Log.Warn().Err(err).Msg("closing the retriever")
		}
	}, nil
}

// buildEmbedder builds a bi-encoder.
func buildEmbedder(ctx context.Context, env *stage.Env, name string) (retrieval.Embedder, func(), error) {
	ret, closeFn, err := build(ctx, env, name, 1)
	if err != nil {
		return nil, nil, err
	}
	emb, ok := ret.(retrieval.Embedder)
	if !ok {
		closeFn()
		spec, _ := env.Config.Retriever(name)
		return nil, nil, fmt.Errorf("retrievers.%s: kind %s is declared a bi-encoder (retrievers.Kind.BiEncoder) but its retriever does not embed", name, spec.Kind)
	}
	return emb, closeFn, nil
}

// readVectors reads the pool's vectors of one bi-encoder, in pool order,
// refusing a pool document without one (embeddings of another pool or
// model: rerun embed).
func readVectors(ctx context.Context, env *stage.Env, pool *Pool, name string) ([][]float32, string, error) {
	parts, err := env.Upstream(ctx, dataset.PoolEmbeddings.Name)
	if err != nil {
		return nil, "", err
	}
	vecs := make([][]float32, len(pool.IDs))
	model := ""
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.PoolEmbedding) error {
			for _, r := range rows {
				if r.Retriever != name {
					continue
				}
				i, ok := pool.Index(r.Doc)
				if !ok {
					return stage.BadInput(fmt.Errorf("pool_embeddings: %s has a vector for %s, which is not in the pool (embeddings of another benchmark: rerun embed)", name, r.Doc))
				}
				vecs[i] = slices.Clone(r.Vector)
				model = r.Model
			}
			return nil
		})
		if err != nil {
			return nil, "", err
		}
	}
	for i, v := range vecs {
		if v == nil {
			return nil, "", stage.BadInput(fmt.Errorf("pool_embeddings: no vector of %s for pool document %s (rerun embed: saber run --stages embed)", name, pool.IDs[i]))
		}
	}
	return vecs, model, nil
}
