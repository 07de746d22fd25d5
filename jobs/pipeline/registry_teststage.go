//go:build saber_teststage

package pipeline

import "github.com/saber-math/saber/jobs/pipeline/internal/lengths"

// The test-only stage's registry line: the pipeline's tests build the
// binaries with -tags saber_teststage to run it; no release binary has it.
func init() {
	Stages = append(Stages, lengths.Stage)
	graph = mustGraph(Stages)
}
