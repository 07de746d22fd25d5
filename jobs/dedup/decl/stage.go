package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// ReportDedup is the report the dedup reduce writes under <run>/reports/.
const ReportDedup = "dedup.md"

// Stage is the dedup stage.
var Stage = stage.Stage{
	Name:    "dedup",
	Summary: "MinHash LSH near-duplicate removal: problems → corpus, duplicates",
	Section: Section,
	Uses:    func(*config.Config) []string { return []string{"seed"} },
	Steps: []stage.Step{
		{
			Name:    "map",
			Inputs:  []string{dataset.Problems.Name},
			Outputs: []string{dataset.Signatures.Name},
			Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
			// Signatures depend on the statements, the seed, ngram, bands
			// and rows only: a new threshold or guard reruns the reduce.
			Ignores:  []string{"dedup.threshold", "dedup.guard", "dedup.clustering", "dedup.priority"},
			Forecast: forecastMap,
		},
		{
			Name:      "reduce",
			Inputs:    []string{dataset.Signatures.Name, dataset.Problems.Name},
			Outputs:   []string{dataset.Corpus.Name, dataset.Duplicates.Name},
			Summarize: summary,
			Reports:   []string{ReportDedup},
			Forecast:  forecastReduce,
		},
	},
}
