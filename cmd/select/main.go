// Command select draws the benchmark: queries per domain among the eligible
// ones and K candidates per category for each. See `select --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/selection"
)

func main() { pipeline.Main(selection.Stage) }
