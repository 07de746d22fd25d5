package decl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
)

// Ingest stages one row per record it reads — a JSON line, an element of
// a JSON array, a Parquet row — less the rows a where: filter drops, and
// one per element of a list that lists: explodes. Counting lines instead
// (as the forecast once did) puts a pretty-printed JSON array 3–16× over:
// one record spans many lines. The reading here frames records as ingest
// does (jobs/ingest keeps its readers to itself, and its declaration,
// which every binary links, links none of them), but reads only a sample
// of a large file and extrapolates by bytes.

// sampleBytes is how much of each input file the row count reads: a file
// no larger is counted exactly, a larger one extrapolated by its size. A
// variable so that tests extrapolate from small files.
var sampleBytes int64 = 4 << 20

// sampleParquetRows is how many rows of a Parquet file are decoded to
// weigh its rows by a where: filter or an exploded list; the row count
// itself is the footer's, exact.
const sampleParquetRows = 2000

// fileCount is what counting one input file found.
type fileCount struct {
	rows    float64 // staged rows, extrapolated when sampled
	sampled bool    // only a sample was read
	format  string  // jsonl, json or parquet: as ingest reads it
}

// recordWeigher is how many staged rows one record of a source makes: 0
// for a row its where: drops, the number of elements of the list its
// lists: explodes, else 1.
type recordWeigher struct {
	src     *Source
	explode string // the input field (or path) exploded, "" for none
	plain   bool   // no where: and no explode: every record is one row
}

func newWeigher(src *Source) recordWeigher {
	w := recordWeigher{src: src}
	for _, f := range []string{"statement", "solution", "id", "subject", "origin", "source"} {
		if src.Lists[f] == ListExplode {
			w.explode = inputField(src, f)
			break
		}
	}
	w.plain = len(src.Where) == 0 && w.explode == ""
	return w
}

// inputField is the input field fields: (or files:) maps a problem field to.
func inputField(src *Source, field string) string {
	if f := FieldOf(src, field); f != "" {
		return f
	}
	return src.Files[field]
}

// weigh is the rows one decoded record (a JSON object, or a Parquet row as
// a map) makes. A record that does not decode is one row: ingest stages
// it as a reject.
func (w recordWeigher) weigh(rec any) float64 {
	if w.plain {
		return 1
	}
	for _, c := range w.src.Where {
		if !condHolds(c, lookup(rec, c.Field)) {
			return 0
		}
	}
	if w.explode == "" {
		return 1
	}
	v := lookup(rec, w.explode)
	if v.list && len(v.elems) > 0 {
		return float64(len(v.elems))
	}
	return 1
}

// fieldValue is a field's value as text, as ingest compares it in where:
// (a string as it is, a number as written, a list as its elements).
type fieldValue struct {
	s       string
	present bool // false: absent, null, or of no text (an object)
	list    bool
	elems   []string
}

// lookup follows a field path (content.problem, messages[0].content; a
// name without '.' or '[' is a top-level key) through a decoded record.
func lookup(rec any, name string) fieldValue {
	v := rec
	for _, s := range pathSteps(name) {
		switch x := v.(type) {
		case map[string]any:
			if s.key == "" {
				return fieldValue{}
			}
			var ok bool
			if v, ok = x[s.key]; !ok {
				return fieldValue{}
			}
		case []any:
			if s.key != "" || s.index >= len(x) {
				return fieldValue{}
			}
			v = x[s.index]
		default:
			return fieldValue{}
		}
	}
	return textOf(v)
}

