// Command dedup removes near-duplicate problems with MinHash LSH: a sharded
// signature step, then one reduce that writes corpus and duplicates.
// See `dedup --help`.
package main

import (
	"github.com/saber-math/saber/jobs/dedup"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(dedup.Stage) }
