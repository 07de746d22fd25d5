// Command pairs finds every (query, document) pair whose topic or summary
// similarity passes its floor, exactly and without scoring all N² pairs.
// See `pairs --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(pairs.Stage) }
