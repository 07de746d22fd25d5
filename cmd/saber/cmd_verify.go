package main

import (
	"context"
	"fmt"
	"io"

	"github.com/saber-math/saber/jobs/demo"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

func cmdVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", `saber verify — check that one shard reproduces byte for byte

Usage:
  saber verify --config run.yaml --stage dedup --shard 2/7
  saber verify --config run.yaml --stage dedup --reduce
  saber verify --config run.yaml --stored

Recomputes the shard from the same inputs into scratch storage (never the
run's root: new LLM answers, checkpoints and outputs all go to scratch) and
compares the SHA-256 of every output with the shard's completion manifest,
and with the object stored now. It first says how this config, the inputs
and the code differ from what the shard ran with (config keys, old → new).
Exit 0 when every object matches; 2 with a per-object report otherwise (a
mismatch is bad data, not a bug), and when the shard is not done or the
flags are wrong; 1 only for a bug.

--stored recomputes nothing: it reads every completion manifest of the run
and checks that each is intact (its digest) and that every object it names
(measurements such as timings included) is stored with the SHA-256 the
manifest says. Exit 0 when all match, 2 listing those that do not.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	stageName := fs.String("stage", "", "`stage` to verify")
	shardFlag := fs.String("shard", "", "shard `i/n` of the stage's sharded step")
	reduce := fs.Bool("reduce", false, "verify the stage's reduce step instead")
	keep := fs.Bool("keep", false, "keep the scratch directory and print its path")
	stored := fs.Bool("stored", false, "check every manifest of the run against the stored bytes, recomputing nothing")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	stopModel, err := demo.ServeModel(cfg, stderr)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	defer stopModel()
	if *stored {
		if *stageName != "" || *shardFlag != "" || *reduce {
			return fail(stderr, "verify", stage.BadInput(fmt.Errorf("--stored checks the whole run: give it without --stage, --shard or --reduce")))
		}
		checks, err := pipeline.VerifyStored(ctx, cfg)
		if err != nil {
			return fail(stderr, "verify", err)
		}
		for _, c := range checks {
			if c.Damaged != nil {
				pipeline.ExplainDamaged(c.Damaged, configPath)
			}
		}
		// A mismatch is data that differs from its record: bad input for
		// whoever reads it, not a bug in saber (exit 1 is kept for those).
		if !pipeline.PrintStored(stdout, checks) {
			return stage.ExitBadInput
		}
		return stage.ExitOK
	}
	st, err := implementation(*stageName)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	var step stage.Step
	var spec shard.Spec
	switch {
	case *reduce && *shardFlag != "":
		return fail(stderr, "verify", stage.BadInput(fmt.Errorf("give --shard or --reduce, not both")))
	case *reduce:
		s, ok := st.Step("reduce")
		if !ok {
			return fail(stderr, "verify", stage.BadInput(fmt.Errorf("stage %s has no reduce step", st.Name)))
		}
		step, spec = s, shard.Spec{Index: 0, Count: 1}
	default:
		if *shardFlag == "" {
			return fail(stderr, "verify", stage.BadInput(fmt.Errorf("--shard i/n or --reduce is required")))
		}
		step = st.Steps[0]
		if spec, err = shard.Parse(*shardFlag); err != nil {
			return fail(stderr, "verify", stage.BadInput(err))
		}
	}
	dir, cleanup, err := pipeline.TempScratch()
	if err != nil {
		return fail(stderr, "verify", err)
	}
	if *keep {
		fmt.Fprintf(stdout, "scratch: %s\n", dir)
	} else {
		defer cleanup()
	}
	log := stage.NewLogger(cfg, st.Name, stderr)
	checks, why, err := pipeline.Verify(ctx, cfg, st, step, spec, dir, log)
	if err != nil {
		return fail(stderr, "verify", err)
	}
	for _, c := range why.Config {
		fmt.Fprintf(stdout, "config   %s (the shard ran with the first value; this config has the second)\n", c)
	}
	for _, in := range why.Inputs {
		fmt.Fprintf(stdout, "inputs   %s\n", in)
	}
	if why.Unrecorded {
		fmt.Fprintln(stdout, "config   the shard's manifest records no config (an older saber made it)")
	}
	if why.Code != "" {
		fmt.Fprintf(stdout, "code     %s\n", why.Code)
	}
	if !pipeline.PrintChecks(stdout, checks) {
		fmt.Fprintf(stdout, "%s %s shard %s does NOT reproduce\n", st.Name, step.Name, spec)
		return stage.ExitBadInput
	}
	fmt.Fprintf(stdout, "%s %s shard %s reproduces: %d objects match\n", st.Name, step.Name, spec, len(checks))
	return stage.ExitOK
}
