package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/study"
	"github.com/saber-math/saber/lib/bt"
)

func studyScheduling(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const cmd = "study scheduling"
	fs := newFlags(cmd, `saber study scheduling — fewer judge calls at the same fidelity? (issue 24)

Usage:
  saber study scheduling --simulate [--queries 24] [--n 150] [--noise 0.39] [--out DIR]
  saber study scheduling --judgments PATH [--seed RUN_SEED] [--out DIR]
  saber study scheduling --sweep [--seeds 1,2,3] [--noises 0.39,0.6] [--query-counts 24,96]
  add --oracle to either for the information bound's rows

Plays each query's tournament under every scheduler of judge.scheduler —
the paper's Swiss R = 20 (the reference), Swiss cut at R = 13 and R = 10
(two thirds and half of its calls), swiss-adaptive (Swiss that stops once
the top 10 of its Bradley–Terry ranking is stable) at its defaults and at
looser settings, active (information-driven pairing after 5 Swiss rounds,
with the same stopping), refine (7 Swiss rounds, then matchings of
candidates near in the Bradley–Terry ranking, within a budget of 9.9 calls
per candidate) and swiss-top (8 Swiss rounds, then Swiss pairing among the
top half by wins, within the same budget) at their defaults — every
comparison answered from the query's record, and reports per scheduler:

  calls/query   comparisons per query, and their share of Swiss R = 20's
  charged       comparisons the record lacked (replay only): new calls,
                answered by a draw from the record's own Bradley–Terry fit
  rounds        rounds with at least one comparison, mean
  inversions    pairs ordered against the exhaustive ranking (ties ½)
  top-10 τ      Kendall τ against the exhaustive θ over the union of both
                top 10s (a wrong order and a wrong member both count)
  |ΔnDCG@10|    mean |nDCG@10 − nDCG@10 under the exhaustive ratings| of
                the simulated retrievers, over retrievers and queries
  ρ vs ref/exh  Spearman of the retriever leaderboard (mean nDCG@10, with
                the scheduler's ratings) against Swiss R = 20's and the
                exhaustive ratings'
  goal          met: ≤ 0.5 of Swiss R = 20's calls with, against the
                exhaustive ranking, no more inversions, no larger
                |ΔnDCG@10| and no lower top-10 τ than Swiss R = 20 (the
                leaderboard ρ saturates over many queries: it is shown,
                not judged). No scheduler meets it: see
                docs/algorithms.md#scheduling-study-issues-24-41.

--oracle adds two rows that are a bound, not schedulers: a design that
knows the exhaustive ranking (which a judge would need every comparison
to know) and spends half of Swiss R = 20's calls, then about all of them,
on matchings of candidates within --oracle-window ranks of each other,
drawn by the Fisher information p(1−p) of each pair plus seeded noise
(--oracle-jitter). If the first has more inversions than Swiss R = 20, no
scheduler that learns the ranking from its own judgments is expected to
have as few; they never count as meeting the goal.

--sweep runs the simulated study once per (query count, noise, seed) and
prints, per scheduler, the mean and [min, max] over those studies of its
share of Swiss R = 20's calls, its inversions and |ΔnDCG@10| as ratios to
Swiss R = 20's in the same study, its top-10 τ as the difference, the
studies where the goal held and whether it holds on the means.

Retrievers are simulated: retriever k scores candidate i as q_k·z_i +
N(0, 1), z the latent scores (replaying: the exhaustive θ standardised),
q_k from 0.4 to 1.9 in even steps; its top 10 is scored with ratings = θ
rescaled to [0, 5], exponential gain, as the benchmark does.

Inputs (exactly one):
  --simulate        queries of --n candidates with latent scores from
                    N(0, 1), every pair judged once by a judge that prefers
                    Sample 1 with probability σ((s₁ − s₂)/noise + bias) and
                    gives no answer in --invalid-rate of them. The default
                    noise gives ~700 inversions at Swiss R = 20 (paper D.2).
  --judgments PATH  a run's judgments (Parquet file or dataset folder). Each
                    query's record is what the run judged; with --seed the
                    run's seed, tournaments are seeded as the judge stage
                    seeds them, so Swiss R = 20 replays a Swiss run's own
                    tournaments with nothing charged, and the other
                    schedulers share its opening rounds.

Output: the table on stdout; with --out DIR also scheduling.csv,
scheduling.md and the plot of top-10 τ against calls (scheduling.png,
scheduling.svg).

Examples:
  saber study scheduling --simulate --out study/
  saber study scheduling --simulate --queries 200 --out study/
  saber study scheduling --judgments data/run1/judgments/ --seed 1 --out study/
  GOMAXPROCS=1 saber study scheduling --sweep --seeds 1,2,3 --noises 0.39,0.6 --query-counts 24,96
  saber study scheduling --simulate --oracle --oracle-window 80

Exit 2 on bad flags or input.
`, stderr)
	simulate := fs.Bool("simulate", false, "use simulated judges instead of --judgments")
	queries := fs.Int("queries", study.DefaultSchedQueries, "simulation: simulated queries (raise for tighter figures)")
	n := fs.Int("n", 150, "simulation: candidates per query")
	noise := fs.Float64("noise", study.DefaultSchedNoise, "simulation: judge noise (logistic scale, in units of the latent N(0,1) spread)")
	bias := fs.Float64("position-bias", study.DefaultSchedPositionBias, "simulation: logit added for the sample shown first")
	invalidRate := fs.Float64("invalid-rate", study.DefaultSchedInvalidRate, "simulation: share of judgments without a usable answer")
	judgments := fs.String("judgments", "", "a run's judgments Parquet `PATH` (file or dataset folder)")
	seedFlag := fs.Uint64("seed", 1, "seed of the simulation and the retrievers; with --judgments, the run's seed")
	retrievers := fs.Int("retrievers", study.DefaultSchedRetrievers, "simulated retrievers on the leaderboard")
	lambda := fs.Float64("lambda", bt.DefaultLambda, "Bradley–Terry ridge λ")
	workers := fs.Int("workers", 0, "queries in parallel (default: GOMAXPROCS)")
	out := fs.String("out", "", "write scheduling.csv, .md, .png and .svg to `DIR`")
	oracle := fs.Bool("oracle", false, "add the information bound: rows of a design that knows the exhaustive ranking, at half and at all of Swiss R = 20's calls")
	oracleWindow := fs.Int("oracle-window", study.DefaultOracleWindow, "--oracle: farthest apart in the exhaustive ranking two paired candidates may be")
	oracleJitter := fs.Float64("oracle-jitter", study.DefaultOracleJitter, "--oracle: scale of the seeded noise on the pairs' log information")
	sweep := fs.Bool("sweep", false, "simulate a grid of studies and report the mean and spread of each figure")
	seeds := fs.String("seeds", "1,2,3", "sweep: the seeds, comma-separated")
	noises := fs.String("noises", "0.39,0.6", "sweep: the judge noises, comma-separated")
	queryCounts := fs.String("query-counts", "24,96", "sweep: the simulated query counts, comma-separated")
	storage := storageFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	opts, err := storage()
	if err != nil {
		return fail(stderr, cmd, err)
	}
	if *sweep {
		if *simulate || *judgments != "" {
			fmt.Fprintf(stderr, "saber %s: --sweep simulates; it takes neither --simulate nor --judgments\n", cmd)
			return stage.ExitBadInput
		}
		c := study.SchedSweepConfig{
			Sim:   study.SchedSimConfig{N: *n, Bias: *bias, InvalidRate: *invalidRate},
			Study: study.SchedConfig{Retrievers: *retrievers, Oracle: *oracle, OracleWindow: *oracleWindow, OracleJitter: *oracleJitter, Lambda: *lambda, Workers: *workers},
		}
		if c.Seeds, err = parseList(*seeds, func(f string) (uint64, error) { return strconv.ParseUint(f, 10, 64) }); err == nil {
			if c.Noises, err = parseList(*noises, func(f string) (float64, error) { return strconv.ParseFloat(f, 64) }); err == nil {
				c.Queries, err = parseList(*queryCounts, strconv.Atoi)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "saber %s: --seeds, --noises, --query-counts: %v\n", cmd, err)
			return stage.ExitBadInput
		}
		res, err := study.SchedulingSweep(ctx, c)
		if err != nil {
			return fail(stderr, cmd, err)
		}
		fmt.Fprint(stdout, res.Text())
		return stage.ExitOK
	}
	if *simulate == (*judgments != "") {
		fmt.Fprintf(stderr, "saber %s: give exactly one of --simulate and --judgments PATH\n", cmd)
		return stage.ExitBadInput
	}
	if !(*lambda > 0) {
		fmt.Fprintf(stderr, "saber %s: --lambda %v: want > 0\n", cmd, *lambda)
		return stage.ExitBadInput
	}
	var (
		qs     []*study.Exhaustive
		source string
	)
	if *simulate {
		qs, err = study.SimulateBiased(study.SchedSimConfig{N: *n, Queries: *queries, Noise: *noise, Bias: *bias, InvalidRate: *invalidRate, Seed: *seedFlag})
		source = fmt.Sprintf("simulated judge, noise %g, position bias %g, invalid rate %g, seed %d", *noise, *bias, *invalidRate, *seedFlag)
	} else {
		var rows []study.JudgmentRow
		rows, err = study.ReadParquet[study.JudgmentRow](ctx, *judgments, opts)
		if err == nil {
			qs, err = study.RecordsFromRows(rows)
		}
		source = fmt.Sprintf("%s replayed, tournaments seeded as the judge with seed %d", *judgments, *seedFlag)
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	res, err := study.Scheduling(ctx, qs, study.SchedConfig{Retrievers: *retrievers, Seed: *seedFlag, JudgeSeed: !*simulate, Oracle: *oracle, OracleWindow: *oracleWindow, OracleJitter: *oracleJitter, Lambda: *lambda, Workers: *workers})
	if err != nil {
		return fail(stderr, cmd, err)
	}
	res.Source = source
	fmt.Fprint(stdout, res.Text())
	if *out != "" {
		files, err := res.Files()
		if err != nil {
			return fail(stderr, cmd, err)
		}
		if err := study.WriteFiles(ctx, *out, opts, files); err != nil {
			return fail(stderr, cmd, err)
		}
		fmt.Fprintf(stdout, "\nwrote scheduling.csv, scheduling.md, scheduling.png, scheduling.svg to %s\n", *out)
	}
	return stage.ExitOK
}

// parseList parses a comma-separated list (blanks allowed) with parse.
func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := parse(f)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", f, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("an empty list")
	}
	return out, nil
}
