package report

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/jobs/stage"
)

// Files ExportTREC writes under its directory.
const (
	ExportQrels   = "qrels.txt"
	ExportRatings = "ratings.tsv"
	ExportRuns    = "runs" // <retriever>.<setting>.run inside
	ExportReadme  = "README.md"
)

// RunTag is the TREC run tag of a system: retriever/setting.
func RunTag(s System) string { return trec.RunTag(s.Retriever, s.Setting) }

// RunFile is the file name of a system's run (trec.RunFile).
func RunFile(s System) string { return trec.RunFile(s.Retriever, s.Setting) }

// ExportSummary is what ExportTREC wrote.
type ExportSummary struct {
	Dir      string
	Ratings  int
	Queries  int
	RunFiles []string // relative to Dir, in `runs` order
	RunLines int64
}

// completeParts returns the objects of a complete dataset, done under
// doneDataset's manifests.
func completeParts(ctx context.Context, st store.Store, run, doneDataset, ds string) ([]layout.Object, error) {
	ms, err := layout.Complete(ctx, st, run, doneDataset)
	if err != nil {
		return nil, err
	}
	var out []layout.Object
	for _, m := range ms {
		for _, o := range m.Outputs {
			if strings.HasPrefix(o.Key, run+"/"+ds+"/") {
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// ExportTREC writes a run's `ratings` as TREC qrels (levels by
// trec.Level) and as the exact ratings TSV, and, when runs is true, every
// retriever × setting of `runs` as a TREC run file, under dir (created if
// needed). Every file is written to a temporary name and renamed, so none
// is ever seen half-written. Lines come in dataset order: qrels and ratings
// by query then document, runs by query then rank.
func ExportTREC(ctx context.Context, st store.Store, run, dir string, runs bool) (*ExportSummary, error) {
	sum := &ExportSummary{Dir: dir}
	parts, err := completeParts(ctx, st, run, dataset.Ratings.Name, dataset.Ratings.Name)
	if err != nil {
		return nil, err
	}
	var ratings []trec.Rating
	for _, p := range parts {
		err := dataset.Scan(ctx, st, p.Key, func(rows []dataset.Rating) error {
			for _, r := range rows {
				ratings = append(ratings, trec.Rating{Query: r.Query, Doc: r.Doc, Rating: r.Rating})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	trec.SortRatings(ratings)
	queries := map[string]bool{}
	for _, r := range ratings {
		queries[r.Query] = true
	}
	sum.Ratings, sum.Queries = len(ratings), len(queries)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	badInput := func(err error) error {
		if err != nil {
			return stage.BadInput(err)
		}
		return nil
	}
	if err := store.WriteFile(filepath.Join(dir, ExportQrels), 0o644, func(w io.Writer) error { return badInput(trec.WriteQrels(w, ratings)) }); err != nil {
		return nil, err
	}
	if err := store.WriteFile(filepath.Join(dir, ExportRatings), 0o644, func(w io.Writer) error { return badInput(trec.WriteRatings(w, ratings)) }); err != nil {
		return nil, err
	}
	if runs {
		if err := exportRuns(ctx, st, run, dir, sum); err != nil {
			return nil, err
		}
	}
	if err := store.WriteFile(filepath.Join(dir, ExportReadme), 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, exportReadme(run, sum))
		return err
	}); err != nil {
		return nil, err
	}
	return sum, nil
}

// exportRuns streams `runs` into one file per system. A system's rows are
// contiguous per part and parts come in shard order (query ranges in
// order), so each file is written in query, then rank order.
func exportRuns(ctx context.Context, st store.Store, run, dir string, sum *ExportSummary) error {
	parts, err := completeParts(ctx, st, run, dataset.Runs.Name, dataset.Runs.Name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ExportRuns), 0o755); err != nil {
		return err
	}
	files := map[System]*store.LocalFile{}
	byPath := map[string]System{}
	var order []System
	defer func() {
		for _, f := range files {
			f.Abort() // after Commit, nothing
		}
	}()
	line := make([]trec.RunLine, 1)
	for _, p := range parts {
		row := 0
		err := dataset.Scan(ctx, st, p.Key, func(rows []dataset.RunRow) error {
			for _, r := range rows {
				row++
				s := System{r.Retriever, r.Setting}
				o := files[s]
				if o == nil {
					if err := trec.CheckID(RunTag(s)); err != nil {
						return stage.BadInput(fmt.Errorf("%s row %d: %w", p.URI, row, err))
					}
					path := filepath.Join(dir, ExportRuns, RunFile(s))
					if other, ok := byPath[path]; ok {
						return stage.BadInput(fmt.Errorf("%s row %d: retrievers %s and %s would both be written to %s", p.URI, row, other, s, path))
					}
					byPath[path] = s
					f, err := store.CreateFile(path, 0o644)
					if err != nil {
						return err
					}
					o = f
					files[s] = o
					order = append(order, s)
				}
				line[0] = trec.RunLine{Query: r.Query, Doc: r.Doc, Rank: int(r.Rank), Score: r.Score, Tag: RunTag(s)}
				if err := trec.WriteRun(o, line); err != nil {
					return stage.BadInput(fmt.Errorf("%s row %d: %w", p.URI, row, err))
				}
				sum.RunLines++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, s := range order {
		if err := files[s].Commit(); err != nil {
			return err
		}
		sum.RunFiles = append(sum.RunFiles, filepath.Join(ExportRuns, RunFile(s)))
	}
	return nil
}

func exportReadme(run string, s *ExportSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# SABER-Math run %s in TREC formats

Written by `+"`saber export trec`"+`.

- %s: TREC qrels, `+"`query 0 doc level`"+`, %d judged documents of %d queries. The level is
  the [0, 5] rating rounded half up (0.5 → 1, 4.5 → 5; a rating within 1e-9 below a half, the
  fit's precision, counts as the half): levels 0…5, each within 0.5 (+1e-9) of its rating. Tools
  that binarise qrels count level ≥ 1 (rating ≥ 0.5 − 1e-9) as relevant.
- %s: the exact ratings, `+"`query<TAB>doc<TAB>rating`"+` after a header line, each the shortest
  decimal that reads back to the same float64. These are the labels `+"`saber report`"+` scores with.
`, run, ExportQrels, s.Ratings, s.Queries, ExportRatings)
	if len(s.RunFiles) > 0 {
		fmt.Fprintf(&b, `- %s/: one TREC run per retriever and setting, `+"`query Q0 doc rank score tag`"+`, tag
  retriever/setting; %d lines in %d files.
`, ExportRuns, s.RunLines, len(s.RunFiles))
	}
	b.WriteString(`
Scoring: ` + "`saber eval-run --ratings-tsv ratings.tsv --run runs/X.run`" + ` gives the report's nDCG@10
(exponential gain on the exact ratings). trec_eval -m ndcg_cut.10 on qrels.txt scores linear
gain on the rounded levels, and breaks tied scores by document id descending where saber
breaks them ascending; ` + "`saber eval-run --qrels qrels.txt --gain linear`" + ` prints both.
`)
	return b.String()
}
