// Command select draws the benchmark: queries per domain among the eligible
// ones and K candidates per category for each. See `select --help`.
package main

import "github.com/saber-math/saber/jobs/pipeline"

func main() { pipeline.Main("select") }
