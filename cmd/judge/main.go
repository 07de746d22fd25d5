// Command judge runs each query's Swiss tournament of pairwise judgments,
// checkpointing after every round. See `judge --help`.
package main

import (
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(judge.Stage) }