func textOf(v any) fieldValue {
	switch x := v.(type) {
	case nil:
		return fieldValue{}
	case string:
		return fieldValue{s: x, present: true}
	case json.Number:
		return fieldValue{s: x.String(), present: true}
	case bool:
		return fieldValue{s: strconv.FormatBool(x), present: true}
	case float64:
		return fieldValue{s: strconv.FormatFloat(x, 'g', -1, 64), present: true}
	case int, int32, int64, uint32, uint64, float32, []byte:
		if b, ok := x.([]byte); ok {
			return fieldValue{s: string(b), present: true}
		}
		return fieldValue{s: fmt.Sprint(x), present: true}
	case []any:
		var elems []string
		for _, e := range x {
			if e == nil {
				continue // a gap in the list, as ingest skips it
			}
			t := textOf(e)
			if !t.present || t.list {
				return fieldValue{} // lists of lists or objects have no text
			}
			elems = append(elems, t.s)
		}
		return fieldValue{s: strings.Join(elems, DefaultJoin), present: true, list: true, elems: elems}
	}
	return fieldValue{}
}

type pathStep struct {
	key   string
	index int
}

// pathSteps splits a field path as ingest does; a name that is no path
// is one key.
func pathSteps(name string) []pathStep {
	if !strings.ContainsAny(name, ".[") {
		return []pathStep{{key: name}}
	}
	var steps []pathStep
	for _, part := range strings.Split(name, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			steps = append(steps, pathStep{key: key})
		}
		if rest == "" {
			continue
		}
		for _, ix := range strings.Split(rest, "[") {
			n, err := strconv.Atoi(strings.TrimSuffix(ix, "]"))
			if !strings.HasSuffix(ix, "]") || err != nil || n < 0 {
				return []pathStep{{key: name}} // no path: one key, as ingest reads it
			}
			steps = append(steps, pathStep{index: n})
		}
	}
	return steps
}

// condHolds is ingest's where: test of one condition on one value.
func condHolds(c Cond, v fieldValue) bool {
	eq := func(want any) bool {
		if !v.present {
			return false
		}
		if _, isList := want.([]any); isList {
			return v.list && len(v.elems) == 0
		}
		return v.s == MatchText(want)
	}
	anyOf := func(ws []any) bool {
		for _, w := range ws {
			if eq(w) {
				return true
			}
		}
		return false
	}
	switch {
	case c.Is != nil:
		return eq(c.Is)
	case c.Not != nil:
		return !eq(c.Not)
	case c.In != nil:
		return anyOf(c.In)
	case c.NotIn != nil:
		return !anyOf(c.NotIn)
	}
	return true
}

// formatOf is the format ingest reads a file in: the source's, or told by
// the name (Parquet) and, for JSON, by the content (an array or lines).
func formatOf(src *Source, key string) string {
	if src.Format != "auto" {
		return src.Format
	}
	base := strings.ToLower(path.Base(key))
	base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".zst"), ".zstd")
	if strings.HasSuffix(base, ".parquet") {
		return "parquet"
	}
	return "jsonl"
}

