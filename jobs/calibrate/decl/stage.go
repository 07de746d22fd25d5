package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Report files, under <root>/<run>/reports/.
const (
	ReportMarkdown = "calibrate.md"
	ReportCSV      = "calibrate.csv"
)

// Stage is the calibrate stage.
var Stage = stage.Stage{
	Name:    "calibrate",
	Summary: "eligible queries per domain over a threshold grid; SPEC's rule picks the thresholds: pair_counts (or pairs), topics, summaries → thresholds, calibration",
	Section: Section,
	Uses: func(*config.Config) []string {
		return []string{"benchmark.ontology", "benchmark.k", "benchmark.domains", "benchmark.topic_floor", "benchmark.summ_floor"}
	},
	Steps: []stage.Step{{
		Name: "reduce",
		// summaries: only their writers' manifests, for the provenance.
		// pair_counts or pairs: whichever pairs filled (pairs.keep_all).
		Inputs:    []string{dataset.PairCounts.Name, dataset.Pairs.Name, dataset.Topics.Name, dataset.Summaries.Name},
		Outputs:   []string{dataset.Thresholds.Name, dataset.Calibration.Name},
		Summarize: summary,
		Reports:   []string{ReportMarkdown, ReportCSV},
	}},
}
