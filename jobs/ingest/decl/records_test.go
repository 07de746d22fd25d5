package decl_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/forecast"
	"github.com/saber-math/saber/jobs/ingest/decl"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stages/stagestest"
)

// recordsYAML has a source of every shape ingest accepts: pretty-printed
// JSON arrays with nested fields (one record over a dozen lines), JSON
// lines, gzip'd JSON lines, a list exploded into one row per element
// behind a where: filter, Parquet with a filter, and a JSON array large
// enough that only a sample of it is read.
const recordsYAML = `run: rc
root: %[1]s/data
seed: 3
log: {progress_seconds: 0}
ingest:
  shards: 2
  sources:
    - {name: arr, paths: ["%[1]s/arr/*.json"], fields: {id: meta.id, statement: content.problem, solution: content.answer}}
    - {name: lines, paths: ["%[1]s/lines.jsonl", "%[1]s/lines.jsonl.gz"]}
    - name: exploded
      paths: ["%[1]s/exploded.jsonl"]
      fields: {id: id, statement: problem, solution: solutions}
      lists: {solution: explode}
      where: [{field: level, in: [4, 5]}]
    - name: pq
      paths: ["%[1]s/table.parquet"]
      fields: {statement: problem, solution: answer}
      where: [{field: split, is: test}]
    - {name: big, paths: ["%[1]s/big.json"], fields: {statement: q, solution: a}}
`

type pqRow struct {
	Problem string `parquet:"problem"`
	Answer  string `parquet:"answer"`
	Split   string `parquet:"split"`
}

func writeCorpora(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	text := func(prefix string, i int) string {
		return fmt.Sprintf("%s %d %s", prefix, i, strings.Repeat("x ", 5+rng.IntN(60)))
	}
	write := func(name string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for f := range 3 {
		var recs []any
		for i := range 40 + 30*f {
			recs = append(recs, map[string]any{
				"meta":    map[string]any{"id": fmt.Sprintf("a%d-%d", f, i), "tags": []string{"x", "y"}},
				"content": map[string]any{"problem": text("find", i), "answer": text("so", i)},
			})
		}
		b, _ := json.MarshalIndent(recs, "", "  ")
		write(fmt.Sprintf("arr/part%d.json", f), b)
	}
	var lines bytes.Buffer
	for i := range 150 {
		b, _ := json.Marshal(map[string]any{"statement": text("line", i), "solution": text("sol", i)})
		lines.Write(append(b, '\n'))
		if i%10 == 0 {
			lines.WriteString("\n") // blank lines are no rows
		}
	}
	write("lines.jsonl", lines.Bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.ReplaceAll(lines.Bytes(), []byte("line "), []byte("zipped ")))
	zw.Close()
	write("lines.jsonl.gz", gz.Bytes())
	var ex bytes.Buffer
	for i := range 120 {
		sols := make([]string, 1+rng.IntN(4))
		for k := range sols {
			sols[k] = text("way", 10*i+k)
		}
		b, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("e%d", i), "problem": text("ex", i), "solutions": sols, "level": 1 + i%5})
		ex.Write(append(b, '\n'))
	}
	write("exploded.jsonl", ex.Bytes())
	var rows []pqRow
	for i := range 200 {
		split := "train"
		if i%4 == 0 {
			split = "test"
		}
		rows = append(rows, pqRow{Problem: text("pq", i), Answer: text("pa", i), Split: split})
	}
	if err := parquet.WriteFile(filepath.Join(dir, "table.parquet"), rows); err != nil {
		t.Fatal(err)
	}
	var big []any
	for i := range 2000 {
		big = append(big, map[string]any{"q": text("big", i), "a": text("ans", i)})
	}
	b, _ := json.MarshalIndent(big, "", "    ")
	write("big.json", b)
}

