package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ndcg"
)

func cmdEvalRun(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("eval-run", `saber eval-run — score an external TREC run against the benchmark's labels

Usage:
  saber eval-run --ratings-tsv DIR/ratings.tsv --run my.run
  saber eval-run --qrels DIR/qrels.txt --run my.run --gain linear

Scores a run file (query Q0 doc rank score tag, one tag per file) the way
the report stage scores the built-in retrievers: per query, the documents
ordered by score, descending, ties broken by document id ascending (SPEC §3;
the rank column is ignored, as trec_eval ignores it), nDCG@k against the
ideal ranking of all the query's judged documents, then the mean over the
judged queries. Prints "ndcg@k<TAB>query<TAB>value" per query and
"ndcg@k<TAB>all<TAB>mean" last on stdout; what was scored, and a note on
ties, go to stderr.

Labels come from "saber export trec": --ratings-tsv holds the exact [0, 5]
ratings (the report's numbers: use it to compare with Table 1); --qrels holds
them rounded half up to integer levels 0–5. Given both, they must agree,
and the TSV's exact ratings are used.

With --gain linear and --qrels this is trec_eval's ndcg_cut.k (gain = the
qrels level, discount log2(rank + 1), unjudged documents gain 0 with
--unjudged zero, queries without run lines left out with --missing skip),
except for ties: trec_eval breaks tied scores by document id descending.
So the stderr note also gives the mean under trec_eval's tie order, which is
what trec_eval -m ndcg_cut.10 prints.

Exit codes: 0 scored, 2 bad flags or a bad file (the message names the file
and line), 1 a bug.
`, stderr)
	qrelsPath := fs.String("qrels", "", "TREC qrels `FILE` (integer levels)")
	ratingsPath := fs.String("ratings-tsv", "", "exact ratings `FILE` (query, doc, rating; from saber export trec)")
	runPath := fs.String("run", "", "TREC run `FILE` to score (required)")
	gain := fs.String("gain", "exp", "gain: exp (2^rel − 1, the report's default) or linear (rel, as trec_eval)")
	k := fs.Int("k", ndcg.DefaultK, "cutoff `k` of nDCG@k")
	unjudged := fs.String("unjudged", report.PolicyError, "a retrieved document without a label: error, or zero (gain 0, as trec_eval)")
	missing := fs.String("missing", report.PolicyError, "a judged query without run lines: error, skip (as trec_eval), or zero (as trec_eval -c)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		return fail(stderr, "eval-run", stage.BadInput(fmt.Errorf(format, a...)))
	}
	if *runPath == "" {
		return bad("--run FILE is required (see --help)")
	}
	if *qrelsPath == "" && *ratingsPath == "" {
		return bad("--qrels FILE or --ratings-tsv FILE is required (see --help)")
	}
	if *k < 1 {
		return bad("--k must be ≥ 1")
	}
	if *unjudged != report.PolicyError && *unjudged != report.PolicyZero {
		return bad("--unjudged %q is not one of error, zero", *unjudged)
	}
	switch *missing {
	case report.PolicyError, report.PolicySkip, report.PolicyZero:
	default:
		return bad("--missing %q is not one of error, skip, zero", *missing)
	}
	var g ndcg.Gain
	switch *gain {
	case "exp", "exponential":
		g = ndcg.Exponential
	case "linear", "lin":
		g = ndcg.Linear
	default:
		return bad("--gain %q is not one of exp, linear", *gain)
	}
	var qrels []trec.Qrel
	var ratings []trec.Rating
	if *qrelsPath != "" {
		if err := readText(*qrelsPath, func(r io.Reader) (err error) { qrels, err = trec.ReadQrels(r, *qrelsPath); return }); err != nil {
			return fail(stderr, "eval-run", err)
		}
	}
	if *ratingsPath != "" {
		if err := readText(*ratingsPath, func(r io.Reader) (err error) { ratings, err = trec.ReadRatings(r, *ratingsPath); return }); err != nil {
			return fail(stderr, "eval-run", err)
		}
	}
	var lines []trec.RunLine
	if err := readText(*runPath, func(r io.Reader) (err error) { lines, err = trec.ReadRun(r, *runPath); return }); err != nil {
		return fail(stderr, "eval-run", err)
	}
	j, err := report.JudgedFrom(qrels, *qrelsPath, ratings, *ratingsPath)
	if err != nil {
		return fail(stderr, "eval-run", stage.BadInput(err))
	}
	res, err := report.EvalRun(j, lines, *runPath, report.EvalOptions{K: *k, Gain: g, Unjudged: *unjudged, Missing: *missing})
	if err != nil {
		return fail(stderr, "eval-run", stage.BadInput(err))
	}
	labels := "qrels " + *qrelsPath + " (integer levels)"
	if ratings != nil {
		labels = "ratings " + *ratingsPath + " (exact [0, 5] ratings)"
	}
	fmt.Fprintf(stderr, "run %s (tag %s): %d queries scored against %s; nDCG@%d, %s gain\n", *runPath, res.Tag, len(res.Queries), labels, *k, g)
	if len(res.Skipped) > 0 {
		fmt.Fprintf(stderr, "skipped %d judged queries without run lines (--missing skip)\n", len(res.Skipped))
	}
	fmt.Fprintf(stderr, "note: tied scores are broken by document id ascending (SPEC §3); trec_eval breaks them by id descending, which changes the value of %d of %d queries and gives mean %.6f\n",
		res.TieDiffers, len(res.Queries), res.MeanTrecTies)
	name := fmt.Sprintf("ndcg@%d", *k)
	for _, q := range res.Queries {
		fmt.Fprintf(stdout, "%s\t%s\t%.6f\n", name, q.Query, q.NDCG)
	}
	fmt.Fprintf(stdout, "%s\tall\t%.6f\n", name, res.Mean)
	return stage.ExitOK
}

// readText opens a local file for fn; a file that cannot be read, or a
// malformed line, is bad input.
func readText(path string, fn func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return stage.BadInput(err)
	}
	defer f.Close()
	if err := fn(f); err != nil {
		var pe *trec.ParseError
		if errors.As(err, &pe) {
			return stage.BadInput(err)
		}
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
