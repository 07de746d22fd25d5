package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the rate stage.
var Stage = stage.Stage{
	Name:    "rate",
	Summary: "Bradley–Terry per query, ratings in [0, 5]: judgments, candidates → ratings",
	Section: Section,
	Steps: []stage.Step{{
		Name:      "map",
		Inputs:    []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Judgments.Name},
		Outputs:   []string{dataset.Ratings.Name},
		Summarize: summary,
		Forecast:  forecast,
		Shards:    func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
