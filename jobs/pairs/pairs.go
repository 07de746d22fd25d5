// Package pairs is the pairs stage: for each query in its shard's range of
// the corpus, every document whose topic similarity or summary similarity
// exceeds its floor (benchmark.topic_floor, benchmark.summ_floor), found
// exactly without scoring all N² pairs by lib/relevance (paper §3.2.2,
// §3.3, §3.4; SPEC §3 "Pairs and selection"), and written to `pairs`.
package pairs

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/summtok"
)

// Stage is the pairs stage.
var Stage = stage.Stage{
	Name:    "pairs",
	Summary: "every (query, document) pair over the topic or summary floor: topics, summaries → pairs",
	Section: Section,
	Uses: func(*config.Config) []string {
		return []string{"benchmark.ontology", "benchmark.topic_floor", "benchmark.summ_floor"}
	},
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Topics.Name, dataset.Summaries.Name},
		Outputs: []string{dataset.Pairs.Name},
		Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
		Run:     run,
	}},
}

type topicProj struct {
	ID     string   `parquet:"id"`
	Topics []string `parquet:"topics,list"`
}

type summProj struct {
	ID         string `parquet:"id"`
	NoCoreIdea bool   `parquet:"no_core_idea"`
	CoreIdea   string `parquet:"core_idea"`
}

// Load reads every topic and summary row (all shards) and the ontology.
func Load(ctx context.Context, env *stage.Env) (*relevance.Corpus, error) {
	tree, err := readers.Ontology(ctx, env)
	if err != nil {
		return nil, err
	}
	tparts, err := env.Upstream(ctx, dataset.Topics.Name)
	if err != nil {
		return nil, err
	}
	sparts, err := env.Upstream(ctx, dataset.Summaries.Name)
	if err != nil {
		return nil, err
	}
	topics := map[string][]int{}
	for _, p := range tparts {
		rows, err := stage.ReadPart[topicProj](ctx, env, p)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			nodes := make([]int, 0, len(r.Topics))
			for _, path := range r.Topics {
				n, ok := tree.Lookup(path)
				if !ok {
					return nil, stage.BadInput(fmt.Errorf("topics of %s: %q is not in the configured ontology (were topics made with another one?)", r.ID, path))
				}
				nodes = append(nodes, n)
			}
			topics[r.ID] = nodes
		}
	}
	tokens := map[string][]string{}
	for _, p := range sparts {
		rows, err := stage.ReadPart[summProj](ctx, env, p)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if !r.NoCoreIdea {
				tokens[r.ID] = summtok.Set(r.CoreIdea)
			} else {
				tokens[r.ID] = nil
			}
		}
	}
	return relevance.NewCorpus(tree, topics, tokens), nil
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := env.Config
	c, err := Load(ctx, env)
	if err != nil {
		return err
	}
	f := relevance.NewFinder(c, cfg.Benchmark.TopicFloor, cfg.Benchmark.SummFloor)
	lo, hi := env.Shard.Range(len(c.IDs))
	results := make([][]relevance.Pair, hi-lo)
	prog := env.Progress("queries", int64(hi-lo))
	err = parallel.For(ctx, hi-lo, stage.Workers(Section.Of(cfg).Workers, false, cfg.LLM), func(_ context.Context, i int) error {
		results[i] = f.Query(lo + i)
		prog.Add(1)
		return nil
	})
	prog.Finish()
	if err != nil {
		return err
	}
	var rows []dataset.Pair
	for i, r := range results {
		q := c.IDs[lo+i]
		for _, p := range r {
			env.Count("pairs_"+p.Category, 1)
			rows = append(rows, dataset.Pair{Query: q, Doc: p.Doc, SimTopic: p.SimTopic, SimSumm: p.SimSumm, Category: p.Category})
		}
	}
	env.Count("queries", int64(hi-lo))
	env.Count("pairs", int64(len(rows)))
	env.Log.Info().Int("queries", hi-lo).Int("pairs", len(rows)).Msg("pairs found")
	return stage.WriteOutput(ctx, env, dataset.Pairs, rows)
}
