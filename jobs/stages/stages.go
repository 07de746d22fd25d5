// Package stages is every stage's code in one list: what saber verify runs
// in its own process, and what tests run without the stage binaries. The
// pipeline's registry (pipeline.Stages) holds the declarations; a stage
// binary links its own stage's code only, never this package.
package stages

import (
	"github.com/saber-math/saber/jobs/analyze"
	"github.com/saber-math/saber/jobs/audit"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/dedup"
	"github.com/saber-math/saber/jobs/downstream"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/rate"
	"github.com/saber-math/saber/jobs/release"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/rewrite"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
)

// All is every stage's code, in the registry's order.
var All = []stage.Stage{
	ingest.Stage,
	dedup.Stage,
	tag.Stage,
	summarize.Stage,
	pairs.Stage,
	calibrate.Stage,
	selection.Stage,
	judge.Stage,
	rate.Stage,
	evaluate.Stage,
	report.Stage,
	audit.Stage,
	analyze.Stage,
	release.Stage,
	rewrite.Stage,
	downstream.EmbedStage,
	downstream.Stage,
}

// Lookup returns the code of the named stage.
func Lookup(name string) (stage.Stage, bool) {
	for _, st := range All {
		if st.Name == name {
			return st, true
		}
	}
	return stage.Stage{}, false
}

// Of is the code of the stage st declares; st itself when it has its code
// already (a test stage) or no stage of its name has code here.
func Of(st stage.Stage) stage.Stage {
	if st.Implemented() {
		return st
	}
	if code, ok := Lookup(st.Name); ok {
		return code
	}
	return st
}
