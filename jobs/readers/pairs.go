package readers

import (
	"context"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/stage"
)

// PairsByQuery streams the parts of `pairs` in order and calls fn once per
// query with all of its rows, in document order. Memory stays at one
// query's rows however large the dataset: calibrate and select run as one
// task over the whole corpus's pairs. fn owns rows. Rows of one query are
// joined even if they span parts, and a query seen again after another one
// (parts out of order) is an error, since that would split its counts.
// parts are the dataset's, from env.Upstream.
func PairsByQuery(ctx context.Context, env *stage.Env, parts []layout.Object, fn func(query string, rows []dataset.Pair) error) error {
	var (
		cur  string
		rows []dataset.Pair
		seen = map[string]bool{}
	)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		q, r := cur, rows
		rows = nil
		return fn(q, r)
	}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(batch []dataset.Pair) error {
			for _, r := range batch {
				if r.Query != cur {
					if err := flush(); err != nil {
						return err
					}
					if seen[r.Query] {
						return &OrderError{URI: p.URI, Query: r.Query}
					}
					seen[r.Query], cur = true, r.Query
				}
				rows = append(rows, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return flush()
}

// OrderError reports a pairs dataset whose rows are not grouped by query.
type OrderError struct{ URI, Query string }

func (e *OrderError) Error() string {
	return "read " + e.URI + ": rows of query " + e.Query + " are not contiguous (pairs parts out of order or not sorted)"
}
