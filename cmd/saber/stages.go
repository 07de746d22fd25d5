package main

import (
	"fmt"

	"github.com/saber-math/saber/jobs/analyze"
	"github.com/saber-math/saber/jobs/audit"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/dedup"
	"github.com/saber-math/saber/jobs/downstream"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/rate"
	"github.com/saber-math/saber/jobs/release"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/rewrite"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
)

// implementations are every stage's code. Only `saber verify` needs it — it
// runs one shard in this process — and the check of a whole config, which
// includes the checks a stage's code adds to its section (ingest's field
// maps); everything else saber does reads the declarations
// (pipeline.Stages) and runs the stage binaries.
var implementations = []stage.Stage{
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

// implementation is the named stage's code, checked against its
// declaration.
func implementation(name string) (stage.Stage, error) {
	d, err := pipeline.Lookup(name)
	if err != nil {
		return stage.Stage{}, err
	}
	for _, st := range implementations {
		if st.Name == d.Name {
			return st, pipeline.Default().CheckImplementation(st)
		}
	}
	if d.Implemented() { // a stage registered with its code (tests)
		return d, nil
	}
	return stage.Stage{}, fmt.Errorf("saber: stage %s is declared but saber does not link its code", name)
}
