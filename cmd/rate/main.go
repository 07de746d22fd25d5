// Command rate fits Bradley–Terry per query to the judgments and writes the
// ratings (qrels). See `rate --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/rate"
)

func main() { pipeline.Main(rate.Stage) }
