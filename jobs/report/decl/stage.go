package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Report files, under <root>/<run>/reports/. Each table comes as .md, .csv
// and .tex (Table1 + ".md", ...).
const (
	ReportIndex       = "report.md"
	Table1            = "table1"
	Table7            = "table7"
	Table8            = "table8"
	TableSensitivity  = "sensitivity"
	ReportPerQuery    = "ndcg_per_query.csv"
	ReportChart       = "ndcg_by_domain" // .png and .svg
	ReportLeaderboard = "leaderboard.json"
)

// TableExts are the formats every table is written in.
var TableExts = []string{".md", ".csv", ".tex"}

// Reports lists every file report may write under <run>/reports/.
func Reports() []string {
	var out []string
	for _, t := range []string{Table1, Table7, Table8, Table9, TableSensitivity} {
		for _, ext := range TableExts {
			out = append(out, t+ext)
		}
	}
	return append(out, ReportIndex, ReportPerQuery, ReportChart+".png", ReportChart+".svg",
		ReportFrontier+".png", ReportFrontier+".svg", ReportLeaderboard, ReportLatencyQueries, ReportHTML, ReportJudgeAudit)
}

// Table9 is the instructions study (App. D.9), written when
// evaluate.instructions is set.
const Table9 = "table9"

// ReportFrontier is the quality–latency figure (App. D.7), .png and .svg.
const ReportFrontier = "frontier"

// ReportHTML is reports/index.html: the whole run on one static page.
const ReportHTML = "index.html"

// ReportLatencyQueries is the latency sample (App. C.5), under reports/.
const ReportLatencyQueries = "latency_queries.csv"

// ReportJudgeAudit is the report file of the position audit, under
// <run>/reports/ (written from `judge_audit`).
const ReportJudgeAudit = "judge_audit.md"

// Stage is the report stage.
var Stage = stage.Stage{
	Name:    "report",
	Summary: "nDCG@10 per retriever, setting and domain with bootstrap intervals; Tables 1, 7, 8, metric sensitivity, chart, leaderboard: runs, timings, ratings, queries (and who made topics, summaries, judgments) → results, reports/",
	Section: Section,
	Uses: func(c *config.Config) []string {
		// benchmark.ontology and benchmark.domains order the domains.
		return append([]string{"seed", "evaluate.retrievers", "evaluate.settings", "evaluate.instructions", "benchmark.ontology", "benchmark.domains"}, c.RetrieverKeys()...)
	},
	Steps: []stage.Step{{
		Name: "reduce",
		// topics, summaries, judgments: only their writers' manifests,
		// for the provenance every report file states.
		// thresholds, calibration, candidates, duplicates, audit, leaks:
		// for the page (index.html) that shows the whole run.
		Inputs: []string{dataset.Queries.Name, dataset.Ratings.Name, dataset.Runs.Name, dataset.Timings.Name,
			dataset.Topics.Name, dataset.Summaries.Name, dataset.Judgments.Name, dataset.JudgeAudit.Name,
			dataset.Thresholds.Name, dataset.Calibration.Name, dataset.Candidates.Name, dataset.Duplicates.Name,
			dataset.Audit.Name, dataset.Leaks.Name},
		Outputs:   []string{dataset.Results.Name},
		Summarize: summary,
		Reports:   Reports(),
	}},
}
