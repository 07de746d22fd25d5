// Command summarize extracts each corpus document's solution summary with
// an LLM (prompt F.2) or the offline extractive backend. See `summarize --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/summarize"
)

func main() { pipeline.Main(summarize.Stage) }
