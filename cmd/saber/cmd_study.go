package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/study"
	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/swiss"
)

const studyUsage = `saber study — the experiments that check the judging design (paper App. D)

Usage:
  saber study rounds    [flags]   Swiss rounds vs the exhaustive ranking (App. D.2, Fig. 7)
  saber study agreement [flags]   agreement with human labels (App. D.4, Tables 5 and 6)
  saber study scheduling [flags]  judge schedulers: calls vs fidelity (issue 24)

Run "saber study <study> --help" for what each computes, its inputs and
an example.
`

func cmdStudy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			fmt.Fprint(stderr, studyUsage)
			return stage.ExitBadInput
		}
		fmt.Fprint(stdout, studyUsage)
		return stage.ExitOK
	}
	switch args[0] {
	case "rounds":
		return studyRounds(ctx, args[1:], stdout, stderr)
	case "agreement":
		return studyAgreement(ctx, args[1:], stdout, stderr)
	case "scheduling":
		return studyScheduling(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "saber study: unknown study %q\n\n%s", args[0], studyUsage)
	return stage.ExitBadInput
}

func studyRounds(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const cmd = "study rounds"
	fs := newFlags(cmd, `saber study rounds — how many Swiss rounds are enough (paper App. D.2, Fig. 7)

Usage:
  saber study rounds --simulate [--n 150] [--trials 20] [--noise 0.3] [--seed 1] [--out DIR]
  saber study rounds --judgments FILE.parquet [--seed 1] [--out DIR]

For each query with an exhaustive set of judgments — every pair of its
candidates judged, n(n−1)/2 = 11,175 for 150 candidates — the study plays a
Swiss tournament (SPEC §3, lib/swiss) whose every comparison is answered by
looking up the recorded judgment of that pair (in the same sample order if
it was judged that way, else the other), and fits Bradley–Terry to the
judgments of rounds 1..R. The Swiss ranking is compared with the
exhaustive ranking (Bradley–Terry on all judgments) for R = 1..--max-rounds:

  inversions  candidate pairs the two rankings order oppositely; a pair the
              Swiss ranking ties counts ½ (its expected count under random
              tie-breaking); pairs the exhaustive ranking ties are left out
  Spearman ρ  between the two θ vectors

Beside it, random scheduling: a seeded uniform order of all pairs, of which
the first m are judged, m = the Swiss comparisons so far (the paper's
random baseline, same budget). Everything is averaged over queries.
R = 20 rounds over 150 candidates make ~1,500 comparisons against 11,175.

Inputs (exactly one):
  --simulate        queries made up by a simulated judge (lib/swiss/swisssim):
                    n latent scores from N(0, 1); a beats b with probability
                    σ((s_a − s_b)/noise); every pair judged once. Adds
                    inversions against the latent truth as extra columns.
  --judgments PATH  a judgments Parquet file, or a dataset folder of
                    part-*.parquet (local path, file:// or s3://), with the
                    columns query, sample1, sample2, winner, invalid (the
                    judge stage's schema). Queries whose candidates (the
                    documents their rows mention) lack a pair are skipped
                    and listed. Invalid judgments count as comparisons made
                    but are a win for nobody.

Output: the table on stdout; with --out DIR (local, file:// or s3://) also
rounds.csv (columns rounds, comparisons, swiss_inversions,
swiss_inversions_sd, random_inversions, random_inversions_sd,
swiss_spearman, random_spearman, swiss_tied_pairs, random_tied_pairs,
swiss_latent_inversions, random_latent_inversions; the last two empty
without --simulate), and the figure as rounds.png and rounds.svg.

Examples:
  saber study rounds --simulate --n 150 --trials 20 --noise 0.3 --seed 1 --max-rounds 30 --out /tmp/rounds
  saber study rounds --judgments data/exhaustive/judgments/ --out /tmp/rounds

Exit 2 on bad flags or input (not Parquet, missing columns, no exhaustive
query).
`, stderr)
	simulate := fs.Bool("simulate", false, "use a simulated judge instead of --judgments")
	n := fs.Int("n", 150, "simulation: candidates per query")
	trials := fs.Int("trials", 20, "simulation: simulated queries")
	noise := fs.Float64("noise", 0.3, "simulation: judge noise (logistic scale, in units of the latent N(0,1) spread; 0 = a perfect judge)")
	invalidRate := fs.Float64("invalid-rate", 0, "simulation: share of judgments without a usable answer")
	judgments := fs.String("judgments", "", "judgments Parquet `PATH` (file or dataset folder) with exhaustive queries")
	seedFlag := fs.Uint64("seed", 1, "seed of the simulation, the Swiss pairings and the random schedules")
	maxRounds := fs.Int("max-rounds", 30, "largest R")
	lambda := fs.Float64("lambda", bt.DefaultLambda, "Bradley–Terry ridge λ")
	workers := fs.Int("workers", 0, "queries fitted in parallel (default: GOMAXPROCS)")
	out := fs.String("out", "", "write rounds.csv, rounds.png and rounds.svg to `DIR`")
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
	if *maxRounds < 1 {
		fmt.Fprintf(stderr, "saber %s: --max-rounds %d: want ≥ 1 (the paper uses %d)\n", cmd, *maxRounds, swiss.DefaultRounds)
		return stage.ExitBadInput
	}
	if !(*lambda > 0) {
		fmt.Fprintf(stderr, "saber %s: --lambda %v: want > 0\n", cmd, *lambda)
		return stage.ExitBadInput
	}
	var (
		qs      []*study.Exhaustive
		skipped []study.Skipped
		source  string
	)
	if *simulate {
		qs, err = study.Simulate(study.SimConfig{N: *n, Trials: *trials, Noise: *noise, InvalidRate: *invalidRate, Seed: *seedFlag})
		source = fmt.Sprintf("simulated judge, noise %g, invalid rate %g, seed %d", *noise, *invalidRate, *seedFlag)
	} else {
		var rows []study.JudgmentRow
		rows, err = study.ReadParquet[study.JudgmentRow](ctx, *judgments, opts)
		if err == nil {
			qs, skipped, err = study.ExhaustiveFromRows(rows)
		}
		if err == nil && len(qs) == 0 {
			err = stage.BadInput(fmt.Errorf("%s: none of its %d queries has every pair of its candidates judged", *judgments, len(skipped)))
		}
		source = fmt.Sprintf("%s, seed %d", *judgments, *seedFlag)
	}
	if err != nil {
		return fail(stderr, cmd, err)
	}
	res, err := study.Rounds(ctx, qs, study.RoundsConfig{MaxRounds: *maxRounds, Lambda: *lambda, Seed: *seedFlag, Workers: *workers})
	if err != nil {
		return fail(stderr, cmd, err)
	}
	res.Source, res.Skipped = source, skipped
	fmt.Fprint(stdout, res.Text())
	if *out != "" {
		files, err := res.Files()
		if err != nil {
			return fail(stderr, cmd, err)
		}
		if err := study.WriteFiles(ctx, *out, opts, files); err != nil {
			return fail(stderr, cmd, err)
		}
		fmt.Fprintf(stdout, "\nwrote rounds.csv, rounds.png, rounds.svg to %s\n", *out)
	}
	return stage.ExitOK
}

