package ingest

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
)

// Where problems' row groups end is decided by the problems themselves,
// not by counting from the first row, so that a map shard can write the
// row groups of its share that the reduce then copies into problems
// verbatim (dataset.Writer.CopyRowGroup), compressed once: a group ends
// after a problem whose id hashes to 0 modulo groupMean, or at its
// maxGroupRows-th row. Once a shard's rows reach their first such id,
// the groups it cuts are the ones problems has, whatever came before:
// only the groups that straddle two shards' shares, or hold a row another
// shard decides (a duplicate id, an id that falls between another shard's
// ids), are decoded and written again. The bytes of problems depend on
// its rows alone, however many map shards there were.

// groupMean is the mean length of a row group ended by its id; a variable
// so that tests cut small corpora into many groups. Shorter groups cost
// the reduce less at each boundary between two shards' shares (it encodes
// the group that straddles it, on average twice this long), longer ones
// compress better: saber synth's 283K problems take 18.42 MB in groups of
// 50,000 rows, 18.53 of 32,768, 18.66 of 16,384, 19.14 of 8,192.
var groupMean uint64 = 1 << 14

// maxGroupRows ends a group that no id has ended; the dataset writer's own
// row group length, past which it would cut one itself.
const maxGroupRows = dataset.RowGroupRows

// groupCut follows the rows of one sequence of problems and says where
// their row groups end.
type groupCut struct{ n int }

// end counts a row with id and reports whether its group ends after it.
func (c *groupCut) end(id string) bool {
	c.n++
	if c.n >= maxGroupRows || fnv1a(id)%groupMean == 0 {
		c.n = 0
		return true
	}
	return false
}

// fnv1a is the 64-bit FNV-1a hash of s: fixed forever, since it places
// the row groups of every problems part.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// stagedProblems is one map shard's ingest_problems part, opened for the
// reduce: its row groups, where each starts, and the last one decoded.
type stagedProblems struct {
	part   *dataset.Part[dataset.Problem]
	starts []int64 // starts[g] is the first row of group g; the last is the part's rows
	cached int     // the group in rows, -1 for none
	rows   []dataset.Problem
}

func newStagedProblems(p *dataset.Part[dataset.Problem]) *stagedProblems {
	s := &stagedProblems{part: p, cached: -1, starts: []int64{0}}
	for _, rg := range p.RowGroups() {
		s.starts = append(s.starts, s.starts[len(s.starts)-1]+rg.NumRows())
	}
	return s
}

// len is the part's number of rows.
func (s *stagedProblems) len() int64 { return s.starts[len(s.starts)-1] }

// group returns the row group that holds exactly rows [lo, hi), if one does.
func (s *stagedProblems) group(lo, hi int64) (parquet.RowGroup, bool) {
	g := sort.Search(len(s.starts), func(i int) bool { return s.starts[i] >= lo })
	if g+1 < len(s.starts) && s.starts[g] == lo && s.starts[g+1] == hi {
		return s.part.RowGroups()[g], true
	}
	return nil, false
}

// row returns row i, decoding its row group unless it is the last decoded.
func (s *stagedProblems) row(i int64) (dataset.Problem, error) {
	if i < 0 || i >= s.len() {
		return dataset.Problem{}, fmt.Errorf("row %d of a part of %d", i, s.len())
	}
	g := sort.Search(len(s.starts), func(k int) bool { return s.starts[k] > i }) - 1
	if g != s.cached {
		rg := s.part.RowGroups()[g]
		rows := make([]dataset.Problem, rg.NumRows())
		r := parquet.NewGenericRowGroupReader[dataset.Problem](rg)
		n, err := r.Read(rows)
		r.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			return dataset.Problem{}, err
		}
		if n != len(rows) {
			return dataset.Problem{}, fmt.Errorf("row group %d: read %d rows of %d", g, n, len(rows))
		}
		s.cached, s.rows = g, rows
	}
	return s.rows[i-s.starts[g]], nil
}