// countingReader counts the bytes read through it: how much of a
// compressed file a sample took.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// countFile counts the rows ingest stages from one input file of src.
func countFile(ctx context.Context, src *Source, f layout.File, size int64) (fileCount, error) {
	rc, err := f.Store.Open(ctx, f.Key)
	if err != nil {
		return fileCount{}, fmt.Errorf("open %s: %w", f.URI, err)
	}
	defer rc.Close()
	w := newWeigher(src)
	format := formatOf(src, f.Key)
	if format == "parquet" {
		return countParquet(ctx, w, f, rc)
	}
	raw := &countingReader{r: io.NewSectionReader(rc, 0, rc.Size())}
	var r io.Reader = raw
	lower := strings.ToLower(f.Key)
	compressed := true
	switch {
	case strings.HasSuffix(lower, ".gz"):
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return fileCount{}, fmt.Errorf("%s: not gzip: %w", f.URI, err)
		}
		defer zr.Close()
		r = zr
	case strings.HasSuffix(lower, ".zst"), strings.HasSuffix(lower, ".zstd"):
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			return fileCount{}, fmt.Errorf("%s: not zstd: %w", f.URI, err)
		}
		defer zr.Close()
		r = zr
	default:
		compressed = false
	}
	br := bufio.NewReaderSize(r, 64<<10)
	// consumed is the file's bytes behind the records counted so far: the
	// stream's offset, or for a compressed file the compressed bytes read
	// (ahead by at most the decoder's buffers).
	var off int64
	consumed := func() int64 {
		if compressed {
			return raw.n
		}
		return off
	}
	var n float64
	stop := func() bool { return consumed() >= sampleBytes }
	more := false // the sample stopped before the file's last record
	head, _ := br.Peek(64 << 10)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(head) > 0 && head[0] == '[' && src.Format != "jsonl" {
		format = "json"
		dec := json.NewDecoder(br)
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return fileCount{}, fmt.Errorf("%s: JSON array: %w", f.URI, err)
		}
		for dec.More() {
			if int64(n)%1024 == 0 && ctx.Err() != nil {
				return fileCount{}, ctx.Err()
			}
			var rec any
			if err := dec.Decode(&rec); err != nil {
				// A damaged array stops ingest there too; what was read
				// is the count.
				break
			}
			n += w.weigh(rec)
			off = dec.InputOffset()
			if stop() {
				more = dec.More()
				break
			}
		}
	} else {
		for lines := 0; ; lines++ {
			if lines%1024 == 0 && ctx.Err() != nil {
				return fileCount{}, ctx.Err()
			}
			line, err := br.ReadBytes('\n')
			off += int64(len(line))
			// JSON's white space only, as ingest trims a line: a line of
			// Unicode spaces is a staged reject, not a blank line.
			if t := bytes.Trim(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")), " \t\n\r"); len(t) > 0 {
				if w.plain {
					n++
				} else {
					var rec any
					dec := json.NewDecoder(bytes.NewReader(t))
					dec.UseNumber()
					if dec.Decode(&rec) != nil {
						n++ // a reject, staged as one
					} else {
						n += w.weigh(rec)
					}
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fileCount{}, fmt.Errorf("read %s: %w", f.URI, err)
			}
			if stop() {
				_, err := br.Peek(1)
				more = err == nil
				break
			}
		}
	}
	fc := fileCount{rows: n, format: format}
	if c := consumed(); more && c > 0 && c < size {
		fc.sampled = true
		fc.rows = n * float64(size) / float64(c)
	}
	return fc, nil
}

// countParquet counts a Parquet file's rows from its footer, weighed by
// a decoded sample of them when a where: or an exploded list applies.
func countParquet(ctx context.Context, w recordWeigher, f layout.File, rc store.Object) (fileCount, error) {
	pf, err := dataset.OpenFile(rc, f.URI) // as ingest opens it: a corrupt footer is an error, not a panic
	if err != nil {
		return fileCount{}, err
	}
	total := float64(pf.NumRows())
	fc := fileCount{rows: total, format: "parquet"}
	if w.plain || total == 0 {
		return fc, nil
	}
	pr := parquet.NewReader(pf)
	defer pr.Close()
	var n, weight float64
	for n < sampleParquetRows {
		if err := ctx.Err(); err != nil {
			return fileCount{}, err
		}
		rec := map[string]any{}
		if err := pr.Read(&rec); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fileCount{}, fmt.Errorf("%s: read row %d: %w", f.URI, int(n)+1, err)
		}
		n++
		weight += w.weigh(parquetLists(rec))
	}
	if n > 0 {
		fc.rows = total * weight / n
		fc.sampled = n < total
	}
	return fc, nil
}

// parquetLists turns the LIST groups of a decoded Parquet row
// ({list: [{element: x}, …]}) into plain lists, as ingest reads them.
func parquetLists(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if l, ok := x["list"].([]any); ok && len(x) == 1 {
			out := make([]any, 0, len(l))
			for _, e := range l {
				if m, ok := e.(map[string]any); ok && len(m) == 1 {
					for _, ev := range m {
						e = ev
					}
				}
				out = append(out, parquetLists(e))
			}
			return out
		}
		for k, e := range x {
			x[k] = parquetLists(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = parquetLists(e)
		}
	}
	return v
}
