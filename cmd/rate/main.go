// Command rate fits Bradley–Terry per query to the judgments and writes the
// ratings (qrels). See `rate --help`.
package main

import "github.com/saber-math/saber/jobs/pipeline"

func main() { pipeline.Main("rate") }
