package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/saber-math/saber/jobs/demo"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", `saber demo — the embedded default run

Usage:
  saber demo [--out DIR] [--n N]

Generates a synthetic corpus (problems with worked solutions over the five
domains, with planted near-duplicates), writes DIR/run.yaml, and runs every
stage that exists on local disk with the local executor. Needs no download,
no S3 and no GPU. Running it again reuses DIR and does nothing new.
`, stderr)
	out := fs.String("out", "saber-demo", "`DIR` for inputs, config, data and logs")
	n := fs.Int("n", 5000, "synthetic problems to generate")
	seed := fs.Uint64("seed", 1, "corpus and run seed")
	dup := fs.Float64("dup-frac", 0.05, "fraction of planted near-duplicates")
	parallel := fs.Int("parallel", 0, "shard processes at once (default: one per core)")
	binDir := fs.String("bin-dir", "", "`DIR` of the stage binaries (default: beside saber)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *n < 1 {
		return fail(stderr, "demo", stage.BadInput(fmt.Errorf("--n must be ≥ 1")))
	}
	if !(*dup >= 0 && *dup < 1) {
		return fail(stderr, "demo", stage.BadInput(fmt.Errorf("--dup-frac %v: want 0 ≤ --dup-frac < 1 (the share of planted near-duplicates)", *dup)))
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		return fail(stderr, "demo", err)
	}
	err = demo.Run(ctx, demo.Options{Dir: dir, N: *n, Seed: *seed, DupFrac: *dup, Parallel: *parallel, BinDir: *binDir}, stdout)
	if err != nil {
		return fail(stderr, "demo", err)
	}
	return stage.ExitOK
}
