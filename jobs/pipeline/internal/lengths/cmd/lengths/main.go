// Command lengths is the test-only stage's binary; it knows its stage only
// when built with -tags saber_teststage.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/pipeline/internal/lengths"
)

func main() { pipeline.Main(lengths.Stage) }
