// Command calibrate counts eligible queries per domain over a grid of
// (τ_topic, τ_summ) and picks the final thresholds by SPEC §3's rule.
// See `calibrate --help`.
package main

import (
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(calibrate.Stage) }