// TestForecastRowsEveryShape is the bar: `saber plan` forecasts
// ingest's staged rows within 10% of what ingest then stages, on every
// shape ingest reads — counting lines put the pretty-printed arrays
// alone 6× over.
func TestForecastRowsEveryShape(t *testing.T) {
	t.Cleanup(decl.SetSampleBytes(64 << 10)) // big.json (~0.4 MiB) is sampled, the rest read whole
	ctx := context.Background()
	dir := t.TempDir()
	writeCorpora(t, dir)
	cfg, err := pipeline.ParseConfig([]byte(fmt.Sprintf(recordsYAML, dir)))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := pipeline.Select(cfg, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := forecast.Forecast(ctx, cfg, pipeline.Default(), sel, forecast.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	stagestest.Run(t, cfg, root, "ingest")
	if err := forecast.Compare(ctx, cfg, pipeline.Default(), steps); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, st := range steps {
		for _, m := range st.Metrics {
			if m.Rows != dataset.IngestRows.Name && m.Rows != dataset.Problems.Name {
				continue
			}
			if m.Ratio == nil {
				t.Fatalf("%s/%s %q: no actual", st.Stage, st.Step, m.Name)
			}
			t.Logf("%s/%s %s: forecast %.0f, actual %.0f (%s)", st.Stage, st.Step, m.Name, m.Value, *m.Actual, m.Basis)
			if r := *m.Ratio; r < 0.9 || r > 1.1 {
				t.Errorf("%s/%s %s: forecast %.0f, ingest staged %.0f (ratio %.3f, want within 10%%); basis: %s", st.Stage, st.Step, m.Name, m.Value, *m.Actual, r, m.Basis)
			}
			checked++
		}
	}
	if checked < 2 {
		t.Fatalf("checked %d row forecasts, want ingest's map and reduce", checked)
	}
}

// TestInputRowsExactUnsampled: with every file read whole, the count is
// exact, not merely within 10% — each shape's errors cannot cancel out.
func TestInputRowsExactUnsampled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeCorpora(t, dir)
	cfg, err := pipeline.ParseConfig([]byte(fmt.Sprintf(recordsYAML, dir)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"arr": 40 + 70 + 100, "lines": 300, "pq": 50, "big": 2000}
	// exploded: levels 4 and 5 only, one row per solution.
	var ex float64
	b, _ := os.ReadFile(filepath.Join(dir, "exploded.jsonl"))
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r struct {
			Solutions []string
			Level     int
		}
		json.Unmarshal(l, &r)
		if r.Level >= 4 {
			ex += float64(len(r.Solutions))
		}
	}
	want["exploded"] = ex
	rows, _, basis, err := decl.InputRows(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	for _, v := range want {
		total += v
	}
	if rows != total {
		t.Errorf("inputRows = %v, want %v exactly (no file sampled): %s", rows, total, basis)
	}
}

// TestCountFileSampledSizes: a file a little over the sample, or many
// times it, is extrapolated from the sample within 10% — not undercounted
// as if the sample were the whole file when the decoder's read-ahead
// reached the end.
func TestCountFileSampledSizes(t *testing.T) {
	sampleBytes := int64(64 << 10)
	t.Cleanup(decl.SetSampleBytes(sampleBytes))
	ctx := context.Background()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	src := &decl.Source{Name: "s", Format: "auto"}
	encode := func(shape string, recs []any) []byte {
		if shape == "json" {
			b, _ := json.MarshalIndent(recs, "", "  ")
			return b
		}
		var b []byte
		for _, r := range recs {
			l, _ := json.Marshal(r)
			b = append(append(b, l...), '\n')
		}
		return b
	}
	for _, times := range []float64{1.05, 2, 10} {
		for _, shape := range []string{"json", "jsonl"} {
			var recs []any
			var b []byte
			for float64(len(b)) < times*float64(sampleBytes) {
				for range 20 + len(recs)/8 { // a few encodings, not hundreds
					recs = append(recs, map[string]any{"statement": fmt.Sprintf("q %d %s", len(recs), strings.Repeat("y ", rng.IntN(80))), "solution": "s"})
				}
				b = encode(shape, recs)
			}
			n := len(recs)
			p := filepath.Join(dir, fmt.Sprintf("f%g.%s", times, shape))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			fs, err := layout.Files(ctx, p, store.Options{}, nil)
			if err != nil || len(fs) != 1 {
				t.Fatalf("%s: %v", p, err)
			}
			rows, sampled, err := decl.CountFile(ctx, src, fs[0], int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if r := rows / float64(n); r < 0.9 || r > 1.1 || !sampled {
				t.Errorf("%s (%d KiB, %d records): counted %.0f, sampled %v", filepath.Base(p), len(b)>>10, n, rows, sampled)
			}
		}
	}
}

// TestCountFileUnicodeSpaceLine: a line of Unicode spaces (NBSP) is no
// blank line to JSON — ingest stages it as a reject — so it is counted as
// a row; a line of JSON's white space is not.
func TestCountFileUnicodeSpaceLine(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	body := "{\"statement\": \"q\", \"solution\": \"s\"}\n \t\r\n\u00a0\u00a0\n{\"statement\": \"q2\", \"solution\": \"s\"}\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := layout.Files(ctx, p, store.Options{}, nil)
	if err != nil || len(fs) != 1 {
		t.Fatalf("%s: %v", p, err)
	}
	rows, _, err := decl.CountFile(ctx, &decl.Source{Name: "s", Format: "auto"}, fs[0], int64(len(body)))
	if err != nil || rows != 3 {
		t.Errorf("counted %v rows, %v; want 3 (two objects and the NBSP line's reject)", rows, err)
	}
}

// TestInputRowsFileNamedTwice: a file two of a source's paths name is
// counted once, as ingest reads it once; two sources naming it each count
// it.
func TestInputRowsFileNamedTwice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	body := "{\"statement\": \"q\", \"solution\": \"s\"}\n{\"statement\": \"q2\", \"solution\": \"s\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	y := fmt.Sprintf("run: rc\nroot: %[1]s/data\ningest:\n  sources:\n    - {name: one, paths: [\"%[1]s/a.jsonl\", \"%[1]s/*.jsonl\", \"%[1]s\"]}\n    - {name: two, paths: [\"%[1]s/a.jsonl\"]}\n", dir)
	cfg, err := pipeline.ParseConfig([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	rows, size, basis, err := decl.InputRows(ctx, cfg)
	if err != nil || rows != 4 || size != float64(2*len(body)) {
		t.Errorf("inputRows = %v rows, %v bytes, %v (%s); want 4 rows of %d bytes: the file once per source", rows, size, err, basis, 2*len(body))
	}
}
