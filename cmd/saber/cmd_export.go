package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/stage"
)

const exportHelp = `saber export — write a run's labels and rankings in other tools' formats

Usage:
  saber export trec --config run.yaml --out DIR [--runs=false]

Formats:
  trec   DIR/qrels.txt     TREC qrels "query 0 doc level": each [0, 5] rating
                           rounded half up to an integer level 0–5
         DIR/ratings.tsv   the exact ratings, "query<TAB>doc<TAB>rating"
         DIR/runs/R.S.run  one TREC run per retriever R and setting S,
                           "query Q0 doc rank score R/S"
         DIR/README.md     what each file holds

Reads the run's complete ratings (after rate) and runs (after evaluate)
from its storage root (local or s3://) and writes local files, each whole
or not at all. Score a run file again with "saber eval-run"; use trec_eval,
ir_measures or pytrec_eval on the same files.

Exit codes: 0 written, 2 bad flags or a stage not complete, 1 a bug.
`

func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, exportHelp)
		return stage.ExitBadInput
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help" {
		fmt.Fprint(stderr, exportHelp)
		return stage.ExitOK
	}
	if strings.HasPrefix(args[0], "-") || args[0] != "trec" {
		fmt.Fprintf(stderr, "saber export: unknown format %q (formats: trec; see saber export --help)\n", args[0])
		return stage.ExitBadInput
	}
	fs := newFlags("export trec", exportHelp, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	out := fs.String("out", "", "local `DIR` to write into (created if needed)")
	runs := fs.Bool("runs", true, "also export the runs (false: ratings only, before evaluate has run)")
	if code, ok := parse(fs, args[1:]); !ok {
		return code
	}
	if *out == "" {
		return fail(stderr, "export", stage.BadInput(fmt.Errorf("--out DIR is required")))
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "export", err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return fail(stderr, "export", stage.BadInput(err))
	}
	sum, err := report.ExportTREC(ctx, root, cfg.Run, *out, *runs)
	if err != nil {
		return fail(stderr, "export", err)
	}
	fmt.Fprintf(stdout, "wrote %s/%s and %s: %d ratings of %d queries\n", sum.Dir, report.ExportQrels, report.ExportRatings, sum.Ratings, sum.Queries)
	if *runs {
		fmt.Fprintf(stdout, "wrote %d run files under %s/%s: %d lines\n", len(sum.RunFiles), sum.Dir, report.ExportRuns, sum.RunLines)
	}
	return stage.ExitOK
}
