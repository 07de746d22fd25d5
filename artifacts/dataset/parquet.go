package dataset

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
)

// Dataset names one dataset and the order of its rows.
type Dataset[T any] struct {
	Name string
	// Version is the dataset's format version: it changes when a column
	// is added, removed or changes meaning, and readers refuse parts of a
	// version they do not know.
	Version int
	// Measurement marks a dataset of wall times, which no rerun
	// reproduces (timings), as opposed to results.
	Measurement bool
	// Staging marks a step's intermediate dataset, read once by the step
	// that follows (ingest's map → reduce): written with fast Snappy
	// (writerOptions), since compressing it hard costs the writer more CPU
	// time than it saves anyone. Its bytes are as reproducible as any
	// dataset's.
	Staging bool
	// Text marks a dataset whose bytes are nearly all long texts
	// (problems): written with zstd's default level (writerOptions),
	// which costs its writer 40% less CPU in zstd than the better level
	// for 12% more bytes.
	Text bool
	// Key names the columns rows are sorted by and identified by.
	Key string
	// Doc says what one row is, for FORMAT.md.
	Doc     string
	Compare func(a, b *T) int
}

// Info describes a dataset without its row type.
type Info struct {
	Name, Key, Doc string
	Version        int
	Measurement    bool
	// Schema is the Parquet schema of its rows.
	Schema *parquet.Schema
}

// Info describes d.
func (d Dataset[T]) Info() Info {
	return Info{Name: d.Name, Key: d.Key, Doc: d.Doc, Version: d.Version, Measurement: d.Measurement, Schema: parquet.SchemaOf(new(T))}
}

// rowGroupRows bounds a row group so readers can stream large parts.
const rowGroupRows = 50_000

// RowGroupRows is the most rows a row group of a part holds: a writer cuts
// one there unless told earlier (Writer.EndRowGroup).
const RowGroupRows = rowGroupRows

// writerOptions are fixed so that equal rows always give equal bytes: the
// codec and its level, the page and row-group sizes and a created_by without
// a version (a version string would change every file at every release).
//
// zstd's better-compression level with 1 MiB pages: on `pairs`, whose
// document ids are random hex, it stores 7.9 bytes a pair against 12.8 with
// the default level and pages (make bench, 20K generated documents), which
// is what keeps 283K documents' pairs under 5 GB; writing was no slower.
//
// Text datasets (problems) are written at zstd's default level (level 3,
// DuckDB's too) instead: the bytes are nearly all prose and LaTeX, which
// the better level compresses only a little further at nearly twice the
// CPU. On `saber synth`'s 283K problems (133 MB of text), an ingest map
// shard took 1.41-1.51 CPU-s against 1.59-1.62, for 20.8 MB of problems
// against 18.6 (DuckDB's: 18.4 MB). Larger pages would win the size back
// (8 MiB: 18.4 MB) but cost more than they save: parquet-go holds each
// column's page whole, and the shard's memory grew by 100 MB, its page
// faults with it (1.70-1.89 CPU-s).
//
// Staging parts (ingest's map output, which only its reduce reads) are
// written with Snappy instead: zstd even at its fastest level was a fifth
// of an ingest map shard's CPU. s2's fast Snappy encoder (fastSnappy) takes
// a quarter of that for parts 1.6x as large (BenchmarkIngestJSONL: 2.7
// against 1.7 MB staged); parquet-go's own Snappy codec, s2's "better"
// mode, took twice its CPU for 2.3 MB. zstd is parquet-go's codec with
// its encoders kept (keptZstd).
func writerOptions(f partFormat) []parquet.WriterOption {
	var codec compress.Codec = betterZstd
	switch f {
	case formatStaging:
		codec = fastSnappy{}
	case formatText:
		codec = defaultZstd
	}
	return []parquet.WriterOption{
		parquet.Compression(codec),
		parquet.PageBufferSize(1 << 20),
		parquet.CreatedBy("saber", "", ""),
		parquet.MaxRowsPerRowGroup(rowGroupRows),
	}
}

