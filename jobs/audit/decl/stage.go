package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Report is the report the reduce writes under <run>/reports/.
const Report = "audit.md"

// Stage is the audit stage.
var Stage = stage.Stage{
	Name:    "audit",
	Summary: "duplicate-leakage audit of each query's top documents under the final ratings (App. A.5; prompt A.1 or the offline near-duplicate test): queries, ratings, corpus → audit, leaks, reports/audit.md",
	Section: Section,
	Uses: func(c *config.Config) []string {
		if Section.Of(c).UsesLLM() {
			return []string{"llm"}
		}
		return nil
	},
	Steps: []stage.Step{{
		Name:     "map",
		Inputs:   []string{dataset.Queries.Name, dataset.Ratings.Name, dataset.Corpus.Name},
		Outputs:  []string{dataset.Audit.Name},
		Cache:    true,
		Shards:   func(c *config.Config) int { return Section.Of(c).Shards },
		Forecast: forecastMap,
	}, {
		Name:      "reduce",
		Inputs:    []string{dataset.Audit.Name, dataset.Corpus.Name, dataset.Queries.Name},
		Outputs:   []string{dataset.Leaks.Name},
		Summarize: summary,
		Reports:   []string{Report},
	}},
}
