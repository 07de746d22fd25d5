package study

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
)

// JudgmentRow is the part of a `judgments` row (dataset.Judgment) the
// studies read. Files from elsewhere need only these five columns.
type JudgmentRow struct {
	Query   string `parquet:"query"`
	Sample1 string `parquet:"sample1"`
	Sample2 string `parquet:"sample2"`
	// Winner is Sample1 or Sample2; empty when Invalid.
	Winner  string `parquet:"winner"`
	Invalid bool   `parquet:"invalid"`
}

// RatingRow is the part of a `ratings` row (dataset.Rating) the studies
// read.
type RatingRow struct {
	Query  string  `parquet:"query"`
	Doc    string  `parquet:"doc"`
	Theta  float64 `parquet:"theta"`
	Rating float64 `parquet:"rating"`
}

// ReadParquet reads every row of a Parquet file, or of every .parquet file
// in a folder (a dataset's part-*.parquet; _done/ manifests are skipped),
// into T. p is a local path, file:///abs/path or s3://bucket/key, opened
// with the storage options opts (a run config's storage: section; zero
// values follow the environment). A missing file, a file that is not
// Parquet and a missing column are bad input (exit 2), named in the error.
func ReadParquet[T any](ctx context.Context, p string, opts store.Options) ([]T, error) {
	if p == "" {
		return nil, stage.BadInput(errors.New("empty path"))
	}
	parts, err := layout.Files(ctx, p, opts, func(key string) bool {
		return strings.HasSuffix(strings.ToLower(key), ".parquet") && !slices.Contains(strings.Split(key, "/"), "_done")
	})
	if errors.Is(err, fs.ErrNotExist) {
		if fi, serr := os.Stat(p); serr == nil && fi.IsDir() || strings.HasSuffix(p, "/") {
			return nil, stage.BadInput(fmt.Errorf("read %s: a folder without .parquet files", p))
		}
		return nil, stage.BadInput(fmt.Errorf("read %s: %w", p, err))
	}
	if err != nil {
		return nil, stage.BadInput(fmt.Errorf("read %s: %w", p, err))
	}
	var out []T
	for _, f := range parts {
		rows, err := readOne[T](ctx, f.Store, f.Key)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

func readOne[T any](ctx context.Context, st store.Store, key string) ([]T, error) {
	rows, err := dataset.Read[T](ctx, st, key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, stage.BadInput(err)
	}
	return rows, err // NotParquetError and SchemaError are bad input already
}

// Label is one human annotation: which of two candidates is more relevant
// to the target (the query), or a tie.
type Label struct {
	Target, Candidate1, Candidate2 string
	// Label is "1" (Candidate1), "2" (Candidate2) or "tie".
	Label     string
	Annotator string
	// Line is the row's line in its file, for messages.
	Line int
}

// LabelColumns are the columns a labels CSV must have (any order, any
// extra columns, names case-insensitive).
var LabelColumns = []string{"target", "candidate1", "candidate2", "label", "annotator"}

// ReadLabels reads human labels from CSV with a header row holding
// LabelColumns. label is 1, 2 or tie (case-insensitive); every row needs a
// target, two different candidates and an annotator. Every problem is bad
// input naming the file (name) and line.
func ReadLabels(r io.Reader, name string) ([]Label, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, stage.BadInput(fmt.Errorf("%s: empty file; want a header row %s", name, strings.Join(LabelColumns, ",")))
	}
	if err != nil {
		return nil, stage.BadInput(fmt.Errorf("%s: %w", name, err))
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := col[h]; dup && h != "" {
			return nil, stage.BadInput(fmt.Errorf("%s: header names column %q twice", name, h))
		}
		col[h] = i
	}
	var missing []string
	for _, c := range LabelColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, stage.BadInput(fmt.Errorf("%s: missing column(s) %s; want a header row with %s (have %q)",
			name, strings.Join(missing, ", "), strings.Join(LabelColumns, ","), header))
	}
	var out []Label
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, stage.BadInput(fmt.Errorf("%s: %w", name, err))
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		get := func(c string) string {
			if i := col[c]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		l := Label{Target: get("target"), Candidate1: get("candidate1"), Candidate2: get("candidate2"),
			Label: strings.ToLower(get("label")), Annotator: get("annotator"), Line: line}
		for _, c := range LabelColumns {
			if get(c) == "" {
				return nil, stage.BadInput(fmt.Errorf("%s line %d: empty %s", name, line, c))
			}
		}
		if l.Label != "1" && l.Label != "2" && l.Label != "tie" {
			return nil, stage.BadInput(fmt.Errorf("%s line %d: label %q: want 1 (candidate1 is more relevant), 2 (candidate2) or tie", name, line, get("label")))
		}
		if l.Candidate1 == l.Candidate2 {
			return nil, stage.BadInput(fmt.Errorf("%s line %d: candidate1 and candidate2 are both %q", name, line, l.Candidate1))
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, stage.BadInput(fmt.Errorf("%s: no label rows after the header", name))
	}
	return out, nil
}

// ReadLabelsFile is ReadLabels on a local file.
func ReadLabelsFile(p string) ([]Label, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	defer f.Close()
	return ReadLabels(f, p)
}

// WriteFiles writes each named file under out (a local folder, file:// or
// s3:// URI, opened with opts), each replaced atomically, in name order.
func WriteFiles(ctx context.Context, out string, opts store.Options, files map[string][]byte) error {
	st, err := store.Open(ctx, out, opts)
	if err != nil {
		return stage.BadInput(fmt.Errorf("--out: %w", err))
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := store.Put(ctx, st, n, files[n], store.Replace); err != nil {
			return fmt.Errorf("write %s: %w", st.URI(n), err)
		}
	}
	return nil
}
