// Command embed embeds the deduplication pool (every unique benchmark
// query and candidate) once per bi-encoder of downstream.retrievers into
// `pool_embeddings`, which every later full-pool ranking reuses. See
// `embed --help`.
package main

import (
	"github.com/saber-math/saber/jobs/downstream"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(downstream.EmbedStage) }
