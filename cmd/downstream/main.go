// Command downstream is the deduplication experiment (paper §4.3, App.
// B.4, D.11): each retriever searches with a query's rewrite for its
// original over the whole pool and within the query's candidates, into
// `dedup_ranks`; its reduce writes `dedup_results` and
// reports/downstream.{md,csv,tex}. See `downstream --help`.
package main

import (
	"github.com/saber-math/saber/jobs/downstream"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(downstream.Stage) }
