// Command ingest reads raw problem sources (JSONL, .jsonl.gz, .jsonl.zst,
// Parquet) into the problems and rejects datasets. See `ingest --help`.
package main

import (
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(ingest.Stage) }