// partFormat picks a dataset's writerOptions.
type partFormat uint8

const (
	formatCompact partFormat = iota // every dataset not marked otherwise
	formatStaging                   // Dataset.Staging
	formatText                      // Dataset.Text
)

func (d Dataset[T]) format() partFormat {
	switch {
	case d.Staging:
		return formatStaging
	case d.Text:
		return formatText
	}
	return formatCompact
}

// Write sorts rows by the dataset's key and writes them to key with Replace:
// the object appears whole or not at all. It returns the object's hash for
// the shard manifest.
func (d Dataset[T]) Write(ctx context.Context, st store.Store, key string, rows []T) (layout.Object, error) {
	sort.SliceStable(rows, func(i, j int) bool { return d.Compare(&rows[i], &rows[j]) < 0 })
	return writeRows(ctx, st, key, rows, d.format())
}

// WriteRows writes rows in the order given.
func WriteRows[T any](ctx context.Context, st store.Store, key string, rows []T) (layout.Object, error) {
	return writeRows(ctx, st, key, rows, formatCompact)
}

func writeRows[T any](ctx context.Context, st store.Store, key string, rows []T, f partFormat) (layout.Object, error) {
	w, err := newWriter[T](ctx, st, key, f)
	if err != nil {
		return layout.Object{}, err
	}
	defer w.Abort()
	// All the rows are here: hand them over a row group at a time, as
	// Write's buffer would, without copying them into it first (ingest's
	// staging rows are a few hundred bytes each, and the copy was a tenth
	// of a map shard's allocations).
	for start := 0; start < len(rows); start += rowGroupRows {
		if err := w.put(rows[start:min(start+rowGroupRows, len(rows))]); err != nil {
			return layout.Object{}, err
		}
	}
	return w.Close()
}

// Writer streams rows, in the order given, into one object written with
// Replace, for a writer that cannot hold all its rows at once (ingest's
// reduce merges its map shards' rows in key order). Its bytes are those
// WriteRows gives for the same rows.
type Writer[T any] struct {
	ctx  context.Context
	uri  string
	key  string
	w    store.Writer
	h    hash.Hash
	pw   *parquet.GenericWriter[T]
	rows int64
	// buf holds rows not yet handed to pw, fewer than WriteChunk; group
	// counts the rows pw holds of the row group being written.
	buf   []T
	group int
}

// NewWriter starts key; Close commits it, Abort (after Close, a no-op)
// drops it.
func NewWriter[T any](ctx context.Context, st store.Store, key string) (*Writer[T], error) {
	return newWriter[T](ctx, st, key, formatCompact)
}

// NewWriter starts key as a part of d, written with d's options (a
// staging dataset's fast codec, a text dataset's zstd level): its bytes
// are those d.Write gives for the same rows in the same order. A step
// whose rows come in key order writes them as they come instead of
// holding the whole part's rows for Write.
func (d Dataset[T]) NewWriter(ctx context.Context, st store.Store, key string) (*Writer[T], error) {
	return newWriter[T](ctx, st, key, d.format())
}

func newWriter[T any](ctx context.Context, st store.Store, key string, f partFormat) (*Writer[T], error) {
	w, err := st.Create(ctx, key, store.Replace)
	if err != nil {
		return nil, err // the store's errors name the object
	}
	h := sha256.New()
	return &Writer[T]{ctx: ctx, uri: st.URI(key), key: key, w: w, h: h, pw: parquet.NewGenericWriter[T](io.MultiWriter(w, h), writerOptions(f)...)}, nil
}

// WriteChunk is how many rows Write hands to the Parquet writer at a
// time. parquet-go writes a call's rows 64 at a time and checks its page
// size after each 64, so calls of whole multiples of 64 from a row
// group's start, and a last one of the group's rest, cut pages where one
// call with the whole group would: the bytes do not depend on the chunk
// (TestWriteChunks). A Writer so holds about a thousand rows, not a row
// group: for ingest's map shard, whose texts then stay in cache
// (Pending).
const WriteChunk = 16 * 64

