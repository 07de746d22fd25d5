package readers

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/summtok"
	"github.com/saber-math/saber/lib/thresholds"
)

// PairSource is what the pairs stage left for calibrate and select: every
// pair in `pairs` (pairs.keep_all) or each query's counts in
// `pair_counts` (the default). The stage writes both datasets, one of
// them empty, so that the steps' contracts do not depend on the config.
type PairSource struct {
	// Counts says `pair_counts` holds the result; Pairs is then empty.
	Counts      bool
	PairParts   []layout.Object
	CountsParts []layout.Object
}

// Rows is the rows of the dataset that holds the result.
func (s PairSource) Rows() int64 {
	if s.Counts {
		return int64(dataset.TotalRows(s.CountsParts))
	}
	return int64(dataset.TotalRows(s.PairParts))
}

// Pairs finds which of pairs' outputs holds its result (the step must
// declare both as inputs). Both holding rows means shards written under
// different pairs.keep_all, which no reader can combine.
func Pairs(ctx context.Context, env *stage.Env) (PairSource, error) {
	pp, err := env.Upstream(ctx, dataset.Pairs.Name)
	if err != nil {
		return PairSource{}, err
	}
	cp, err := env.Upstream(ctx, dataset.PairCounts.Name)
	if err != nil {
		return PairSource{}, err
	}
	s := PairSource{Counts: dataset.TotalRows(pp) == 0, PairParts: pp, CountsParts: cp}
	if dataset.TotalRows(pp) > 0 && dataset.TotalRows(cp) > 0 {
		return s, stage.BadInput(fmt.Errorf("both pairs and pair_counts hold rows: their shards were written with different pairs.keep_all; rerun pairs with --force"))
	}
	return s, nil
}

// PairCountsByQuery streams the parts of `pair_counts` in order and calls
// fn with each row (fn must not keep it past the call) and the grid its
// cells are counted over. Every row must have the same grid.
func PairCountsByQuery(ctx context.Context, env *stage.Env, parts []layout.Object, fn func(row *dataset.PairCount, grid thresholds.Grid) error) error {
	var (
		edges string
		grid  thresholds.Grid
		prev  string
	)
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(batch []dataset.PairCount) error {
			for i := range batch {
				r := &batch[i]
				if r.Edges != edges {
					if edges != "" {
						return stage.BadInput(fmt.Errorf("read %s: query %s counted over another threshold grid than the rows before it (pairs shards from different configs): rerun pairs with --force", p.URI, r.Query))
					}
					g, err := thresholds.ParseGrid(r.Edges)
					if err != nil {
						return stage.BadInput(fmt.Errorf("read %s: %w", p.URI, err))
					}
					edges, grid = r.Edges, g
				}
				if r.Query <= prev {
					return &OrderError{URI: p.URI, Query: r.Query}
				}
				prev = r.Query
				if len(r.Cells) != len(r.Counts) {
					return stage.BadInput(fmt.Errorf("read %s: query %s has %d cells and %d counts", p.URI, r.Query, len(r.Cells), len(r.Counts)))
				}
				for _, c := range r.Cells {
					if c < 0 || int(c) >= grid.Cells() {
						return stage.BadInput(fmt.Errorf("read %s: query %s: cell %d outside its grid of %d", p.URI, r.Query, c, grid.Cells()))
					}
				}
				if err := fn(r, grid); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
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

// Relevance reads every topic and summary row (all shards) and the
// ontology into the corpus the pairs finder searches: pairs over all
// queries, select again for the queries it chose when only counts were
// stored.
func Relevance(ctx context.Context, env *stage.Env) (*relevance.Corpus, error) {
	tree, err := Ontology(ctx, env)
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
		err := stage.ScanPart(ctx, env, p, func(rows []topicProj) error {
			for _, r := range rows {
				nodes := make([]int, 0, len(r.Topics))
				for _, path := range r.Topics {
					n, ok := tree.Lookup(path)
					if !ok {
						return stage.BadInput(fmt.Errorf("topics of %s: %q is not in the configured ontology (were topics made with another one?)", r.ID, path))
					}
					nodes = append(nodes, n)
				}
				topics[r.ID] = nodes
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	tokens := map[string][]string{}
	for _, p := range sparts {
		err := stage.ScanPart(ctx, env, p, func(rows []summProj) error {
			for _, r := range rows {
				if !r.NoCoreIdea {
					tokens[r.ID] = summtok.Set(r.CoreIdea)
				} else {
					tokens[r.ID] = nil
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return relevance.NewCorpus(tree, topics, tokens), nil
}
