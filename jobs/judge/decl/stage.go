package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the judge stage.
var Stage = stage.Stage{
	Name:    "judge",
	Summary: "each query's Swiss tournament of pairwise judgments (prompt F.3 or offline lexical): queries, candidates, corpus → judgments",
	Section: Section,
	Uses: func(c *config.Config) []string {
		if Section.Of(c).UsesLLM() {
			return []string{"seed", "llm"}
		}
		return []string{"seed"}
	},
	Steps: []stage.Step{{
		Name:        "map",
		Inputs:      []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name},
		Outputs:     []string{dataset.Judgments.Name, dataset.JudgeTimings.Name, dataset.JudgeAudit.Name},
		Summarize:   summary,
		Forecast:    forecast,
		Checkpoints: true,
		Cache:       true,
		Shards:      func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
