package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/stage"
)

// BackendSynthetic draws each document's core idea from
// lib/synth/corpusdist (seeded by the run seed and the document's id), as
// tag's synthetic backend draws its topics from the same draw, instead of
// reading the solution: for benchmarking the CPU stages at scale (saber
// bench --scale). Not a summariser.
const BackendSynthetic = "synthetic"

// Stage is the summarize stage.
var Stage = stage.Stage{
	Name:    "summarize",
	Summary: "solution summaries (prompt F.2, offline extractive, or synthetic for benchmarks): corpus → summaries",
	Section: Section,
	Uses: func(c *config.Config) []string {
		switch Section.Of(c).Backend {
		case llmstage.BackendLLM:
			return []string{"llm"}
		case BackendSynthetic:
			return []string{"seed", "benchmark.ontology"} // the core ideas are drawn from them
		}
		return nil
	},
	Steps: []stage.Step{{
		Name:      "map",
		Inputs:    []string{dataset.Corpus.Name},
		Outputs:   []string{dataset.Summaries.Name, dataset.SummaryRejects.Name},
		Summarize: summary,
		Forecast:  forecast,
		Cache:     true,
		Shards:    func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
