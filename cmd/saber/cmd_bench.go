package main

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/saber-math/saber/jobs/bench"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", `saber bench — throughput and peak memory of the corpus stages

Usage:
  saber bench [--math DIR] [--n 283000] [--shards 2] [--keep]

Runs ingest and dedup with the stage binaries under the local executor on
the MATH files (12,500 real rows, when DIR has them) and on a generated
corpus of N rows, and prints wall time, rows per second and the peak
resident memory of the largest shard process per stage.
`, stderr)
	mathDir := fs.String("math", "../shared/data/math", "`DIR` with MATH_*.jsonl (skipped when absent)")
	n := fs.Int("n", 283000, "rows of the generated corpus (0 skips it)")
	shards := fs.Int("shards", 0, "shards per stage (default: one per core)")
	parallel := fs.Int("parallel", 0, "shard processes at once (default: one per core)")
	dir := fs.String("dir", "", "work `DIR` (default: a temporary directory)")
	keep := fs.Bool("keep", false, "keep the work directory")
	binDir := fs.String("bin-dir", "", "`DIR` of the stage binaries (default: beside saber)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "saber-bench-")
		if err != nil {
			return fail(stderr, "bench", err)
		}
		work = d
	}
	md := *mathDir
	if md != "" {
		if abs, err := filepath.Abs(md); err == nil {
			md = abs
		}
	}
	_, err := bench.Run(ctx, bench.Options{MathDir: md, N: *n, Shards: *shards, Parallel: *parallel, Dir: work, Keep: *keep, BinDir: *binDir}, stdout)
	if err != nil {
		return fail(stderr, "bench", err)
	}
	return stage.ExitOK
}
