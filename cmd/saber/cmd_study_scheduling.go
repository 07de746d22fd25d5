package main

import (
	"context"
	"fmt"
	"io"

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

Plays each query's tournament under every scheduler of judge.scheduler —
the paper's Swiss R = 20 (the reference), Swiss cut at R = 13 (two thirds
of its calls), swiss-adaptive (Swiss that stops once the top 10 of its
Bradley–Terry ranking is stable) at its defaults and at looser settings,
and active (information-driven pairing after 5 Swiss rounds, with the same
stopping) at its defaults — every comparison answered from the query's
record, and reports per scheduler:

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
  goal          met: ≤ 2/3 of Swiss R = 20's calls, ρ vs ref ≥ 0.99 and
                top-10 τ no worse than Swiss R = 20's

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
	storage := storageFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	opts, err := storage()
	if err != nil {
		return fail(stderr, cmd, err)
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
	res, err := study.Scheduling(ctx, qs, study.SchedConfig{Retrievers: *retrievers, Seed: *seedFlag, JudgeSeed: !*simulate, Lambda: *lambda, Workers: *workers})
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
