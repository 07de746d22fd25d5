package decl

import (
	"flag"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Report files, under <root>/<run>/reports/.
const (
	ReportMarkdown = "select.md"
	ReportJSON     = "select.json"
)

// Stage is the select stage.
var Stage = stage.Stage{
	Name:    "select",
	Summary: "the benchmark: queries per domain among the eligible, K candidates per category: pair_counts (or pairs), topics, summaries, thresholds → queries, candidates",
	Section: Section,
	Uses: func(*config.Config) []string {
		return []string{"seed", "benchmark.ontology", "benchmark.k", "benchmark.domains", "benchmark.topic_floor", "benchmark.summ_floor"}
	},
	Steps: []stage.Step{{
		Name: "reduce",
		// pair_counts or pairs: whichever pairs filled (pairs.keep_all);
		// topics and summaries: their writers' manifests, for the
		// provenance, and with only counts stored the chosen queries'
		// pairs are recomputed from them.
		Inputs:    []string{dataset.PairCounts.Name, dataset.Pairs.Name, dataset.Topics.Name, dataset.Summaries.Name, dataset.Thresholds.Name},
		Outputs:   []string{dataset.Queries.Name, dataset.Candidates.Name},
		Summarize: summary,
		Forecast:  forecast,
		Reports:   []string{ReportMarkdown, ReportJSON},
	}},
	Flags: func(fs *flag.FlagSet) func(*config.Config) {
		allow := fs.Bool("allow-shortfall", false, "select every eligible query of a domain with fewer than wanted instead of failing (same as select.allow_shortfall: true)")
		return func(c *config.Config) {
			if *allow {
				Section.Of(c).AllowShortfall = true
			}
		}
	},
}
