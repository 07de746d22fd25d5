package decl

import (
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	calibratedecl "github.com/saber-math/saber/jobs/calibrate/decl"
	"github.com/saber-math/saber/jobs/config"
	selectiondecl "github.com/saber-math/saber/jobs/selection/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/thresholds"
)

// Has reports whether the config has the named section.
func Has(cfg *config.Config, section string) bool { return slices.Contains(cfg.Sections(), section) }

// Edges are the thresholds the counts are made over: calibrate's grid and,
// when select uses fixed thresholds, those, so that every threshold
// calibrate or select asks about is a cell boundary and counts are exact.
func Edges(cfg *config.Config) thresholds.Grid {
	g := thresholds.Grid{Topic: calibratedecl.TopicGridKey.Get(cfg).Values(), Summ: calibratedecl.SummGridKey.Get(cfg).Values()}
	if Has(cfg, selectiondecl.Section.Name) && selectiondecl.ThresholdsKey.Get(cfg) == selectiondecl.ThresholdsFixed {
		return g.Union([]float64{selectiondecl.TauTopicKey.Get(cfg)}, []float64{selectiondecl.TauSummKey.Get(cfg)})
	}
	return g
}

// Stage is the pairs stage.
var Stage = stage.Stage{
	Name:    "pairs",
	Summary: "every (query, document) pair over the topic or summary floor, counted over the threshold grid (or listed, pairs.keep_all): topics, summaries → pair_counts, pairs",
	Section: Section,
	Uses: func(cfg *config.Config) []string {
		u := []string{"benchmark.ontology", "benchmark.topic_floor", "benchmark.summ_floor"}
		if Has(cfg, Section.Name) && !Section.Of(cfg).KeepAll {
			// The counts are made over these thresholds: a change to one
			// makes the counts stale.
			u = append(u, calibratedecl.TopicGridKey.Path(), calibratedecl.SummGridKey.Path())
			// select.thresholds decides whether select's fixed thresholds
			// are cell boundaries too (Edges), so the step reads it either
			// way; the thresholds themselves only when fixed.
			if Has(cfg, selectiondecl.Section.Name) {
				u = append(u, selectiondecl.ThresholdsKey.Path())
				if selectiondecl.ThresholdsKey.Get(cfg) == selectiondecl.ThresholdsFixed {
					u = append(u, selectiondecl.TauTopicKey.Path(), selectiondecl.TauSummKey.Path())
				}
			}
		}
		return u
	},
	Steps: []stage.Step{{
		Name:      "map",
		Inputs:    []string{dataset.Topics.Name, dataset.Summaries.Name},
		Outputs:   []string{dataset.PairCounts.Name, dataset.Pairs.Name},
		Summarize: summary,
		Forecast:  forecast,
		Shards:    func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
