// Command evaluate ranks every query's candidates with each configured
// retriever in each text setting. See `evaluate --help`.
package main

import (
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(evaluate.Stage) }
