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
	c := calibratedecl.Section.Of(cfg)
	g := thresholds.Grid{Topic: c.TopicGrid.Values(), Summ: c.SummGrid.Values()}
	if Has(cfg, selectiondecl.Section.Name) {
		if s := selectiondecl.Section.Of(cfg); s.Thresholds == selectiondecl.ThresholdsFixed {
			return g.Union([]float64{s.TauTopic}, []float64{s.TauSumm})
		}
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
			u = append(u, "calibrate.topic_grid", "calibrate.summ_grid")
			if Has(cfg, selectiondecl.Section.Name) && selectiondecl.Section.Of(cfg).Thresholds == selectiondecl.ThresholdsFixed {
				u = append(u, "select.thresholds", "select.tau_topic", "select.tau_summ")
			}
		}
		return u
	},
	Steps: []stage.Step{{
		Name:    "map",
		Inputs:  []string{dataset.Topics.Name, dataset.Summaries.Name},
		Outputs: []string{dataset.PairCounts.Name, dataset.Pairs.Name},
		Shards:  func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
