// Package pairs is the pairs stage: for each query in its shard's range of
// the corpus, every document whose topic similarity or summary similarity
// exceeds its floor (benchmark.topic_floor, benchmark.summ_floor), found
// exactly without scoring all N² pairs by lib/relevance (paper §3.2.2,
// §3.3, §3.4; SPEC §3 "Pairs and selection").
//
// By default it stores, per query, its pairs counted per cell of the
// threshold grid (`pair_counts`): all calibrate needs, and all select
// needs to find the eligible queries, in O(N · grid) rather than O(N²);
// select then recomputes the pairs of the queries it chose. With
// pairs.keep_all it writes every pair to `pairs` instead. It writes both
// datasets, the unused one empty, so that the stages' contracts stay
// fixed.
package pairs

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/saber-math/saber/artifacts/dataset"
	calibratedecl "github.com/saber-math/saber/jobs/calibrate/decl"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pairs/decl"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/thresholds"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

// Load reads every topic and summary row (all shards) and the ontology.
func Load(ctx context.Context, env *stage.Env) (*relevance.Corpus, error) {
	return readers.Relevance(ctx, env)
}

// Chunk is how many queries are found between writes: the shard holds one
// chunk's results, not its whole range's (at 283K documents a shard's
// pairs alone were 10 GB).
const Chunk = 2048

func run(ctx context.Context, env *stage.Env) error {
	cfg := env.Config
	keepAll := Section.Of(cfg).KeepAll
	c, err := Load(ctx, env)
	if err != nil {
		return err
	}
	f := relevance.NewFinder(c, config.BenchmarkTopicFloor.Get(cfg), config.BenchmarkSummFloor.Get(cfg))
	lo, hi := env.Shard.Range(len(c.IDs))
	var (
		grid  thresholds.Grid
		edges string
	)
	if !keepAll {
		if !has(cfg, calibratedecl.Section.Name) {
			return fmt.Errorf("pairs: the config holds no calibrate section, whose grid the counts are made over (a bug: load every stage's section)")
		}
		grid = Edges(cfg)
		edges = grid.String()
	}
	pw, err := stage.StreamOutput(ctx, env, dataset.Pairs)
	if err != nil {
		return err
	}
	defer pw.Abort()
	cw, err := stage.StreamOutput(ctx, env, dataset.PairCounts)
	if err != nil {
		return err
	}
	defer cw.Abort()
	workers := stage.Workers(Section.Of(cfg).Workers)
	prog := env.Progress("queries", int64(hi-lo))
	var (
		pairs  [][]relevance.Pair
		counts []counted
		cats   = map[string]int64{}
		total  int64
	)
	if keepAll {
		pairs = make([][]relevance.Pair, Chunk)
	} else {
		counts = make([]counted, Chunk)
	}
	counter := NewCounter(f, grid, edges, config.BenchmarkTopicFloor.Get(cfg), config.BenchmarkSummFloor.Get(cfg))
	for start := lo; start < hi; start += Chunk {
		n := min(Chunk, hi-start)
		err = parallel.For(ctx, n, workers, func(_ context.Context, i int) error {
			if keepAll {
				pairs[i] = f.Query(start + i)
			} else {
				counts[i] = counter.count(c.IDs[start+i], start+i)
			}
			prog.Add(1)
			return nil
		})
		if err != nil {
			return err
		}
		// Rows go out in the datasets' order: queries in id order
		// (c.IDs is sorted), a query's pairs by document (Query sorts).
		for i := range n {
			if keepAll {
				q := c.IDs[start+i]
				rows := make([]dataset.Pair, len(pairs[i]))
				for j, p := range pairs[i] {
					cats[p.Category]++
					rows[j] = dataset.Pair{Query: q, Doc: p.Doc, SimTopic: p.SimTopic, SimSumm: p.SimSumm, Category: p.Category}
				}
				total += int64(len(rows))
				pairs[i] = nil
				if err := pw.Write(rows...); err != nil {
					return err
				}
				continue
			}
			r := &counts[i]
			if r.Pairs == 0 {
				continue // no row for a query without pairs, as `pairs` has none
			}
			total += r.Pairs
			for ci, cat := range categories {
				cats[cat] += r.categories[ci]
			}
			if err := cw.Write(r.PairCount); err != nil {
				return err
			}
			*r = counted{}
		}
	}
	prog.Finish()
	for _, cat := range []string{relevance.CategoryTopic, relevance.CategorySummary, relevance.CategoryBoth} {
		env.Count("pairs_"+cat, cats[cat])
	}
	env.Count("queries", int64(hi-lo))
	env.Count("pairs", total)
	env.Log.Info().Int("queries", hi-lo).Int64("pairs", total).Bool("keep_all", keepAll).Msg("pairs found")
	if _, err := pw.Close(); err != nil {
		return err
	}
	_, err = cw.Close()
	return err
}

