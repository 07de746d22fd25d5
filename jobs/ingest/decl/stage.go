package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the ingest stage.
var Stage = stage.Stage{
	Name:    "ingest",
	Summary: "read raw problem sources into the problems and rejects datasets",
	Section: Section,
	Steps: []stage.Step{
		{
			Name:     "map",
			Outputs:  []string{dataset.IngestRows.Name, dataset.IngestProblems.Name, dataset.IngestSpans.Name},
			Shards:   func(c *config.Config) int { return Section.Of(c).Shards },
			Forecast: forecastMap,
		},
		{
			Name:      "reduce",
			Inputs:    []string{dataset.IngestRows.Name, dataset.IngestProblems.Name, dataset.IngestSpans.Name},
			Outputs:   []string{dataset.Problems.Name, dataset.Rejects.Name},
			Summarize: summary,
			Forecast:  forecastReduce,
		},
	},
}
