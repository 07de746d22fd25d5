// Package dedup removes near-duplicate problems with MinHash LSH, as
// datatrove does (SPEC §3): 5-grams of the normalised statement's tokens,
// 14 bands × 8 rows as the candidate generator. The normalisation
// (minhash.NormalizeMath) keeps signs, operators and the maths in every
// delimiter, so that a sign flip is no Jaccard 1.0. A candidate is
// confirmed at exact Jaccard of the shingle sets ≥ dedup.threshold and,
// with dedup.guard, only when the two statements have the same numbers and
// the same sentences but for instructions (minhash.Guard). Clusters are stars around the member kept (source
// priority, then smallest id) unless dedup.clustering is union_find.
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
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/dedup/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/minhash"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/unionfind"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": signatures, "reduce": reduce})

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
		sh := shingles(cfg, r.Statement)
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

// pair is a near-duplicate pair of signature indices, i < j, with its exact
// Jaccard once confirmed.
type pair struct {
	i, j    int
	jaccard float64
}

// estimateSlack widens the MinHash pre-filter below dedup.threshold: with
// 112 permutations the estimate's standard deviation is at most 0.05, so a
// pair whose exact Jaccard reaches the threshold is dropped by the
// pre-filter with negligible probability, while unrelated bucket-mates are
// not shingled again.
const estimateSlack = 0.2

// normalized is the text dedup shingles a statement by: a leading
// enumeration label ("Problem 4.") is where a re-post put it in a list,
// no part of the problem.
func normalized(statement string) string {
	return minhash.NormalizeMath(minhash.StripLabel(statement))
}

// shingles are the shingles dedup compares a statement by.
func shingles(cfg *Config, statement string) []uint64 {
	return minhash.Shingles(normalized(statement), cfg.NGram)
}

// sameNorm is a candidate pair whose statements are identical after
// normalisation though their raw texts differ, with what became of it:
// the guard's reason to keep it apart, or "" when it was confirmed.
type sameNorm struct {
	i, j   int
	reason minhash.GuardReason
}

// confirmed is what confirm makes of the candidates.
type confirmed struct {
	pairs     []pair                      // confirmed, exact Jaccard
	guarded   map[minhash.GuardReason]int // pairs over the threshold the guard kept apart, by reason
	sameNorms []sameNorm
}

// confirm keeps the candidate pairs whose exact Jaccard of shingle sets
// reaches dedup.threshold and, with dedup.guard, that minhash.Guard does not
// keep apart. Only the statements of candidates are normalised again. A
// corpus with one huge templated cluster has millions of candidates, so
// it says how far it is and stops at a signal between pairs.
func confirm(ctx context.Context, cfg *Config, probs []dataset.Problem, cands []pair, progress func(pairs int64)) (confirmed, error) {
	type norm struct {
		text     string
		shingles []uint64
	}
	cache := map[int]norm{}
	of := func(i int) norm {
		n, ok := cache[i]
		if !ok {
			n.text = normalized(probs[i].Statement)
			n.shingles = minhash.Shingles(n.text, cfg.NGram)
			cache[i] = n
		}
		return n
	}
	out := confirmed{guarded: map[minhash.GuardReason]int{}}
	const every = 1 << 12
	for k, p := range cands {
		if k%every == 0 && k > 0 {
			progress(every)
			if ctx.Err() != nil {
				return confirmed{}, stage.ErrInterrupted
			}
		}
		a, b := of(p.i), of(p.j)
		p.jaccard = minhash.Jaccard(a.shingles, b.shingles)
		if p.jaccard < cfg.Threshold {
			continue
		}
		var reason minhash.GuardReason
		if cfg.GuardOn() {
			reason = minhash.Guard(probs[p.i].Statement, probs[p.j].Statement)
		}
		if a.text == b.text && probs[p.i].Statement != probs[p.j].Statement {
			out.sameNorms = append(out.sameNorms, sameNorm{i: p.i, j: p.j, reason: reason})
		}
		if reason != "" {
			out.guarded[reason]++
			continue
		}
		out.pairs = append(out.pairs, p)
	}
	if len(cands) > 0 {
		progress(int64(len(cands)-1)%every + 1)
	}
	return out, nil
}

// total is the number of pairs the guard kept apart.
func (c confirmed) total() int {
	n := 0
	for _, v := range c.guarded {
		n += v
	}
	return n
}

