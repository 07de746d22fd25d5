package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Report files the reduce writes under <run>/reports/.
const (
	ReportMD  = "downstream.md"
	ReportCSV = "downstream.csv"
	ReportTeX = "downstream.tex"
)

// EmbedTasks is embed's task count: EmbedShards document ranges per bi-encoder, model-major;
// one task (writing nothing) when there is none.
func EmbedTasks(c *config.Config) int {
	return max(1, len(BiEncoders(c))) * EmbedShardsKey.Get(c)
}

// Stage is the downstream stage.
var Stage = stage.Stage{
	Name:     "downstream",
	Summary:  "deduplication retrieval (App. B.4, D.11): each retriever searches with a query's rewrite for its original over the whole pool and within its candidates: rewrites, queries, candidates, corpus, pool_embeddings → dedup_ranks; with results → dedup_results, reports/downstream.{md,csv,tex}",
	Section:  Section,
	Optional: true,
	Enabled:  Enabled,
	Off:      Off,
	Uses:     func(c *config.Config) []string { return retrieverKeys(c, Section.Of(c).Retrievers) },
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Rewrites.Name, dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name, dataset.PoolEmbeddings.Name},
		Outputs: []string{dataset.DedupRanks.Name},
		Shards:  func(c *config.Config) int { return Section.Of(c).Shards * max(1, len(Section.Of(c).Retrievers)) },
		// What the HTTP retrievers computed is kept in the run's cache
		// and shared with evaluate (jobs/retrieval/memo.go).
		Cache: true,
	}, {
		Name:    "reduce",
		Inputs:  []string{dataset.DedupRanks.Name, dataset.Results.Name, dataset.Rewrites.Name, dataset.Queries.Name},
		Outputs: []string{dataset.DedupResults.Name},
		Reports: []string{ReportMD, ReportCSV, ReportTeX},
	}},
}

// EmbedStage embeds the deduplication pool once per bi-encoder: every
// unique benchmark document's statement, as a document (the model's
// document template), into `pool_embeddings` (retriever, model, document,
// vector). Its bytes depend on the pool (queries, candidates, corpus) and
// on each bi-encoder's retrievers.<name> entry only: a change of rewrites,
// scales or lexical retrievers leaves them current, so downstream's reruns
// reuse them; a changed model or pool makes them stale.
var EmbedStage = stage.Stage{
	Name:     "embed",
	Summary:  "the deduplication pool (every unique query and candidate) embedded once per bi-encoder of downstream.retrievers: queries, candidates, corpus → pool_embeddings",
	Optional: true,
	Enabled:  Enabled,
	Uses: func(c *config.Config) []string {
		// With no bi-encoder there is no key the (empty) output depends
		// on, but a manifest with no configuration reads as one made by
		// an older saber, which is never current: record the seed.
		// downstream: says which retrievers are bi-encoders to embed with
		// and how to shard: read, but not what the embeddings depend on
		// (the step ignores it below), which is each bi-encoder's own
		// retrievers.<name> entry.
		uses := []string{RetrieversKey.Path(), EmbedShardsKey.Path()}
		if keys := retrieverKeys(c, BiEncoders(c)); len(keys) > 0 {
			return append(uses, keys...)
		}
		return append(uses, "seed")
	},
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name},
		Outputs: []string{dataset.PoolEmbeddings.Name},
		Shards:  EmbedTasks,
		Ignores: []string{"downstream"},
		// A pool document's vector is evaluate's of the same text
		// (statement-statement), kept once in the run's cache.
		Cache: true,
	}},
}
