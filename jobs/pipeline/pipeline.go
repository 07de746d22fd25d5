// Package pipeline knows the stages in order and runs them: locally as
// processes of the stage binaries (`saber run`), or one shard in-process
// into scratch storage (`saber verify`).
package pipeline

import (
	"fmt"
	"strings"

	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/dedup"
	"github.com/saber-math/saber/jobs/evaluate"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/rate"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/selection"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
)

// Stages are every stage in pipeline order. tag and summarize both read
// only the corpus; on Slurm they are chained, locally they run in turn.
var Stages = []stage.Stage{ingest.Stage, dedup.Stage, tag.Stage, summarize.Stage, pairs.Stage, calibrate.Stage, selection.Stage, judge.Stage, rate.Stage, evaluate.Stage, report.Stage}

// Lookup returns the named stage.
func Lookup(name string) (stage.Stage, error) {
	for _, s := range Stages {
		if s.Name == name {
			return s, nil
		}
	}
	return stage.Stage{}, stage.BadInput(fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(Names(), ", ")))
}

// Names lists the stage names in order.
func Names() []string {
	var out []string
	for _, s := range Stages {
		out = append(out, s.Name)
	}
	return out
}

// Select parses a comma-separated stage list ("" means all), keeping
// pipeline order.
func Select(list string) ([]stage.Stage, error) {
	if strings.TrimSpace(list) == "" {
		return Stages, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, err := Lookup(n); err != nil {
			return nil, err
		}
		want[n] = true
	}
	var out []stage.Stage
	for _, s := range Stages {
		if want[s.Name] {
			out = append(out, s)
		}
	}
	return out, nil
}
