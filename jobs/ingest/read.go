package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// input is one file of a source.
type input struct {
	src    *Source
	name   string      // as shown in rejects and errors: relative to the config when under it
	uri    string      // full location
	file   layout.File // its store and key
	key    string      // its base name, for its format and compression
	format string      // jsonl or parquet
}

// value is one field of one row as read from any format.
type value struct {
	s       string
	present bool   // false: absent or null
	badType string // non-empty: the field is of this non-string type
	badUTF8 bool
}

// record is one input row: its 1-based line (JSONL) or row (Parquet), and
// either its mapped fields or why it could not be parsed at all.
type record struct {
	line   int64
	vals   map[string]value
	reject *dataset.Reject
}

// expand lists a source's files: globs resolved against the config's
// directory, matches sorted, files in the order of the patterns.
func expand(ctx context.Context, cfg *config.Config, src *Source) ([]input, error) {
	var out []input
	for _, pat := range src.Paths {
		files, err := layout.Files(ctx, cfg.Resolve(pat), cfg.Storage, nil)
		if errors.Is(err, store.ErrNotExist) {
			return nil, stage.BadInput(fmt.Errorf("source %s: %q matched no files", src.Name, pat))
		}
		if err != nil {
			return nil, stage.BadInput(fmt.Errorf("source %s: %q: %w", src.Name, pat, err))
		}
		for _, f := range files {
			u := f.URI
			format, err := formatOf(src, u)
			if err != nil {
				return nil, err
			}
			// A folder's files come back as file:// URIs: name them by
			// their path, as a glob's matches are.
			name := u
			if local, isFile := strings.CutPrefix(u, "file://"); isFile || !strings.Contains(u, "://") {
				if rel, err := filepath.Rel(cfg.Dir(), filepath.FromSlash(local)); err == nil && !strings.HasPrefix(rel, "..") {
					name = filepath.ToSlash(rel)
				}
			}
			out = append(out, input{src: src, name: name, uri: u, file: f, key: path.Base(f.Key), format: format})
		}
	}
	return out, nil
}

func formatOf(src *Source, uri string) (string, error) {
	if src.Format != "auto" {
		return src.Format, nil
	}
	base := strings.ToLower(path.Base(uri))
	base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".zst"), ".zstd")
	switch {
	case strings.HasSuffix(base, ".parquet"):
		return "parquet", nil
	case strings.HasSuffix(base, ".jsonl"), strings.HasSuffix(base, ".ndjson"), strings.HasSuffix(base, ".json"):
		return "jsonl", nil
	}
	return "", stage.BadInput(fmt.Errorf("source %s: cannot tell the format of %s from its name; set format: jsonl or parquet", src.Name, uri))
}

// fieldOrder is the order fields are checked in.
var fieldOrder = []string{"statement", "solution", "id", "subject", "origin", "source"}

// fieldNames are the input fields a source maps, by problem field.
func fieldNames(src *Source) map[string]string {
	m := map[string]string{}
	for k, v := range map[string]string{
		"id": src.Fields.ID, "statement": src.Fields.Statement, "solution": src.Fields.Solution,
		"subject": src.Fields.Subject, "origin": src.Fields.Origin, "source": src.Fields.Source,
	} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// countingReader reports bytes read, for progress over files of any size.
type countingReader struct {
	r    io.Reader
	prog *stage.Progress
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.prog.Add(int64(n))
	return n, err
}

// scan reads every record of in, in order, reports the bytes read to prog,
// and returns the SHA-256 of the file's bytes as stored (compressed files
// hash compressed).
func scan(ctx context.Context, in input, prog *stage.Progress, fn func(record) error) (sum string, size int64, err error) {
	obj, err := in.file.Store.Open(ctx, in.file.Key)
	if err != nil {
		if errors.Is(err, store.ErrNotExist) {
			return "", 0, stage.BadInput(fmt.Errorf("open %s: %w", in.uri, err))
		}
		return "", 0, fmt.Errorf("open %s: %w", in.uri, err)
	}
	defer obj.Close()
	if obj.Size() == 0 {
		return "", 0, stage.BadInput(fmt.Errorf("%s: empty file (0 bytes)", in.name))
	}
	h := sha256.New()
	var rows int64
	count := func(r record) error { rows++; return fn(r) }
	switch in.format {
	case "parquet":
		if _, err := io.Copy(h, io.NewSectionReader(obj, 0, obj.Size())); err != nil {
			return "", 0, fmt.Errorf("read %s: %w", in.uri, err)
		}
		err = scanParquet(ctx, in, obj, count)
		prog.Add(obj.Size())
	default:
		raw := countingReader{r: io.NewSectionReader(obj, 0, obj.Size()), prog: prog}
		err = scanJSONL(ctx, in, io.TeeReader(raw, h), count)
	}
	if err != nil {
		return "", 0, err
	}
	if rows == 0 {
		return "", 0, stage.BadInput(fmt.Errorf("%s: no rows", in.name))
	}
	return hex.EncodeToString(h.Sum(nil)), obj.Size(), nil
}

func decompress(in input, r io.Reader) (io.Reader, func(), error) {
	lower := strings.ToLower(in.key)
	switch {
	case strings.HasSuffix(lower, ".gz"):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, stage.BadInput(fmt.Errorf("%s: not gzip: %w", in.name, err))
		}
		return zr, func() { zr.Close() }, nil
	case strings.HasSuffix(lower, ".zst"), strings.HasSuffix(lower, ".zstd"):
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, stage.BadInput(fmt.Errorf("%s: not zstd: %w", in.name, err))
		}
		return zr, zr.Close, nil
	}
	return r, func() {}, nil
}

