package decl

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

// forecastMap: the rows the map stages, counted in the input files as
// ingest reads them (inputRows), or plan.documents' what-if scale.
func forecastMap(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	if n := in.Config().Plan.Documents; n > 0 {
		// A what-if scale (the paper's corpus) whose files are not at
		// hand: the inputs are not read, so there are no bytes to count.
		out.Metrics = append(out.Metrics, plan.Metric{Name: "rows staged", Value: float64(n), Rows: dataset.IngestRows.Name,
			Basis: fmt.Sprintf("plan.documents = %d (assumed, not counted: the inputs are not read)", n)})
		out.Rows[dataset.IngestRows.Name] = float64(n)
		return nil
	}
	rows, bytes, basis, err := inputRows(ctx, in.Config())
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "rows staged", Value: rows, Rows: dataset.IngestRows.Name, Basis: basis},
		plan.Metric{Name: "bytes read", Value: bytes, Stats: []string{"bytes_read"}, Basis: "the input files' sizes"})
	out.Rows[dataset.IngestRows.Name] = rows
	return nil
}

// forecastReduce: the reduce counts the rows read and keeps the valid
// ones; which rows are invalid is known only once they are read.
func forecastReduce(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	n, basis, err := in.Rows(ctx, dataset.IngestRows.Name)
	if err != nil {
		return err
	}
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "rows read", Value: n, Stats: []string{"rows_read"}, Basis: basis},
		plan.Metric{Name: "problems", Value: n, Rows: dataset.Problems.Name, Basis: basis + ", none rejected (rejects are known only once read)"})
	out.Rows[dataset.Problems.Name] = n
	return nil
}

// inputRows counts the rows ingest stages from its sources: records as
// ingest reads them (JSON lines, the elements of a JSON array, Parquet
// rows), less those where: drops, one per element of an exploded list
// (countFile), in the first sampleBytes of each file and extrapolated by
// size.
func inputRows(ctx context.Context, cfg *config.Config) (rows, size float64, basis string, err error) {
	icfg := Section.Of(cfg)
	files, sampled := 0, 0
	formats := map[string]int{}
	weighed := false
	for i := range icfg.Sources {
		src := &icfg.Sources[i]
		weighed = weighed || !newWeigher(src).plain
		seen := map[string]bool{} // a file two patterns name is read once (FileKey)
		for _, pat := range src.Paths {
			fs, err := layout.Files(ctx, cfg.Resolve(pat), cfg.Storage, nil)
			if err != nil {
				return 0, 0, "", fmt.Errorf("ingest source %s: %q: %w", src.Name, pat, err)
			}
			for _, f := range fs {
				if seen[FileKey(f.URI)] {
					continue
				}
				seen[FileKey(f.URI)] = true
				info, err := f.Store.Stat(ctx, f.Key)
				if err != nil {
					return 0, 0, "", fmt.Errorf("stat %s: %w", f.URI, err)
				}
				files++
				size += float64(info.Size)
				fc, err := countFile(ctx, src, f, info.Size)
				if err != nil {
					return 0, 0, "", fmt.Errorf("ingest source %s: %w", src.Name, err)
				}
				rows += fc.rows
				formats[fc.format]++
				if fc.sampled {
					sampled++
				}
			}
		}
	}
	var kinds []string
	for _, k := range []string{"jsonl", "json", "parquet"} {
		if formats[k] > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", formats[k], map[string]string{"jsonl": "JSON lines", "json": "JSON array", "parquet": "Parquet"}[k]))
		}
	}
	basis = fmt.Sprintf("records of %d input files (%s), as ingest reads them", files, strings.Join(kinds, ", "))
	if weighed {
		basis += ", less where: filters, one row per element of an exploded list"
	}
	if sampled > 0 {
		basis += fmt.Sprintf("; %d files sampled (the first %d KiB of each, or %d Parquet rows) and extrapolated by size", sampled, sampleBytes>>10, sampleParquetRows)
	}
	return rows, size, basis, nil
}

// FileKey tells whether two of a source's paths name one file, which
// ingest reads once: a local file by its cleaned path, whether a glob, a
// file name or a folder (file:// URIs) named it; any other by its URI.
func FileKey(uri string) string {
	if local, isFile := strings.CutPrefix(uri, "file://"); isFile || !strings.Contains(uri, "://") {
		return "file://" + filepath.Clean(filepath.FromSlash(local))
	}
	return uri
}
