// Command analyze writes the benchmark's analyses (paper §4.2, App. A.6,
// A.7, D.1, D.8, D.10): maths against words per retriever, the signal
// groups' curves, the domain distributions, and scores over release dates,
// under reports/. See `analyze --help`.
package main

import (
	"github.com/saber-math/saber/jobs/analyze"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(analyze.Stage) }
