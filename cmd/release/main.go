// Command release writes the release folder of a finished run: the
// benchmark as Parquet tables, BEIR, MTEB and TREC layouts, a dataset card,
// Croissant metadata, the licences and checksums. See `release --help`;
// `saber release verify` checks a folder, `saber publish` uploads it.
package main

import (
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/release"
)

func main() { pipeline.Main(release.Stage) }
