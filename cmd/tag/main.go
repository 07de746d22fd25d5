// Command tag assigns ontology topics to every corpus document: the
// top-down traversal of SPEC §3 with an LLM (prompt F.1) or the offline
// lexical scorer. See `tag --help`.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/tag"
)

func main() { pipeline.Main(tag.Stage) }
