package downstream

import (
	"context"
	"fmt"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
)

// Pool is the deduplication pool: every unique document of the benchmark
// — its queries and their candidates, each once however many queries list
// it (paper B.4: "we remove repeated entries") — sorted by id, with its
// statement.
type Pool struct {
	IDs        []string
	Statements []string
	index      map[string]int
	// Queries are the benchmark's queries (sorted by id) and Candidates
	// each one's candidates (sorted by id).
	Queries    []dataset.Query
	Candidates map[string][]string
}

// Index returns the position of id in the pool.
func (p *Pool) Index(id string) (int, bool) {
	i, ok := p.index[id]
	return i, ok
}

// readPool reads the queries, all candidates and the statements of the
// pool's documents. A query listed among its own candidates is refused
// (select never does that; the experiment's pool would then hold the
// original twice over).
func readPool(ctx context.Context, env *stage.Env) (*Pool, error) {
	qs, err := readers.Queries(ctx, env)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(qs))
	for _, q := range qs {
		want[q.ID] = true
	}
	cands, err := readers.Candidates(ctx, env, want)
	if err != nil {
		return nil, err
	}
	ids := make(map[string]bool)
	for _, q := range qs {
		ids[q.ID] = true
		for _, d := range cands[q.ID] {
			if d == q.ID {
				return nil, stage.BadInput(fmt.Errorf("candidates: query %s is listed as its own candidate (rerun select)", q.ID))
			}
			ids[d] = true
		}
	}
	texts, err := readers.Texts(ctx, env, qs, cands)
	if err != nil {
		return nil, err
	}
	p := &Pool{index: make(map[string]int, len(ids)), Queries: qs, Candidates: cands}
	for id := range ids {
		p.IDs = append(p.IDs, id)
	}
	slices.Sort(p.IDs)
	p.Statements = make([]string, len(p.IDs))
	for i, id := range p.IDs {
		p.index[id] = i
		p.Statements[i] = texts[id].Statement
	}
	return p, nil
}
