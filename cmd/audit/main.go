// Command audit is the duplicate-leakage audit (paper App. A.5): for each
// query it inspects the top documents under the final ratings for a
// statement of an equivalent problem, with the judge model (prompt A.1) or
// the offline near-duplicate test, and writes `audit`, the flagged pairs
// to `leaks` and reports/audit.md. See `audit --help`.
package main

import (
	"github.com/saber-math/saber/jobs/audit"
	"github.com/saber-math/saber/jobs/pipeline"
)

func main() { pipeline.Main(audit.Stage) }