// Write appends rows, handing them to the Parquet writer WriteChunk at a
// time within each row group, so that the bytes do not depend on how the
// rows were split across calls. Whole chunks given at once go over as
// they are, without a copy.
func (w *Writer[T]) Write(rows []T) error {
	for len(rows) > 0 {
		room, err := w.room()
		if err != nil {
			return err
		}
		if len(w.buf) == 0 && len(rows) >= min(room, WriteChunk) {
			n := len(rows) - len(rows)%WriteChunk
			if len(rows) >= room {
				n = room
			}
			if err := w.put(rows[:n]); err != nil {
				return err
			}
			rows = rows[n:]
			continue
		}
		n := min(len(rows), WriteChunk-len(w.buf), room-len(w.buf))
		w.buf = append(w.buf, rows[:n]...)
		rows = rows[n:]
		if len(w.buf) == WriteChunk || len(w.buf) == room {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteRow is Write of one row, for a writer whose rows come one at a
// time: a slice made to pass one row to Write escaped to the heap, an
// allocation per row.
func (w *Writer[T]) WriteRow(r T) error {
	room, err := w.room()
	if err != nil {
		return err
	}
	w.buf = append(w.buf, r)
	if len(w.buf) == WriteChunk || len(w.buf) == room {
		return w.flush()
	}
	return nil
}

// room is how many rows the row group being written can still take. put
// ends a group at rowGroupRows and Write and WriteRow flush buf before it
// reaches room, so a count past that is a bug of the Writer's: room says
// so rather than let Write hand over no rows and loop forever, or
// WriteRow cut groups at the wrong rows.
func (w *Writer[T]) room() (int, error) {
	room := rowGroupRows - w.group
	if room <= 0 || len(w.buf) >= room {
		return 0, fmt.Errorf("write %s: %d rows in the row group and %d held, past its %d: a bug in dataset.Writer", w.uri, w.group, len(w.buf), rowGroupRows)
	}
	return room, nil
}

// Pending is how many rows Write holds that the Parquet writer has not
// yet copied: until it is 0, the bytes their strings point to must stay
// as they are.
func (w *Writer[T]) Pending() int { return len(w.buf) }

func (w *Writer[T]) flush() error {
	if err := w.put(w.buf); err != nil {
		return err
	}
	clear(w.buf)
	w.buf = w.buf[:0]
	return nil
}

// put hands rows to the Parquet writer, which copies their values: whole
// chunks (Write), or a row group's rest, or a whole part's row groups
// (writeRows).
func (w *Writer[T]) put(rows []T) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if _, err := w.pw.Write(rows); err != nil {
		return fmt.Errorf("write %s: %w", w.uri, err)
	}
	w.rows += int64(len(rows))
	// parquet-go ends a row group at RowGroupRows (MaxRowsPerRowGroup)
	// when the next rows come.
	if w.group += len(rows); w.group == rowGroupRows {
		w.group = 0
	}
	return nil
}

// EndRowGroup writes the rows given since the last row group ended as a
// row group of their own, fewer than a full one, so that the next row
// starts a new one; with none, it does nothing. A writer that cuts row
// groups where its rows say (ingest's reduce, see CopyRowGroup) calls it
// at each cut: the bytes then depend on the cuts as well as the rows.
func (w *Writer[T]) EndRowGroup() error {
	if len(w.buf) > 0 {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if err := w.pw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", w.uri, err)
	}
	w.group = 0
	return nil
}

// CopyRowGroup ends the current row group and appends rg, a row group of
// a part of T written with the same options (a dataset part, not a
// staging one), as the next. parquet-go splices its compressed pages,
// statistics and page index in verbatim, without decoding a value, when
// nothing in the writer's options asks otherwise, and re-encodes it
// when something does: either way the bytes are those of writing its
// rows and calling EndRowGroup (TestCopyRowGroup).
func (w *Writer[T]) CopyRowGroup(rg parquet.RowGroup) error {
	if err := w.EndRowGroup(); err != nil {
		return err
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	n, err := w.pw.WriteRowGroup(rg)
	if err != nil {
		return fmt.Errorf("write %s: %w", w.uri, err)
	}
	w.rows += n
	return nil
}

// Close writes the last rows and commits the object.
func (w *Writer[T]) Close() (layout.Object, error) {
	if len(w.buf) > 0 {
		if err := w.flush(); err != nil {
			return layout.Object{}, err
		}
	}
	if err := w.pw.Close(); err != nil {
		return layout.Object{}, fmt.Errorf("write %s: %w", w.uri, err)
	}
	info, err := w.w.Commit()
	if err != nil {
		return layout.Object{}, fmt.Errorf("commit %s: %w", w.uri, err)
	}
	return layout.Object{URI: w.uri, Key: w.key, SHA256: hexSum(w.h), Size: info.Size, Rows: w.rows}, nil
}

// Abort drops an object not yet committed.
func (w *Writer[T]) Abort() { w.w.Abort() }

// Encode returns rows as the bytes of a Parquet file, in the order given,
// with the options of a dataset part not marked Staging or Text: equal rows
// give equal bytes.
func Encode[T any](rows []T) ([]byte, error) {
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[T](&buf, writerOptions(formatCompact)...)
	for start := 0; start < len(rows); start += rowGroupRows {
		end := min(start+rowGroupRows, len(rows))
		if _, err := pw.Write(rows[start:end]); err != nil {
			return nil, err
		}
	}
	if err := pw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Digest is the hex SHA-256 of Encode(rows), streamed: the hash of the
// rows as one dataset part, whatever shard count first wrote them.
func Digest[T any](rows []T) (string, error) {
	h := sha256.New()
	pw := parquet.NewGenericWriter[T](h, writerOptions(formatCompact)...)
	for start := 0; start < len(rows); start += rowGroupRows {
		if _, err := pw.Write(rows[start:min(start+rowGroupRows, len(rows))]); err != nil {
			return "", err
		}
	}
	if err := pw.Close(); err != nil {
		return "", err
	}
	return hexSum(h), nil
}

// Decode reads every row of a Parquet file's bytes into T, with the
// schema checks of Read; name is the file's name in messages.
func Decode[T any](data []byte, name string) ([]T, error) {
	var out []T
	err := scanObject(context.Background(), memObject{bytes.NewReader(data)}, name, func(rows []T) error {
		out = append(out, rows...)
		return nil
	})
	return out, err
}

// FileRows returns the number of rows of a Parquet file's bytes, from its footer.
func FileRows(data []byte, name string) (int64, error) {
	f, err := openParquet(memObject{bytes.NewReader(data)}, name)
	if err != nil {
		return 0, err
	}
	return f.NumRows(), nil
}

// FileSchema returns the schema of a Parquet file's bytes.
func FileSchema(data []byte, name string) (*parquet.Schema, error) {
	f, err := openParquet(memObject{bytes.NewReader(data)}, name)
	if err != nil {
		return nil, err
	}
	return f.Schema(), nil
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// SchemaError says an object's schema does not hold a column the reader needs.
type SchemaError struct {
	URI, Column, Msg string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("read %s: column %q: %s", e.URI, e.Column, e.Msg)
}

// Read reads every row of key into T. T may be a projection: a struct with
// some of the dataset's columns. A missing column or a column of another type
// fails with the object's URI and the column's name.
func Read[T any](ctx context.Context, st store.Store, key string) ([]T, error) {
	var out []T
	err := Scan(ctx, st, key, func(rows []T) error {
		out = append(out, rows...)
		return nil
	})
	return out, err
}

// Scan streams the rows of key into fn in batches; fn must not keep the slice.
func Scan[T any](ctx context.Context, st store.Store, key string, fn func([]T) error) error {
	uri := st.URI(key)
	obj, err := st.Open(ctx, key)
	if err != nil {
		return fmt.Errorf("open %s: %w", uri, err)
	}
	defer obj.Close()
	return scanObject(ctx, obj, uri, fn)
}

// wholeLimit is the largest part ScanVerified reads into memory at once;
// larger ones are read twice, once to hash and once to parse.
const wholeLimit = 128 << 20

// ScanVerified is Scan of a part whose SHA-256 its writer recorded: it
// hashes the bytes as it reads them and, when want is set and they differ,
// fails with a *ChangedError before handing fn a single row, so a part
// changed since it was written is never consumed. It returns the hash.
// How the bytes are read is verified's.
func ScanVerified[T any](ctx context.Context, st store.Store, key, want string, fn func([]T) error) (string, error) {
	uri := st.URI(key)
	obj, err := st.Open(ctx, key)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", uri, err)
	}
	defer obj.Close()
	src, got, err := verified(obj, uri, want)
	if err != nil {
		return got, err
	}
	return got, scanObject(ctx, src, uri, fn)
}

// verified hashes obj and returns what to parse it from, its hash, and
// a *ChangedError when want is set and the hash differs.
//
// A part in a store where each read is a request (S3) is read once, into
// memory, when it is at most wholeLimit, and parsed from there; a larger
// one is hashed in a first sequential pass and parsed from obj. A local
// file is always hashed in a sequential pass through one reused buffer
// and parsed from the file: a second read from the page cache costs less
// than the fresh memory a whole copy takes. Reading a 10 MB part whole
// into fresh memory took 31-36 ms and hashing it then 21 ms, against 2.4
// and 6 ms in memory used before; ingest's reduce, which opens 24 MB of
// staged parts, took 424 ms of CPU against 517 (median of eight). Either
// way the hash is of the bytes parsed unless the object is rewritten in
// place while it is read, which no writer of ours does (local writes
// replace the file by a rename, and an S3 object read in ranges is
// pinned to its ETag).
func verified(obj store.Object, uri, want string) (store.Object, string, error) {
	h := sha256.New()
	src := obj
	if size := obj.Size(); size <= wholeLimit && !store.Local(obj) {
		buf := make([]byte, size)
		if n, err := obj.ReadAt(buf, 0); n != len(buf) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, "", fmt.Errorf("read %s: %w", uri, err)
		}
		h.Write(buf)
		src = memObject{bytes.NewReader(buf)}
	} else {
		bp := hashBuffers.Get().(*[]byte)
		_, err := io.CopyBuffer(h, io.NewSectionReader(obj, 0, size), *bp)
		hashBuffers.Put(bp)
		if err != nil {
			return nil, "", fmt.Errorf("read %s: %w", uri, err)
		}
	}
	got := hexSum(h)
	if want != "" && got != want {
		return nil, got, &ChangedError{URI: uri, Want: want, Got: got}
	}
	return src, got, nil
}

// hashBuffers are verified's buffers for a sequential pass.
var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// Part is a part opened whole, for a reader that works on its row groups
// rather than its rows (CopyRowGroup).
type Part[T any] struct {
	*parquet.File
	obj store.Object
}

// Close releases the part.
func (p *Part[T]) Close() error { return p.obj.Close() }

// OpenVerified opens a part whose SHA-256 its writer recorded, as
// ScanVerified reads one: hashed first, a *ChangedError when it differs
// from want (set), the schema checked against T. It returns the hash.
func OpenVerified[T any](ctx context.Context, st store.Store, key, want string) (*Part[T], string, error) {
	uri := st.URI(key)
	obj, err := st.Open(ctx, key)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", uri, err)
	}
	src, got, err := verified(obj, uri, want)
	if err != nil {
		obj.Close()
		return nil, got, err
	}
	f, err := openParquet(src, uri)
	if err == nil {
		err = checkSchema[T](f.Schema(), uri)
	}
	if err != nil {
		obj.Close()
		return nil, got, err
	}
	return &Part[T]{File: f, obj: obj}, got, nil
}

// ChangedError says a part's bytes no longer hash to what its writer
// recorded: it was changed or damaged after it was written.
type ChangedError struct {
	URI, Want, Got string
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("read %s: its SHA-256 is %s, but the manifest of the shard that wrote it says %s: the object changed after it was written", e.URI, e.Got, e.Want)
}

// memObject serves a part read whole.
type memObject struct{ *bytes.Reader }

func (memObject) Close() error { return nil }

func scanObject[T any](ctx context.Context, obj store.Object, uri string, fn func([]T) error) error {
	f, err := openParquet(obj, uri)
	if err != nil {
		return err
	}
	if err := checkSchema[T](f.Schema(), uri); err != nil {
		return err
	}
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	buf := make([]T, 1024)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		if n > 0 {
			if ferr := fn(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", uri, err)
		}
	}
}

// NotParquetError says an object is not a Parquet file.
type NotParquetError struct {
	URI string
	Err error
}

func (e *NotParquetError) Error() string {
	return fmt.Sprintf("read %s: not a Parquet file: %v", e.URI, e.Err)
}

func (e *NotParquetError) Unwrap() error { return e.Err }

// OpenFile opens a Parquet object for callers that map columns themselves
// (ingest reads users' files). The object must stay open while f is used.
func OpenFile(obj store.Object, uri string) (*parquet.File, error) { return openParquet(obj, uri) }

func openParquet(obj store.Object, uri string) (f *parquet.File, err error) {
	// parquet-go can panic on some corrupt footers; a bad file is bad input,
	// never a crash.
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &NotParquetError{URI: uri, Err: fmt.Errorf("%v", r)}
		}
	}()
	if obj.Size() < 12 {
		return nil, &NotParquetError{URI: uri, Err: fmt.Errorf("%d bytes is too short", obj.Size())}
	}
	f, err = parquet.OpenFile(obj, obj.Size(), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &NotParquetError{URI: uri, Err: err}
	}
	return f, nil
}

