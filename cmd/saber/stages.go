package main

import (
	"fmt"

	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
)

// implementation is the named stage's code (jobs/stages), checked against
// its declaration. Only saber verify needs it: it runs one shard in this
// process; everything else saber does reads the declarations and runs the
// stage binaries. Linking the code also adds the checks a stage's code
// makes of its section (ingest's field maps) to saber's check of a whole
// config.
func implementation(name string) (stage.Stage, error) {
	d, err := pipeline.Lookup(name)
	if err != nil {
		return stage.Stage{}, err
	}
	if st, ok := stages.Lookup(d.Name); ok {
		return st, pipeline.Default().CheckImplementation(st)
	}
	if d.Implemented() { // a stage registered with its code (tests)
		return d, nil
	}
	return stage.Stage{}, fmt.Errorf("saber: stage %s is declared but saber does not link its code", name)
}