// categories are the order of Counter.Count's per-category counts.
var categories = [3]string{relevance.CategoryTopic, relevance.CategorySummary, relevance.CategoryBoth}

// counted is one query's `pair_counts` row and its pairs per category at
// the floors, for the stage's counters.
type counted struct {
	dataset.PairCount
	categories [3]int64
}

// Counter counts queries' pairs over a grid, from the finder's hits, with
// a buffer per worker: at 283K documents the stage counts 3·10⁸ pairs, and
// listing them (ids, category names, a sort) only to count them was most
// of its time and all of its garbage. It is safe for concurrent use.
type Counter struct {
	f          *relevance.Finder
	grid       thresholds.Grid
	edges      string
	tauT, tauS float64
	bufs       sync.Pool // *countBuf
}

type countBuf struct {
	hits    []relevance.Hit
	cells   []int32 // per grid cell, zero between queries
	touched []int32 // the cells this query made non-zero
}

// NewCounter counts the pairs f finds (f made with floors tauT and tauS)
// over grid (edges its String).
func NewCounter(f *relevance.Finder, grid thresholds.Grid, edges string, tauT, tauS float64) *Counter {
	k := &Counter{f: f, grid: grid, edges: edges, tauT: tauT, tauS: tauS}
	cells := grid.Cells()
	k.bufs.New = func() any { return &countBuf{cells: make([]int32, cells)} }
	return k
}

// Count returns query q's `pair_counts` row (id is its id) and its pairs
// per category: topic, summary, both.
func (k *Counter) Count(id string, q int) (dataset.PairCount, [3]int64) {
	r := k.count(id, q)
	return r.PairCount, r.categories
}

func (k *Counter) count(id string, q int) counted {
	b := k.bufs.Get().(*countBuf)
	defer k.bufs.Put(b)
	b.hits = k.f.Hits(q, b.hits[:0])
	r := counted{PairCount: dataset.PairCount{Query: id, Edges: k.edges, Pairs: int64(len(b.hits))}}
	if len(b.hits) == 0 {
		return r
	}
	ht, hs := make([]int32, thresholds.HistBins), make([]int32, thresholds.HistBins)
	b.touched = b.touched[:0]
	for _, h := range b.hits {
		cell := k.grid.Cell(h.SimTopic, h.SimSumm)
		if b.cells[cell] == 0 {
			b.touched = append(b.touched, int32(cell))
		}
		b.cells[cell]++
		ht[thresholds.Bin(h.SimTopic)]++
		hs[thresholds.Bin(h.SimSumm)]++
		switch t, s := h.SimTopic > k.tauT, h.SimSumm > k.tauS; {
		case t && s:
			r.categories[2]++
		case t:
			r.categories[0]++
		default:
			r.categories[1]++
		}
	}
	// The non-empty cells, ascending (a query's pairs fall in a few dozen
	// of the grid's hundreds), and their counts back to zero for the next.
	slices.Sort(b.touched)
	r.Cells, r.Counts = make([]int32, len(b.touched)), make([]int32, len(b.touched))
	for i, cell := range b.touched {
		r.Cells[i], r.Counts[i] = cell, b.cells[cell]
		b.cells[cell] = 0
	}
	r.HistTopic, r.HistSumm = ht, hs
	return r
}
