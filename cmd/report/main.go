// Command report scores every retriever's rankings against the ratings and
// writes the tables (paper Tables 1, 7, 8 and App. D.3), a chart, a
// leaderboard and the `results` dataset. See `report --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/report"
)

func main() { pipeline.Main(report.Stage) }