// checkSchema compares T's columns with the file's.
func checkSchema[T any](have *parquet.Schema, uri string) error {
	want := parquet.SchemaOf(new(T))
	for _, path := range want.Columns() {
		name := strings.Join(path, ".")
		wl, _ := want.Lookup(path...)
		hl, ok := have.Lookup(path...)
		if !ok {
			return &SchemaError{URI: uri, Column: name, Msg: "missing"}
		}
		if w, h := typeName(wl.Node), typeName(hl.Node); w != h {
			return &SchemaError{URI: uri, Column: name, Msg: fmt.Sprintf("has type %s, want %s", h, w)}
		}
		if wl.MaxRepetitionLevel != hl.MaxRepetitionLevel {
			return &SchemaError{URI: uri, Column: name, Msg: "repetition differs (list vs scalar)"}
		}
	}
	return nil
}

func typeName(n parquet.Node) string {
	t := n.Type()
	if lt := t.LogicalType(); lt != nil {
		return t.Kind().String() + "(" + lt.String() + ")"
	}
	return t.Kind().String()
}

// TotalRows sums the parts' row counts.
func TotalRows(parts []layout.Object) int {
	n := 0
	for _, p := range parts {
		n += int(p.Rows)
	}
	return n
}

// Column is one top-level column of a dataset, for FORMAT.md.
type Column struct {
	Name string
	// Type is the Parquet physical type with its logical type, or "list
	// of …" for a list column.
	Type string
}

// Columns lists the dataset's top-level columns in schema order.
func (in Info) Columns() []Column {
	var out []Column
	for _, f := range in.Schema.Fields() {
		out = append(out, Column{Name: f.Name(), Type: describe(f)})
	}
	return out
}

func describe(n parquet.Node) string {
	if n.Leaf() {
		t := typeName(n)
		if n.Repeated() {
			return "repeated " + t
		}
		return t
	}
	if lt := n.Type().LogicalType(); lt != nil && lt.String() == "LIST" {
		// LIST: a repeated group "list" holding the element.
		for _, g := range n.Fields() {
			for _, e := range g.Fields() {
				return "list of " + describe(e)
			}
		}
	}
	var parts []string
	for _, f := range n.Fields() {
		parts = append(parts, f.Name()+": "+describe(f))
	}
	return "group {" + strings.Join(parts, ", ") + "}"
}
