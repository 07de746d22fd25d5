package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	downstreamdecl "github.com/saber-math/saber/jobs/downstream/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// Stage is the rewrite stage.
var Stage = stage.Stage{
	Name:     "rewrite",
	Summary:  "each query's statement rewritten with the same mathematics in another surface form (App. B.4; prompt B.4 or the offline rewriter): queries, corpus → rewrites",
	Section:  Section,
	Optional: true,
	Enabled:  downstreamdecl.Enabled,
	Uses: func(c *config.Config) []string {
		if Section.Of(c).UsesLLM() {
			return []string{"llm"}
		}
		return []string{"seed"}
	},
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Queries.Name, dataset.Corpus.Name},
		Outputs: []string{dataset.Rewrites.Name},
		Cache:   true,
		Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
