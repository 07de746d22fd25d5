// Command rewrite restates each benchmark query's statement with the same
// mathematics in another surface form (paper App. B.4), with a model
// (prompt B.4) or the offline rewriter, into `rewrites`: the queries of
// the deduplication experiment. See `rewrite --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/rewrite"
)

func main() { pipeline.Main(rewrite.Stage) }
