package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdMTEB(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("mteb", `saber mteb — correlate MTEB scores with SABER-Math overall nDCG@10 (paper §4.1)

Usage:
  saber mteb --results RUN/reports/leaderboard.json --mteb mteb.csv [--since 2025-01-01] [--out mteb.md]
  saber mteb --results RUN/results --mteb mteb.csv

--results is a report's leaderboard.json (each entry's overall nDCG), or the
report's `+"`results`"+` dataset: a parquet file or a folder of parquet parts,
read in the main setting (statement-full if present), exponential gain,
scope overall.

--mteb is a CSV with a header line naming these columns (any order; other
columns are ignored):

  retriever      the retriever's name, as in the report
  mteb_score     its MTEB score (e.g. Multilingual Retrieval); empty when
                 the model has none (the row is left out)
  release_date   YYYY-MM-DD, or empty when unknown

for example:

  retriever,mteb_score,release_date
  qwen3-emb-0.6b,64.65,2025-06-05
  bge-m3,54.60,2024-01-30

Prints a Markdown table of Pearson and Spearman correlations (ties
averaged, as scipy) over the retrievers in both files: all of them; those
released on or after --since; and all of them less the 1 and the 2
retrievers with the largest rank gap |rank by MTEB − rank by ours| (ranks
among all common retrievers, 1 = best), which it names. --out also writes
the table to a file. Correlations of fewer than 2 retrievers, or of a
constant column, read n/a.

Exit codes: 0 done, 2 bad flags or a bad file, 1 a bug.
`, stderr)
	results := fs.String("results", "", "leaderboard.json, or a results parquet `FILE` or folder (required)")
	mtebPath := fs.String("mteb", "", "MTEB scores CSV `FILE` (required; see above)")
	since := fs.String("since", "", "also correlate the models released from this `DATE` (YYYY-MM-DD)")
	out := fs.String("out", "", "also write the Markdown table to `FILE`")
	storage := storageFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		return fail(stderr, "mteb", stage.BadInput(fmt.Errorf(format, a...)))
	}
	if *results == "" || *mtebPath == "" {
		return bad("--results and --mteb are required (see --help)")
	}
	if *since != "" {
		if _, err := time.Parse(time.DateOnly, *since); err != nil {
			return bad("--since %q is not YYYY-MM-DD", *since)
		}
	}
	opts, err := storage()
	if err != nil {
		return fail(stderr, "mteb", err)
	}
	ours, source, err := readOurScores(ctx, *results, opts)
	if err != nil {
		return bad("%s: %v", *results, err)
	}
	f, err := os.Open(*mtebPath)
	if err != nil {
		return bad("%v", err)
	}
	scores, err := report.ReadMTEBCSV(f, *mtebPath)
	f.Close()
	if err != nil {
		return bad("%v", err)
	}
	rows, common := report.MTEBCorrelation(ours, scores, *since)
	if len(common) == 0 {
		return bad("no retriever of %s is in %s (names must match exactly)", *mtebPath, *results)
	}
	var missing []string
	for _, s := range scores {
		if _, ok := ours[s.Retriever]; !ok {
			missing = append(missing, s.Retriever)
		}
	}
	sort.Strings(missing)
	fmt.Fprintf(stderr, "%d retrievers with both scores; %d with an MTEB score not in the results", len(common), len(missing))
	if len(missing) > 0 {
		fmt.Fprintf(stderr, ": %s", strings.Join(missing, ", "))
	}
	fmt.Fprintln(stderr)
	md := report.MTEBMarkdown(rows, source)
	fmt.Fprint(stdout, md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			return fail(stderr, "mteb", err)
		}
	}
	return stage.ExitOK
}

// readOurScores reads overall nDCG per retriever from a leaderboard.json
// or from `results` parquet (a file or a folder of parts), local or on S3.
func readOurScores(ctx context.Context, path string, opts store.Options) (map[string]float64, string, error) {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		f, err := layout.OpenFile(ctx, path, opts)
		if err != nil {
			return nil, "", err
		}
		data, err := store.ReadAll(ctx, f.Store, f.Key)
		if err != nil {
			return nil, "", err
		}
		s, err := report.LeaderboardScores(data)
		return s, "overall nDCG from " + filepath.Base(path), err
	}
	parts, err := layout.Files(ctx, path, opts, func(key string) bool {
		return strings.HasSuffix(strings.ToLower(key), ".parquet") && !strings.Contains(key, "_done/")
	})
	if errors.Is(err, store.ErrNotExist) {
		return nil, "", fmt.Errorf("%s: no results parquet files: %w", path, err)
	}
	if err != nil {
		return nil, "", err
	}
	var rows []dataset.Result
	for _, f := range parts {
		part, err := dataset.Read[dataset.Result](ctx, f.Store, f.Key)
		if err != nil {
			return nil, "", err
		}
		rows = append(rows, part...)
	}
	s, setting, err := readers.ResultsScores(rows)
	return s, "overall nDCG@10 (exponential gain) in " + setting + " from `results`", err
}
