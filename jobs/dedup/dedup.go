// Package dedup removes near-duplicate problems with MinHash LSH, as
// datatrove does (SPEC §3): word 5-grams of the normalised statement,
// 14 bands × 8 rows, candidates confirmed at estimated Jaccard ≥ 0.8,
// union-find clusters, one member kept by source priority then smallest id.
//
// The map step computes signatures for a contiguous range of the sorted
// problems; the reduce indexes every signature, clusters, and writes
// `corpus` and `duplicates`. Signatures depend only on the statement and the
// run seed, and the reduce sees them in id order, so the result does not
// depend on the number of shards.
package dedup

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/minhash"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/unionfind"
)

// Stage is the dedup stage.
var Stage = stage.Stage{
	Name:    "dedup",
	Summary: "MinHash LSH near-duplicate removal: problems → corpus, duplicates",
	Section: Section,
	Uses:    func(*config.Config) []string { return []string{"seed"} },
	Steps: []stage.Step{
		{
			Name:    "map",
			Inputs:  []string{dataset.Problems.Name},
			Outputs: []string{dataset.Signatures.Name},
			Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
			Run:     signatures,
		},
		{
			Name:    "reduce",
			Inputs:  []string{dataset.Signatures.Name, dataset.Problems.Name},
			Outputs: []string{dataset.Corpus.Name, dataset.Duplicates.Name},
			Run:     reduce,
		},
	},
}

// statementRow is the projection of `problems` the map step needs.
type statementRow struct {
	ID        string `parquet:"id"`
	Source    string `parquet:"source"`
	Statement string `parquet:"statement"`
}

// hasher is the same for every document of a run: its permutations derive
// from the run seed and the stage, never from a shard.
func hasher(env *stage.Env) *minhash.Hasher {
	cfg := Section.Of(env.Config)
	return minhash.NewHasher(cfg.Bands*cfg.Rows, seed.Derive(env.RunSeed(), "dedup", "permutations"))
}

func signatures(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	parts, err := env.Upstream(ctx, dataset.Problems.Name)
	if err != nil {
		return err
	}
	lo, hi := env.Shard.Range(dataset.TotalRows(parts))
	rows, err := stage.ReadRange[statementRow](ctx, env, parts, lo, hi)
	if err != nil {
		return err
	}
	h := hasher(env)
	sigs := make([]dataset.Signature, 0, len(rows))
	prog := env.Progress("signatures", int64(len(rows)))
	for i, r := range rows {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		sh := minhash.Shingles(minhash.Normalize(r.Statement), cfg.NGram)
		sigs = append(sigs, dataset.Signature{ID: r.ID, Source: r.Source, Shingles: int32(len(sh)), MinHash: h.Signature(sh)})
		prog.Add(1)
	}
	prog.Finish()
	var empty int64
	for _, s := range sigs {
		if s.Shingles == 0 {
			empty++
		}
	}
	env.Count("signatures", int64(len(sigs)))
	env.Count("empty_statements", empty)
	if err := stage.WriteOutput(ctx, env, dataset.Signatures, sigs); err != nil {
		return err
	}
	return nil
}

// pair is a confirmed near-duplicate pair of signature indices, i < j.
type pair struct{ i, j int }