func scanJSONL(ctx context.Context, in input, raw io.Reader, fn func(record) error) error {
	r, closeFn, err := decompress(in, raw)
	if err != nil {
		return err
	}
	defer closeFn()
	br := bufio.NewReaderSize(r, 1<<20)
	fields := fieldNames(in.src)
	var line int64
	for {
		if line%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if ferr := fn(parseJSONLine(in, line, t, fields)); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return stage.BadInput(fmt.Errorf("%s: read after line %d: %w (truncated or corrupt file?)", in.name, line, err))
		}
	}
}

func parseJSONLine(in input, line int64, b []byte, fields map[string]string) record {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		detail := err.Error()
		if !utf8.Valid(b) {
			return record{line: line, reject: &dataset.Reject{Reason: dataset.ReasonInvalidUTF8, Detail: "line is not valid UTF-8"}}
		}
		return record{line: line, reject: &dataset.Reject{Reason: dataset.ReasonMalformed, Detail: detail}}
	}
	vals := make(map[string]value, len(fields))
	for field, name := range fields {
		raw, ok := obj[name]
		if !ok || string(raw) == "null" {
			vals[field] = value{}
			continue
		}
		if !utf8.Valid(raw) {
			// encoding/json would silently turn bad bytes into U+FFFD.
			vals[field] = value{present: true, badUTF8: true}
			continue
		}
		switch raw[0] {
		case '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				vals[field] = value{present: true, badType: "string: " + err.Error()}
				continue
			}
			vals[field] = value{s: s, present: true, badUTF8: strings.ContainsRune(s, utf8.RuneError) && bytes.Contains(raw, []byte(`\ud`))}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			vals[field] = value{s: string(raw), present: true, badType: numberOK(field)}
		case '{':
			vals[field] = value{present: true, badType: "object"}
		case '[':
			vals[field] = value{present: true, badType: "array"}
		default:
			vals[field] = value{present: true, badType: "boolean"}
		}
	}
	return record{line: line, vals: vals}
}

// numberOK lets ids be numbers (many datasets number their rows); other
// fields must be strings.
func numberOK(field string) string {
	if field == "id" {
		return ""
	}
	return "number"
}

func scanParquet(ctx context.Context, in input, obj store.Object, fn func(record) error) error {
	f, err := dataset.OpenFile(obj, in.uri)
	if err != nil {
		return stage.BadInput(err)
	}
	fields := fieldNames(in.src)
	cols := map[string]int{}           // problem field → column index
	for _, field := range fieldOrder { // fixed order: the same file always gives the same message
		name, ok := fields[field]
		if !ok {
			continue
		}
		leaf, ok := f.Schema().Lookup(strings.Split(name, ".")...)
		if !ok {
			if field == "statement" || field == "solution" {
				return stage.BadInput(fmt.Errorf("%s: column %q (field %s) missing; columns: %s", in.name, name, field, columnList(f.Schema())))
			}
			continue // optional fields may be absent from a file
		}
		if leaf.MaxRepetitionLevel > 0 {
			return stage.BadInput(fmt.Errorf("%s: column %q (field %s) is a list, want a string", in.name, name, field))
		}
		switch leaf.Node.Type().Kind() {
		case parquet.ByteArray, parquet.Int32, parquet.Int64:
		default:
			return stage.BadInput(fmt.Errorf("%s: column %q (field %s) has type %s, want a string", in.name, name, field, leaf.Node.Type()))
		}
		cols[field] = leaf.ColumnIndex
	}
	var line int64
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return err
			}
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				line++
				vals := make(map[string]value, len(fields))
				for field := range fields {
					vals[field] = value{}
				}
				for _, v := range row {
					for field, c := range cols {
						if v.Column() != c || v.IsNull() {
							continue
						}
						switch v.Kind() {
						case parquet.ByteArray:
							s := string(v.ByteArray())
							vals[field] = value{s: s, present: true, badUTF8: !utf8.ValidString(s)}
						case parquet.Int32, parquet.Int64:
							vals[field] = value{s: strconv.FormatInt(v.Int64(), 10), present: true, badType: numberOK(field)}
						}
					}
				}
				if ferr := fn(record{line: line, vals: vals}); ferr != nil {
					rows.Close()
					return ferr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return stage.BadInput(fmt.Errorf("%s: read row %d: %w", in.name, line+1, err))
			}
		}
		rows.Close()
	}
	return nil
}

func columnList(s *parquet.Schema) string {
	var names []string
	for _, c := range s.Columns() {
		names = append(names, strings.Join(c, "."))
	}
	return strings.Join(names, ", ")
}

// hashID is the id of a row without one: the first 16 hex digits of
// SHA-256(source ‖ 0 ‖ statement ‖ 0 ‖ solution) (SPEC §3).
func hashID(h hash.Hash, source, statement, solution string) string {
	h.Reset()
	io.WriteString(h, source)
	h.Write([]byte{0})
	io.WriteString(h, statement)
	h.Write([]byte{0})
	io.WriteString(h, solution)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