// star clusters n items without chaining: items are visited in keep order
// (source priority, then index, i.e. id order); an item not yet taken
// becomes a kept member and takes every confirmed neighbour not yet taken.
// A member thus always is a confirmed duplicate of its cluster's kept
// member. Each returned group starts with its kept member; the rest are in
// index order.
func star(n int, pairs []pair, prio func(int) int) [][]int {
	adj := make(map[int][]int)
	for _, p := range pairs {
		adj[p.i] = append(adj[p.i], p.j)
		adj[p.j] = append(adj[p.j], p.i)
	}
	order := make([]int, 0, len(adj))
	for i := range adj {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool {
		pa, pb := prio(order[a]), prio(order[b])
		if pa != pb {
			return pa < pb
		}
		return order[a] < order[b]
	})
	taken := make([]bool, n)
	var groups [][]int
	for _, k := range order {
		if taken[k] {
			continue
		}
		var members []int
		for _, m := range adj[k] {
			if !taken[m] {
				members = append(members, m)
			}
		}
		if len(members) == 0 {
			continue
		}
		taken[k] = true
		slices.Sort(members)
		members = slices.Compact(members)
		for _, m := range members {
			taken[m] = true
		}
		groups = append(groups, append([]int{k}, members...))
	}
	sort.Slice(groups, func(a, b int) bool { return groups[a][0] < groups[b][0] })
	return groups
}

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

	cands, err := candidates(ctx, env, sigs)
	if err != nil {
		return err
	}
	// The signatures' values are not needed past the candidates (their ids
	// and sources are): dropping them before the problems are read keeps the
	// reduce's peak at the larger of the two, not their sum (0.9 KB a
	// document, 0.9 GB at a million).
	for i := range sigs {
		sigs[i].MinHash = nil
	}
	// The exact check needs the statements: read problems once (the corpus
	// is built from them in memory anyway) and check it matches signatures
	// row for row.
	probs := make([]dataset.Problem, 0, len(sigs))
	for _, p := range probParts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Problem) error {
			probs = append(probs, rows...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(probs) != len(sigs) {
		return stage.BadInput(fmt.Errorf("problems has %d rows but signatures %d: problems changed after the map step; rerun `dedup --force`", len(probs), len(sigs)))
	}
	for i := range probs {
		if probs[i].ID != sigs[i].ID {
			return stage.BadInput(fmt.Errorf("problems row %d is %q but signature %q: problems changed after the map step; rerun `dedup --force`", i+1, probs[i].ID, sigs[i].ID))
		}
	}
	prog := env.Progress("candidate pairs checked", int64(len(cands)))
	conf, err := confirm(ctx, cfg, probs, cands, prog.Add)
	if err != nil {
		return err
	}
	prog.Finish()
	pairs, guarded := conf.pairs, conf.total()
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
	var groups [][]int
	if cfg.Clustering == ClusterUnionFind {
		uf := unionfind.New(len(sigs))
		for _, p := range pairs {
			uf.Union(p.i, p.j)
		}
		for _, g := range uf.Groups() {
			kept := g[0] // groups are sorted by index, and indices are in id order
			for _, m := range g[1:] {
				if prio(m) < prio(kept) {
					kept = m
				}
			}
			groups = append(groups, append([]int{kept}, slices.DeleteFunc(slices.Clone(g), func(m int) bool { return m == kept })...))
		}
	} else {
		groups = star(len(sigs), pairs, prio)
	}
	sim := map[[2]int]float64{}
	for _, p := range pairs {
		sim[[2]int{p.i, p.j}] = p.jaccard
	}
	similarity := func(a, b int) float64 {
		if a > b {
			a, b = b, a
		}
		if j, ok := sim[[2]int{a, b}]; ok {
			return j
		}
		// union_find: a member linked to the kept one only through others.
		return minhash.Jaccard(shingles(cfg, probs[a].Statement), shingles(cfg, probs[b].Statement))
	}
	var dups []dataset.Duplicate
	dropped := map[string]bool{}
	keptCount := map[string]int32{}
	clusters := 0
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		clusters++
		kept := g[0]
		for _, m := range g[1:] {
			dups = append(dups, dataset.Duplicate{
				Cluster: sigs[kept].ID, Kept: sigs[kept].ID, Dropped: sigs[m].ID, DroppedSource: sigs[m].Source,
				Similarity: similarity(kept, m),
			})
			dropped[sigs[m].ID] = true
		}
		keptCount[sigs[kept].ID] = int32(len(g) - 1)
	}
	env.Count("candidate_pairs", int64(len(cands)))
	env.Count("guarded_pairs", int64(guarded))
	env.Count("candidate_pairs_confirmed", int64(len(pairs)))
	env.Count("clusters", int64(clusters))
	env.Count("dropped", int64(len(dups)))

	corpus := make([]dataset.Document, 0, len(sigs)-len(dups))
	for _, r := range probs {
		if dropped[r.ID] {
			continue
		}
		corpus = append(corpus, dataset.Document{
			ID: r.ID, Source: r.Source, Statement: r.Statement, Solution: r.Solution,
			Subject: r.Subject, License: r.License, Origin: r.Origin, Duplicates: keptCount[r.ID], NoTraining: r.NoTraining,
		})
	}
	seen := len(probs)
	env.Count("kept", int64(len(corpus)))
	env.Log.Info().Int("problems", seen).Int("clusters", clusters).Int("dropped", len(dups)).Int("kept", len(corpus)).Msg("deduplicated")
	if err := stage.WriteOutput(ctx, env, dataset.Corpus, corpus); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Duplicates, dups); err != nil {
		return err
	}
	rep := dedupReport(reportInput{cfg: cfg, problems: len(probs), candidates: len(cands), guarded: conf.guarded, groups: groups, pairs: pairs, sameNorms: conf.sameNorms, probs: probs})
	if err := stage.WriteReport(ctx, env, ReportDedup, rep); err != nil {
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
		parallel.Go(func() {
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
						if j > i && minhash.EstimatedJaccard(sigs[i].MinHash, sigs[j].MinHash) >= cfg.Threshold-estimateSlack {
							found[w] = append(found[w], pair{i: i, j: j})
						}
					}
				}
				prog.Add(int64(hi - lo))
			}
		})
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