func reduce(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	sigParts, err := env.Upstream(ctx, dataset.Signatures.Name)
	if err != nil {
		return err
	}
	probParts, err := env.Upstream(ctx, dataset.Problems.Name)
	if err != nil {
		return err
	}
	var sigs []dataset.Signature
	for _, p := range sigParts {
		rows, err := stage.ReadPart[dataset.Signature](ctx, env, p)
		if err != nil {
			return err
		}
		sigs = append(sigs, rows...)
	}
	for i := 1; i < len(sigs); i++ {
		if sigs[i-1].ID >= sigs[i].ID {
			return fmt.Errorf("signatures are not in id order at %q, %q: the map shards overlap", sigs[i-1].ID, sigs[i].ID)
		}
	}
	want := cfg.Bands * cfg.Rows
	for _, s := range sigs {
		if s.Shingles > 0 && len(s.MinHash) != want {
			return stage.BadInput(fmt.Errorf("signature of %s has %d values, want %d: signatures were made with another config; rerun `dedup --force`", s.ID, len(s.MinHash), want))
		}
	}

	pairs, err := candidates(ctx, env, sigs)
	if err != nil {
		return err
	}
	uf := unionfind.New(len(sigs))
	for _, p := range pairs {
		uf.Union(p.i, p.j)
	}
	rank := map[string]int{}
	for i, s := range cfg.Priority {
		rank[s] = i
	}
	prio := func(i int) int {
		if r, ok := rank[sigs[i].Source]; ok {
			return r
		}
		return len(rank)
	}
	var dups []dataset.Duplicate
	dropped := map[string]bool{}
	keptCount := map[string]int32{}
	clusters := 0
	for _, g := range uf.Groups() {
		if len(g) < 2 {
			continue
		}
		clusters++
		kept := g[0] // groups are sorted by index, and indices are in id order
		for _, m := range g[1:] {
			if prio(m) < prio(kept) {
				kept = m
			}
		}
		for _, m := range g {
			if m == kept {
				continue
			}
			dups = append(dups, dataset.Duplicate{
				Cluster: sigs[kept].ID, Kept: sigs[kept].ID, Dropped: sigs[m].ID, DroppedSource: sigs[m].Source,
				Similarity: minhash.EstimatedJaccard(sigs[m].MinHash, sigs[kept].MinHash),
			})
			dropped[sigs[m].ID] = true
		}
		keptCount[sigs[kept].ID] = int32(len(g) - 1)
	}
	env.Count("candidate_pairs_confirmed", int64(len(pairs)))
	env.Count("clusters", int64(clusters))
	env.Count("dropped", int64(len(dups)))

	corpus := make([]dataset.Document, 0, len(sigs)-len(dups))
	var seen int
	for _, p := range probParts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Problem) error {
			for _, r := range rows {
				seen++
				if dropped[r.ID] {
					continue
				}
				corpus = append(corpus, dataset.Document{
					ID: r.ID, Source: r.Source, Statement: r.Statement, Solution: r.Solution,
					Subject: r.Subject, License: r.License, Origin: r.Origin, Duplicates: keptCount[r.ID], NoTraining: r.NoTraining,
				})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if seen != len(sigs) {
		return stage.BadInput(fmt.Errorf("problems has %d rows but signatures %d: problems changed after the map step; rerun `dedup --force`", seen, len(sigs)))
	}
	env.Count("kept", int64(len(corpus)))
	env.Log.Info().Int("problems", seen).Int("clusters", clusters).Int("dropped", len(dups)).Int("kept", len(corpus)).Msg("deduplicated")
	if err := stage.WriteOutput(ctx, env, dataset.Corpus, corpus); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Duplicates, dups); err != nil {
		return err
	}
	return nil
}

// candidates indexes every signature in the LSH index and returns the pairs
// whose estimated Jaccard reaches the threshold, sorted. Queries run on all
// cores; the result does not depend on their scheduling.
func candidates(ctx context.Context, env *stage.Env, sigs []dataset.Signature) ([]pair, error) {
	cfg := Section.Of(env.Config)
	idx, err := minhash.NewIndex(cfg.Bands, cfg.Rows)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	for i, s := range sigs {
		if s.Shingles > 0 {
			idx.Add(i, s.MinHash)
		}
	}
	idx.Build()
	workers := runtime.GOMAXPROCS(0)
	found := make([][]pair, workers)
	prog := env.Progress("lsh query", int64(len(sigs)))
	const chunk = 1024
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(sigs) || ctx.Err() != nil {
					return
				}
				hi := min(lo+chunk, len(sigs))
				for i := lo; i < hi; i++ {
					if sigs[i].Shingles == 0 {
						continue
					}
					for _, j := range idx.Query(sigs[i].MinHash) {
						if j > i && minhash.EstimatedJaccard(sigs[i].MinHash, sigs[j].MinHash) >= cfg.Threshold {
							found[w] = append(found[w], pair{i, j})
						}
					}
				}
				prog.Add(int64(hi - lo))
			}
		}(w)
	}
	wg.Wait()
	prog.Finish()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var pairs []pair
	for _, f := range found {
		pairs = append(pairs, f...)
	}
	sort.Slice(pairs, func(a, b int) bool {
		if pairs[a].i != pairs[b].i {
			return pairs[a].i < pairs[b].i
		}
		return pairs[a].j < pairs[b].j
	})
	return pairs, nil
}
