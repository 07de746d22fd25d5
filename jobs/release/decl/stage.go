package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Inputs are what the release reads.
var Inputs = []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Corpus.Name, dataset.Ratings.Name,
	dataset.Judgments.Name, dataset.Topics.Name, dataset.Summaries.Name, dataset.Thresholds.Name,
	dataset.Results.Name, dataset.Runs.Name, dataset.Audit.Name, dataset.Leaks.Name, dataset.JudgeAudit.Name}

// Stage is the release stage.
var Stage = stage.Stage{
	Name:    "release",
	Summary: "the release folder: Parquet tables, BEIR, MTEB, TREC, dataset card, Croissant, licences, checksums → release/<version>/",
	Section: Section,
	// benchmark.domains orders the card's domains.
	Uses: func(*config.Config) []string { return []string{"seed", "benchmark.ontology", "benchmark.domains"} },
	// The release is on the main line once its config names a date: a
	// release never reads the clock, and a run that is not meant for
	// publication (a test, a study) should not have to invent one.
	Optional: true,
	Enabled:  func(cfg *config.Config) bool { return Section.Of(cfg).Date != "" },
	Off:      "set release.date (YYYY-MM-DD) to write the release",
	Steps: []stage.Step{{
		Name:    "reduce",
		Inputs:  Inputs,
		Outputs: []string{dataset.Release.Name},
		Release: true,
	}},
}