// systemFlags collects repeated --system NAME=KIND:PATH.
type systemFlags []string

func (s *systemFlags) String() string     { return strings.Join(*s, " ") }
func (s *systemFlags) Set(v string) error { *s = append(*s, v); return nil }

func studyAgreement(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const cmd = "study agreement"
	fs := newFlags(cmd, `saber study agreement — agreement of the judge and the rankings with human labels
(paper App. D.4, Tables 5 and 6)

Usage:
  saber study agreement --labels labels.csv [--judgments PATH] [--full-ratings PATH]
                        [--ratings PATH] [--system NAME=KIND:PATH ...] [--out DIR]

Human labels (--labels, CSV with a header row; columns in any order, extra
columns ignored, names case-insensitive):
  target      the query's document id
  candidate1  the candidate shown first
  candidate2  the candidate shown second
  label       1 (candidate1 is more relevant), 2 (candidate2) or tie
  annotator   who labelled it
An item is (target, {candidate1, candidate2}); annotators may have seen the
two candidates in either order. The same annotator labelling an item twice
is an error.

  target,candidate1,candidate2,label,annotator
  q17,d301,d925,1,alice
  q17,d925,d301,tie,bob

Systems compared with the humans (at least one):
  --judgments PATH     "Pairwise judge": the judge's answer on the pair — the
                       judgment of the same query and the same two documents,
                       in either sample order (judgments schema: query,
                       sample1, sample2, winner, invalid). Several valid
                       judgments of a pair: the majority, an even split a tie.
  --full-ratings PATH  "Full BT winner": the candidate with the higher θ in the
                       ratings of an exhaustive run (ratings schema: query,
                       doc, theta, rating)
  --ratings PATH       "Swiss ranking": the higher θ in the run's own ratings
  --system NAME=judgments:PATH or NAME=ratings:PATH
                       any further system (a majority-vote judge, a random
                       tournament's ratings, ...); repeatable
PATH is a Parquet file or a dataset folder (local, file:// or s3://).

Scoring: 1 when the system's verdict matches the label, 0.5 when exactly one
of the two is a tie (equal θ, within 1e-9, is a system tie), 0 when they
prefer different candidates. An item labelled by several annotators scores
the mean over them, so n counts items. An item a system has no answer for
(pair not judged, only invalid judgments, a candidate not rated) is
excluded from that system's n and counted by reason.

Per system: agreement (mean score), n, the 95% Wilson score interval of the
mean, and the two-sided exact binomial p-value against chance (0.5) of k of
n, k = the sum of scores rounded to an integer, an exact half toward n/2
(so half-points never make agreement look further from chance). Also
inter-annotator agreement over the items labelled by ≥ 2 annotators (mean
score over annotator pairs), and agreement by rank difference: Δ = |rank of
candidate1 − rank of candidate2| in the --delta-from ranking (rank 1 = highest
θ, ties by id), one column per --deltas threshold keeping items with Δ ≥ it.
By default Δ comes from the Swiss ranking (--ratings); the paper's Table 5
takes it from the full Bradley–Terry ranking: pass --delta-from full.

Output: Markdown on stdout; with --out DIR also agreement.md,
agreement.csv (Table 6: reference, n, agreement, sum, k, wilson_lo,
wilson_hi, p_value, half_scores, excluded, excluded_reasons),
agreement_delta.csv (Table 5: method, delta_from, delta_min, n, agreement)
and agreement_items.csv (every item with every verdict and score).

Example:
  saber study agreement --labels human.csv --judgments data/run1/judgments/ \
      --ratings data/run1/ratings/ --full-ratings data/exhaustive/ratings/ --out /tmp/agreement

Exit 2 on bad flags or input (missing columns, unknown labels, a file that
is not Parquet).
`+altUsage, stderr)
	alt := altFlags(fs)
	labelsPath := fs.String("labels", "", "human labels `CSV` (required; format above)")
	judgments := fs.String("judgments", "", "the judge's judgments (`PATH`): system \"Pairwise judge\"")
	full := fs.String("full-ratings", "", "ratings of an exhaustive run (`PATH`): system \"Full BT winner\"")
	ratings := fs.String("ratings", "", "the run's ratings (`PATH`): system \"Swiss ranking\"")
	var extra systemFlags
	fs.Var(&extra, "system", "another system, `NAME=KIND:PATH` with KIND judgments or ratings (repeatable)")
	deltaFrom := fs.String("delta-from", "", "ranking that gives Δ: swiss, full, none or a ratings --system NAME (default: swiss with --ratings, else full with --full-ratings, else none). The paper's Table 5 uses full")
	deltasFlag := fs.String("deltas", "0,25,50", "Δ thresholds, comma-separated")
	out := fs.String("out", "", "write agreement.md and the CSV tables to `DIR`")
	storage := storageFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	opts, err := storage()
	if err != nil {
		return fail(stderr, cmd, err)
	}
	if *labelsPath == "" {
		fmt.Fprintf(stderr, "saber %s: --labels CSV is required\n", cmd)
		return stage.ExitBadInput
	}
	deltas, err := parseDeltas(*deltasFlag)
	if err != nil {
		fmt.Fprintf(stderr, "saber %s: --deltas: %v\n", cmd, err)
		return stage.ExitBadInput
	}
	type spec struct{ name, kind, path, flag string }
	var specs []spec
	if *judgments != "" {
		specs = append(specs, spec{"Pairwise judge", "judgments", *judgments, "--judgments"})
	}
	if *full != "" {
		specs = append(specs, spec{"Full BT winner", "ratings", *full, "--full-ratings"})
	}
	if *ratings != "" {
		specs = append(specs, spec{"Swiss ranking", "ratings", *ratings, "--ratings"})
	}
	for _, e := range extra {
		name, rest, ok1 := strings.Cut(e, "=")
		kind, p, ok2 := strings.Cut(rest, ":")
		name = strings.TrimSpace(name)
		if !ok1 || !ok2 || name == "" || p == "" || (kind != "judgments" && kind != "ratings") {
			fmt.Fprintf(stderr, "saber %s: --system %q: want NAME=judgments:PATH or NAME=ratings:PATH\n", cmd, e)
			return stage.ExitBadInput
		}
		specs = append(specs, spec{name, kind, p, "--system " + name})
	}
	if len(specs) == 0 && *alt.judges == "" {
		fmt.Fprintf(stderr, "saber %s: nothing to compare: give --judgments, --full-ratings, --ratings, --system or --alt-judges\n", cmd)
		return stage.ExitBadInput
	}
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.name] {
			fmt.Fprintf(stderr, "saber %s: two systems named %q\n", cmd, s.name)
			return stage.ExitBadInput
		}
		seen[s.name] = true
	}

	labels, err := study.ReadLabelsFile(*labelsPath)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	var (
		systems  []study.System
		rankings = map[string]study.Ranking{} // by system name
	)
	for _, s := range specs {
		switch s.kind {
		case "judgments":
			rows, err := study.ReadParquet[study.JudgmentRow](ctx, s.path, opts)
			if err != nil {
				return fail(stderr, cmd, fmt.Errorf("%s: %w", s.flag, err))
			}
			sys, err := study.JudgeSystem(s.path, rows)
			if err != nil {
				return fail(stderr, cmd, err)
			}
			sys.Name = s.name
			systems = append(systems, sys)
		case "ratings":
			rows, err := study.ReadParquet[study.RatingRow](ctx, s.path, opts)
			if err != nil {
				return fail(stderr, cmd, fmt.Errorf("%s: %w", s.flag, err))
			}
			r, err := study.NewRanking(s.path, rows)
			if err != nil {
				return fail(stderr, cmd, err)
			}
			rankings[s.name] = r
			systems = append(systems, r.System(s.name))
		}
	}

	altSystems, err := alt.systems(ctx, labels, opts)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	systems = append(systems, altSystems...)

	cfg := study.AgreementConfig{Deltas: deltas}
	switch df := *deltaFrom; df {
	case "":
		if r, ok := rankings["Swiss ranking"]; ok && *ratings != "" {
			cfg.DeltaRanking, cfg.DeltaFrom = r, "Swiss"
		} else if r, ok := rankings["Full BT winner"]; ok && *full != "" {
			cfg.DeltaRanking, cfg.DeltaFrom = r, "full Bradley–Terry"
		}
	case "none":
	case "swiss", "full":
		flagName, sys, label := "--ratings", "Swiss ranking", "Swiss"
		if df == "full" {
			flagName, sys, label = "--full-ratings", "Full BT winner", "full Bradley–Terry"
		}
		r, ok := rankings[sys]
		if !ok {
			fmt.Fprintf(stderr, "saber %s: --delta-from %s needs %s PATH\n", cmd, df, flagName)
			return stage.ExitBadInput
		}
		cfg.DeltaRanking, cfg.DeltaFrom = r, label
	default:
		r, ok := rankings[df]
		if !ok {
			fmt.Fprintf(stderr, "saber %s: --delta-from %q: want swiss, full, none or the NAME of a ratings --system\n", cmd, df)
			return stage.ExitBadInput
		}
		cfg.DeltaRanking, cfg.DeltaFrom = r, df
	}
	if cfg.DeltaRanking == nil {
		cfg.Deltas = nil
	}
	res, err := study.Agreements(labels, systems, cfg)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	fmt.Fprint(stdout, res.Markdown())
	if *out != "" {
		if err := study.WriteFiles(ctx, *out, opts, res.Files()); err != nil {
			return fail(stderr, cmd, err)
		}
		fmt.Fprintf(stdout, "\nwrote agreement.md, agreement.csv, agreement_delta.csv, agreement_items.csv to %s\n", *out)
	}
	return stage.ExitOK
}

// parseDeltas reads comma-separated Δ thresholds ≥ 0.
func parseDeltas(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q is not an integer ≥ 0", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("no thresholds")
	}
	return out, nil
}

var _ flag.Value = (*systemFlags)(nil)
