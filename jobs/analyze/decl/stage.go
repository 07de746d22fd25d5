package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// Report files (each table also as .csv and .tex).
const (
	ReportIndex        = "analyze.md"
	ReportMathText     = "mathtext"       // .md .csv .tex, and the figure .png .svg
	ReportMathRatio    = "mathtext_ratio" // .csv
	ReportTable10      = "table10"        // .md .csv .tex
	ReportSignalGroups = "signal_groups"  // .md .csv .png .svg
	ReportDistribution = "distribution"   // .md .csv .png .svg
	ReportExample      = "example_query"  // .md .csv
	ReportOverTime     = "score_over_time"
)

var tableExts = []string{".md", ".csv", ".tex"}

// Reports lists every file analyze may write under <run>/reports/.
func Reports() []string {
	out := []string{ReportIndex}
	for _, t := range []string{ReportMathText, ReportTable10} {
		for _, e := range tableExts {
			out = append(out, t+e)
		}
	}
	return append(out, ReportMathText+".png", ReportMathText+".svg", ReportMathRatio+".csv",
		ReportSignalGroups+".md", ReportSignalGroups+".csv", ReportSignalGroups+".png", ReportSignalGroups+".svg",
		ReportDistribution+".md", ReportDistribution+".csv", ReportDistribution+".png", ReportDistribution+".svg",
		ReportExample+".md", ReportExample+".csv",
		ReportOverTime+".md", ReportOverTime+".csv", ReportOverTime+".png", ReportOverTime+".svg")
}

// Stage is the analyze stage.
var Stage = stage.Stage{
	Name:    "analyze",
	Summary: "maths vs words per retriever (§4.2, D.10, Table 10), signal-group curves (D.1), domain distributions (A.6, A.7), score over time (D.8): queries, candidates, ratings, corpus, topics, results → mathtext, reports/",
	Section: Section,
	Uses: func(c *config.Config) []string {
		uses := []string{"evaluate.retrievers", "evaluate.instructions", "evaluate.settings", "benchmark.ontology", "benchmark.domains", reportdecl.FamiliesKey.Path()}
		if Section.Of(c).Backend == BackendLLM {
			uses = append(uses, "llm")
		}
		return append(uses, c.RetrieverKeys()...)
	},
	Steps: []stage.Step{{
		Name: "reduce",
		// summaries, judgments: only their writers' manifests, for the
		// provenance every report states.
		Inputs: []string{dataset.Queries.Name, dataset.Candidates.Name, dataset.Ratings.Name, dataset.Corpus.Name,
			dataset.Topics.Name, dataset.Results.Name, dataset.Summaries.Name, dataset.Judgments.Name},
		Outputs: []string{dataset.MathText.Name},
		Reports: Reports(),
		Cache:   true,
	}},
}
