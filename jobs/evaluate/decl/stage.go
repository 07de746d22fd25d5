package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the evaluate stage.
var Stage = stage.Stage{
	Name:    "evaluate",
	Summary: "each retriever ranks every query's candidates, per text setting: queries, candidates, corpus → runs, timings",
	// The evaluate: section is shared with report, which scores exactly
	// the systems it lists.
	// A retriever that keeps its work in the run's cache is timed on the
	// latency sample alone, cold (App. C.5): the seed draws it,
	// report.latency_queries sizes it.
	Uses: func(c *config.Config) []string {
		u := append([]string{"evaluate"}, c.RetrieverKeys()...)
		if c.MemoRetrievers() {
			u = append(u, "seed", reportdecl.LatencyQueriesKey.Path())
		}
		return u
	},
	// It needs only the benchmark, not the ratings: it runs beside judge
	// and rate.
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name},
		Outputs: []string{dataset.Runs.Name, dataset.Timings.Name},
		Shards:  func(c *config.Config) int { return c.EvalTasks() },
		// The memo of what the HTTP retrievers computed
		// (jobs/retrieval/memo.go) lives in the run's cache.
		Cache:    true,
		Forecast: forecast,
	}},
}
