package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/saber-math/saber/jobs/bench"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", `saber bench — throughput and peak memory of the corpus stages, and the
scaling of the pairs stage

Usage:
  saber bench [--math DIR] [--n 283000] [--shards 2] [--keep]
              [--pairs 20000,50000,100000,283000] [--pairs-brute 0] [--pairs-only]
              [--pairs-keep-all]
  saber bench --scale 1000000 [--scale-shard-docs 100000] [--parallel 2]

Runs ingest and dedup with the stage binaries under the local executor on
the MATH files (12,500 real rows, when DIR has them) and on a generated
corpus of N rows, and prints wall time, rows per second and the peak
resident memory of the largest shard process per stage.

Then runs the pairs stage's work (index, every query, zstd Parquet write)
in-process on generated corpora of each --pairs size, with realistic topic
and summary distributions (lib/synth/corpusdist), and prints time, pairs
found, bytes stored (per-query counts, the stage's default; every pair
with --pairs-keep-all) and peak RSS per shard; checks the index against a
brute-force scan at the smallest size and prints the speed-up; fits how
time, bytes and memory grow with N and gives them at the paper's 283K
documents beside the goals (≤ 0.15 core-hours, ≤ 0.5 GB stored, ≤ 2 GB
per shard), measured when 283000 is one of the sizes.

--scale N runs only the CPU stages of the main line on a generated corpus
of N documents, as a user runs them: ingest, dedup, tag and summarize (with
their synthetic backends: corpusdist labels by document id, no LLM),
pairs, calibrate and select, each as the stage binaries under the local
executor with one shard per --scale-shard-docs documents (at least 2), and
prints per stage its wall time, the CPU time of its shard processes, the
peak RSS of its largest shard and the bytes read and written, with the
goals at 283K and 1M documents (make bench-scale: N = 1,000,000, about an
hour and 3 GB of disk on 2 cores).
`, stderr)
	mathDir := fs.String("math", "../shared/data/math", "`DIR` with MATH_*.jsonl (skipped when absent)")
	n := fs.Int("n", 283000, "rows of the generated corpus (0 skips it)")
	shards := fs.Int("shards", 0, "shards per stage (default: one per core)")
	parallel := fs.Int("parallel", 0, "shard processes at once (default: one per core)")
	dir := fs.String("dir", "", "work `DIR` (default: a temporary directory)")
	keep := fs.Bool("keep", false, "keep the work directory")
	binDir := fs.String("bin-dir", "", "`DIR` of the stage binaries (default: beside saber)")
	pairSizes := fs.String("pairs", joinInts(bench.DefaultPairsSizes), "comma-separated corpus `SIZES` for the pairs benchmark (empty skips it)")
	pairBrute := fs.Int("pairs-brute", 0, fmt.Sprintf("queries the brute-force check scans at the smallest pairs size: K a uniform sample of K (time extrapolated; K ≥ N all), -1 none, 0 all up to %d documents and a sample of %d beyond", bench.BruteAllUpTo, bench.BruteSample))
	pairWorkers := fs.Int("pairs-workers", 0, "pairs queries in flight (default: GOMAXPROCS)")
	pairSeed := fs.Uint64("pairs-seed", 1, "seed of the pairs benchmark's generated corpora")
	pairsOnly := fs.Bool("pairs-only", false, "run only the pairs benchmark (skip ingest and dedup)")
	pairsKeepAll := fs.Bool("pairs-keep-all", false, "store every pair, as pairs.keep_all, instead of the per-query counts")
	scale := fs.Int("scale", 0, "run only the scale benchmark: ingest → select on `N` generated documents")
	scaleShardDocs := fs.Int("scale-shard-docs", bench.DefaultShardDocs, "documents per shard in the scale benchmark")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	sizes, err := parseInts(*pairSizes)
	if err != nil {
		fmt.Fprintf(stderr, "saber bench: --pairs: %v\n", err)
		return stage.ExitBadInput
	}
	if *pairsOnly && len(sizes) == 0 {
		fmt.Fprintln(stderr, "saber bench: --pairs-only with no --pairs sizes: nothing to run")
		return stage.ExitBadInput
	}
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "saber-bench-")
		if err != nil {
			return fail(stderr, "bench", err)
		}
		work = d
	}
	if !*keep {
		defer os.RemoveAll(work)
	}
	if *scale != 0 {
		if *scaleShardDocs < 1 {
			fmt.Fprintln(stderr, "saber bench: --scale-shard-docs must be ≥ 1")
			return stage.ExitBadInput
		}
		_, err := bench.RunScale(ctx, bench.ScaleOptions{N: *scale, ShardDocs: *scaleShardDocs, Parallel: *parallel,
			Dir: filepath.Join(work, "scale"), Keep: *keep, BinDir: *binDir}, stdout)
		if err != nil {
			return fail(stderr, "bench", err)
		}
		return stage.ExitOK
	}
	if !*pairsOnly {
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
	}
	if len(sizes) > 0 {
		_, err := bench.RunPairs(ctx, bench.PairsOptions{
			Sizes: sizes, Seed: *pairSeed, Workers: *pairWorkers, BruteQueries: *pairBrute,
			Dir: filepath.Join(work, "pairs"), Keep: *keep, KeepAll: *pairsKeepAll,
		}, stdout)
		if err != nil {
			return fail(stderr, "bench", err)
		}
	}
	return stage.ExitOK
}

// parseInts parses "20000,50000" (blanks allowed; "" is none) into positive
// integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 2 {
			return nil, fmt.Errorf("%q is not an integer ≥ 2", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
