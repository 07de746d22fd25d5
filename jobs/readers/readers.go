// Package readers holds the typed readers of a run's datasets that more
// than one stage needs — the corpus's texts, the benchmark's queries and
// candidates, the judgments, the pairs one query at a time, the
// thresholds, the domains, the ontology — so that no stage package imports
// another for a reader. Every reader goes through the stage runtime: it
// refuses a dataset its step did not declare, hashes each part as it reads
// it (refusing one that changed since it was written) and records what it
// read in the shard's manifest.
package readers

import (
	"context"
	"fmt"
	"sort"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// Doc is the projection of `corpus` the stages that read texts use.
type Doc struct {
	ID        string `parquet:"id"`
	Statement string `parquet:"statement"`
	Solution  string `parquet:"solution"`
}

// SettingTexts returns the query's and the documents' texts in a setting
// of evaluate.settings: statement-full (the default), full-full or
// statement-statement, where full is the statement, a blank line and the
// solution (§4.1). Evaluate scores these texts and analyze splits them.
func SettingTexts(setting string, q *Doc, docs []*Doc) (string, []string, error) {
	full := func(d *Doc) string { return d.Statement + "\n\n" + d.Solution }
	var qt string
	docFull := true
	switch setting {
	case "statement-full":
		qt = q.Statement
	case "full-full":
		qt = full(q)
	case "statement-statement":
		qt, docFull = q.Statement, false
	default:
		return "", nil, fmt.Errorf("unknown setting %q", setting)
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		if docFull {
			out[i] = full(d)
		} else {
			out[i] = d.Statement
		}
	}
	return qt, out, nil
}

// ShardDocs reads this shard's contiguous range of the corpus.
func ShardDocs(ctx context.Context, env *stage.Env) ([]Doc, error) {
	parts, err := env.Upstream(ctx, dataset.Corpus.Name)
	if err != nil {
		return nil, err
	}
	lo, hi := env.Shard.Range(dataset.TotalRows(parts))
	return stage.ReadRange[Doc](ctx, env, parts, lo, hi)
}

// Queries reads the benchmark's queries (sorted by id).
func Queries(ctx context.Context, env *stage.Env) ([]dataset.Query, error) {
	parts, err := env.Upstream(ctx, dataset.Queries.Name)
	if err != nil {
		return nil, err
	}
	var qs []dataset.Query
	for _, p := range parts {
		rows, err := stage.ReadPart[dataset.Query](ctx, env, p)
		if err != nil {
			return nil, err
		}
		qs = append(qs, rows...)
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].ID < qs[j].ID })
	return qs, nil
}

// RangeQueries reads the queries in range r of the benchmark's (sorted by
// id) and their candidates, by query, each list sorted by document id: the
// work of one shard of judge, rate or evaluate.
func RangeQueries(ctx context.Context, env *stage.Env, r shard.Spec) ([]dataset.Query, map[string][]string, error) {
	all, err := Queries(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	return InRange(ctx, env, all, r)
}

// InRange is RangeQueries over the queries already read (all of them, as
// Queries returns them), for a step that needs them all as well.
func InRange(ctx context.Context, env *stage.Env, all []dataset.Query, r shard.Spec) ([]dataset.Query, map[string][]string, error) {
	lo, hi := r.Range(len(all))
	qs := all[lo:hi]
	mine := make(map[string]bool, len(qs))
	for _, q := range qs {
		mine[q.ID] = true
	}
	cands, err := Candidates(ctx, env, mine)
	if err != nil {
		return nil, nil, err
	}
	return qs, cands, nil
}

// Candidates reads the candidates of the given queries, by query, each
// list sorted by document id.
func Candidates(ctx context.Context, env *stage.Env, queries map[string]bool) (map[string][]string, error) {
	parts, err := env.Upstream(ctx, dataset.Candidates.Name)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Candidate) error {
			for _, r := range rows {
				if queries[r.Query] {
					out[r.Query] = append(out[r.Query], r.Doc)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, docs := range out {
		sort.Strings(docs)
	}
	return out, nil
}

// Texts reads from `corpus` the statement and solution of the queries qs
// and of their candidates cands, by id.
func Texts(ctx context.Context, env *stage.Env, qs []dataset.Query, cands map[string][]string) (map[string]*Doc, error) {
	want := map[string]bool{}
	for _, q := range qs {
		want[q.ID] = true
		for _, d := range cands[q.ID] {
			want[d] = true
		}
	}
	parts, err := env.Upstream(ctx, dataset.Corpus.Name)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Doc, len(want))
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []Doc) error {
			for _, r := range rows {
				if want[r.ID] {
					d := r
					out[r.ID] = &d
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for id := range want {
		if out[id] == nil {
			return nil, stage.BadInput(fmt.Errorf("document %s is a query or candidate but not in the corpus (was the corpus rebuilt after select?)", id))
		}
	}
	return out, nil
}

// Judgments reads the judgments of the given queries, by query, in the
// dataset's order (round, match).
func Judgments(ctx context.Context, env *stage.Env, queries map[string]bool) (map[string][]dataset.Judgment, error) {
	parts, err := env.Upstream(ctx, dataset.Judgments.Name)
	if err != nil {
		return nil, err
	}
	js := map[string][]dataset.Judgment{}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Judgment) error {
			for _, r := range rows {
				if queries[r.Query] {
					js[r.Query] = append(js[r.Query], r)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return js, nil
}
