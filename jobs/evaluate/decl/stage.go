package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the evaluate stage.
var Stage = stage.Stage{
	Name:    "evaluate",
	Summary: "each retriever ranks every query's candidates, per text setting: queries, candidates, corpus → runs, timings",
	// The evaluate: section is shared with report, which scores exactly
	// the systems it lists.
	Uses: func(c *config.Config) []string { return append([]string{"evaluate"}, c.RetrieverKeys()...) },
	// It needs only the benchmark, not the ratings: it runs beside judge
	// and rate.
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name},
		Outputs: []string{dataset.Runs.Name, dataset.Timings.Name},
		Shards:  func(c *config.Config) int { return c.EvalTasks() },
	}},
}
