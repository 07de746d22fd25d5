package main

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/synth"
)

func cmdSynth(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("synth", `saber synth — the procedural corpus

Usage:
  saber synth --n 283000 --seed 7 --out synth.jsonl

Writes N problems with worked solutions across Algebra, Geometry, Number
Theory, Combinatorics and Calculus and Analysis as JSONL (fields id, source,
domain, template, topics, statement, solution, dup_of). A fraction of rows
are planted near-duplicates of earlier rows (dup_of names the original).
Row i depends only on (seed, i): the first k rows of any larger corpus are
the k-row corpus.
`, stderr)
	n := fs.Int("n", 1000, "number of problems")
	seed := fs.Uint64("seed", 1, "generator seed")
	dup := fs.Float64("dup-frac", 0.05, "fraction of planted near-duplicates")
	out := fs.String("out", "-", "output `FILE` (- for stdout)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *n < 0 || !(*dup >= 0 && *dup < 1) { // NaN too
		return fail(stderr, "synth", stage.BadInput(fmt.Errorf("want --n ≥ 0 and 0 ≤ --dup-frac < 1")))
	}
	cfg := synth.Config{N: *n, Seed: *seed, DupFrac: *dup}
	if *out == "-" {
		bw := bufio.NewWriter(stdout)
		if err := synth.Write(bw, cfg); err != nil {
			return fail(stderr, "synth", err)
		}
		if err := bw.Flush(); err != nil {
			return fail(stderr, "synth", err)
		}
		return stage.ExitOK
	}
	if err := store.WriteFile(*out, 0o644, func(w io.Writer) error { return synth.Write(w, cfg) }); err != nil {
		return fail(stderr, "synth", err)
	}
	fmt.Fprintf(stderr, "wrote %d problems to %s\n", *n, *out)
	return stage.ExitOK
}
