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
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/ingest/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// input is one file of a source.
type input struct {
	src    *Source
	name   string            // as shown in rejects and errors: relative to the config when under it
	uri    string            // full location
	file   layout.File       // its store and key
	key    string            // its base name, for its format and compression
	format string            // jsonl, json or parquet (jsonl and json are told apart by content unless forced)
	fields map[string]string // fieldNames(src), made once: judging a row must not build it again
	// texts, when set, holds the statements and solutions read from the
	// file (readShare's, for a streaming map shard; see textArena).
	texts *textArena
}

// value is one field of one row as read from any format.
type value struct {
	s       string
	present bool   // false: absent or null
	badType string // non-empty: the field is of this non-string type
	badUTF8 bool
	note    string // why the value is not valid UTF-8, when known
	// list: the value was a list, s its elements joined; elems holds
	// them (nulls skipped), for lists: explode and where: [].
	list  bool
	elems []string
}

// record is one input row: its 1-based line (JSONL) or row (Parquet), and
// either its mapped fields or why it could not be parsed at all.
type record struct {
	line   int64
	vals   map[string]value
	reject *dataset.Reject
	// keys are the input fields the row has (a Parquet file's columns),
	// so that a mapped field no row has is found (a typo in the map).
	keys []string
	// elem is the 1-based element of an exploded list this row holds
	// (lists: explode), 0 for a row that is not one.
	elem int
}

// expand lists a source's files: globs resolved against the config's
// directory, matches sorted, files in the order of the patterns. A file
// that two patterns name (a.jsonl and *.jsonl, a folder and a file in
// it) is one input, in the place of the first: read twice, each of its
// rows would be a duplicate_id of itself. Putting one file before a glob
// that also matches it is how a source reads that file first (its rows
// win duplicate ids), so the repeat is no error: it is logged to log as a
// warning naming both patterns.
//
// listed, when set, is told each pattern as resolved and the URIs of every
// file it matched (repeats included): a shard records them
// (stage.Env.AddListing), so that a file added under a glob or folder, or
// gone from it, makes the shard stale.
func expand(ctx context.Context, cfg *config.Config, src *Source, log zerolog.Logger, listed func(path string, uris []string)) ([]input, error) {
	var out []input
	first := map[string]string{} // decl.FileKey → the pattern that named the file first
	for _, pat := range src.Paths {
		files, err := layout.Files(ctx, cfg.Resolve(pat), cfg.Storage, nil)
		if errors.Is(err, store.ErrNotExist) {
			return nil, stage.BadInput(fmt.Errorf("source %s: %q matched no files%s", src.Name, pat, folderNote(cfg.Resolve(pat))))
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, stage.BadInput(fmt.Errorf("source %s: %q%s: %w", src.Name, pat, folderNote(cfg.Resolve(pat)), err))
		}
		if err != nil {
			return nil, stage.BadInput(fmt.Errorf("source %s: %q: %w", src.Name, pat, err))
		}
		if listed != nil {
			uris := make([]string, len(files))
			for i, f := range files {
				uris[i] = f.URI
			}
			listed(cfg.Resolve(pat), uris)
		}
		for _, f := range files {
			u := f.URI
			// A folder's files come back as file:// URIs: name them by
			// their path, as a glob's matches are.
			name := u
			if local, isFile := strings.CutPrefix(u, "file://"); isFile || !strings.Contains(u, "://") {
				if rel, err := filepath.Rel(cfg.Dir(), filepath.FromSlash(local)); err == nil && !strings.HasPrefix(rel, "..") {
					name = filepath.ToSlash(rel)
				}
			}
			if by, ok := first[decl.FileKey(u)]; ok {
				log.Warn().Str("source", src.Name).Str("file", name).Str("first", by).Str("again", pat).
					Msg("file named by two paths of the source: read once, in the place of the first")
				continue
			}
			first[decl.FileKey(u)] = pat
			format, err := formatOf(src, u)
			if err != nil {
				return nil, err
			}
			out = append(out, input{src: src, name: name, uri: u, file: f, key: path.Base(f.Key), format: format, fields: fieldNames(src)})
		}
	}
	return out, nil
}

// folderNote says what folders a local path or pattern names, for a
// message about finding no files there: a folder without files, or a
// pattern that matches only folders (a glob's folders are not read).
func folderNote(uri string) string {
	if strings.Contains(uri, "://") && !strings.HasPrefix(uri, "file://") {
		return ""
	}
	p := strings.TrimPrefix(uri, "file://")
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		if _, err := os.ReadDir(p); err != nil {
			return fmt.Sprintf(" (%s is a folder that cannot be listed)", p)
		}
		return fmt.Sprintf(" (%s is a folder with no files under it)", p)
	}
	matches, _ := filepath.Glob(p)
	var dirs []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			dirs = append(dirs, m)
		}
	}
	if len(dirs) > 0 {
		return fmt.Sprintf(" (it matches only folders, which a pattern does not read: %s; name the folder itself to read every file under it)", strings.Join(dirs, ", "))
	}
	return ""
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
	return "", stage.BadInput(fmt.Errorf("source %s: cannot tell the format of %s from its name; set format: jsonl, json or parquet", src.Name, uri))
}

// fieldOrder is the order fields are checked in.
var fieldOrder = []string{"statement", "solution", "id", "subject", "origin", "source"}

// fieldNames are the input fields a source maps, by problem field: its
// fields:, and the fields naming side files (files:).
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
	for k, v := range src.Files { // the field holding a side file's path
		if m[k] == "" && v != "" {
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

// readSpan is what scan read of one span.
type readSpan struct {
	sum        string // SHA-256 of the bytes owned, as stored (compressed files hash compressed)
	start, end int64  // the bytes the span owns
	size       int64  // the file's size
	lines      int64  // lines (rows, elements) read, blank lines too
	rows       int64  // records handed to fn
	reread     int64  // bytes before start read to find the first line (owned by the span before)
}

// scan reads every record of span sp of in, in order, and reports the
// bytes read to prog. A whole file is read as it is stored; a byte range
// of a JSONL file from its first line start at or after sp.start to the
// end of the last line starting before sp.end, and no further (see
// rangeReader), so that the spans of a file read each byte once, but for
// the partial line each range skips to find its first line.
func scan(ctx context.Context, in input, sp span, maxLine int, prog *stage.Progress, fn func(record) error) (rs readSpan, err error) {
	obj, err := in.file.Store.Open(ctx, in.file.Key)
	if err != nil {
		if errors.Is(err, store.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EISDIR) {
			return rs, stage.BadInput(fmt.Errorf("open %s: %w", in.uri, err))
		}
		return rs, fmt.Errorf("open %s: %w", in.uri, err)
	}
	defer obj.Close()
	rs.size = obj.Size()
	if obj.Size() == 0 {
		return rs, stage.BadInput(fmt.Errorf("%s: empty file (0 bytes)", in.name))
	}
	if !sp.whole && obj.Size() != sp.size {
		return rs, stage.BadInput(fmt.Errorf("%s: %d bytes now, %d when ingest planned its shards: the file changed while ingest ran; rerun ingest", in.name, obj.Size(), sp.size))
	}
	h := sha256.New()
	count := func(r record) error { rs.rows++; return fn(r) }
	switch {
	case in.format == "parquet":
		if _, err := io.Copy(h, io.NewSectionReader(obj, 0, obj.Size())); err != nil {
			return rs, fmt.Errorf("read %s: %w", in.uri, err)
		}
		rs.lines, err = scanParquet(ctx, in, obj, count)
		prog.Add(obj.Size())
		rs.end = obj.Size()
	case sp.whole:
		raw := countingReader{r: io.NewSectionReader(obj, 0, obj.Size()), prog: prog}
		rs.lines, err = scanJSONL(ctx, in, io.TeeReader(raw, h), 0, false, maxLine, count)
		rs.end = obj.Size()
	default:
		start := sp.start
		if start > 0 {
			if start, err = lineStart(ctx, in, obj, sp.start); err != nil {
				return rs, err
			}
			rs.reread = start - (sp.start - 1)
		}
		rr := &rangeReader{r: obj, pos: start, end: max(start, sp.end), size: obj.Size(), last: '\n'}
		raw := countingReader{r: rr, prog: prog}
		rs.lines, err = scanJSONL(ctx, in, io.TeeReader(raw, h), start, true, maxLine, count)
		rs.start, rs.end = start, rr.pos
	}
	if err != nil {
		return rs, err
	}
	if rs.rows == 0 && sp.whole {
		return rs, stage.BadInput(fmt.Errorf("%s: no rows", in.name))
	}
	rs.sum = hex.EncodeToString(h.Sum(nil))
	return rs, nil
}

// lineStart is the offset of the first line that starts at or after at
// (> 0): at itself when the byte before it ends a line, else just past the
// next line feed (the file's size when there is none).
func lineStart(ctx context.Context, in input, r io.ReaderAt, at int64) (int64, error) {
	buf := make([]byte, 4<<10)
	pos := at - 1
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := r.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		if errors.Is(err, io.EOF) {
			return pos, nil
		}
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", in.uri, err)
		}
	}
}

// rangeReader yields bytes [pos, end) of r and then, when they do not end
// with a line feed, the rest of the line up to and including its line
// feed, fetched in small reads: a range reads past its end only to finish
// its last line, never into the next range's lines.
type rangeReader struct {
	r              io.ReaderAt
	pos, end, size int64
	last           byte // the last byte yielded
	done           bool
}

const tailRead = 512

func (rr *rangeReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if rr.pos < rr.end {
		n := int(min(int64(len(p)), rr.end-rr.pos))
		n, err := rr.r.ReadAt(p[:n], rr.pos)
		if n > 0 {
			rr.pos += int64(n)
			rr.last = p[n-1]
			return n, nil
		}
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the file is shorter than planned
		}
		return 0, err
	}
	if rr.done || rr.last == '\n' || rr.pos >= rr.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), tailRead, rr.size-rr.pos))
	n, err := rr.r.ReadAt(p[:n], rr.pos)
	if n == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
		n, rr.done = i+1, true
	}
	rr.pos += int64(n)
	rr.last = p[n-1]
	return n, nil
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
		// The window a frame declares is memory the decoder holds: cap it
		// at the zstd tool's own default limit (128 MiB; files written
		// with --long=28 or more are refused), not the library's 512 MiB.
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
		if err != nil {
			return nil, nil, stage.BadInput(fmt.Errorf("%s: not zstd: %w", in.name, err))
		}
		return zr, zr.Close, nil
	}
	return r, func() {}, nil
}

// scanJSONL reads the rows of a JSONL stream (or of one JSON array) and
// returns the number of lines read. from is the stream's offset in the
// file: a byte range after the first (from > 0) is plain JSON lines, and
// the checks of the file's first line were made by the range before it.
func scanJSONL(ctx context.Context, in input, raw io.Reader, from int64, split bool, maxLine int, fn func(record) error) (int64, error) {
	r, closeFn, err := decompress(in, raw)
	if err != nil {
		return 0, err
	}
	defer closeFn()
	fields := extractNames(in.src)
	rf := newRowFields(fields, in.src.Join)
	rf.texts = in.texts
	br := bufio.NewReaderSize(r, readBuffer)
	// One JSON array of rows is told from JSON lines by its content, not
	// its name: both come named .json. Forcing format: jsonl keeps the
	// file-level error below for a file that turns out to be an array.
	switch array := from == 0 && isJSONArray(br); {
	case array && split:
		return 0, stage.BadInput(fmt.Errorf("%s: one JSON array, but its name says JSON lines, so ingest split it into byte ranges; rename it to .json or set format: json", in.name))
	case array && in.src.Format != "jsonl":
		return scanJSONArray(ctx, in, br, maxLine, fields, fn)
	case !array && in.format == "json":
		return 0, stage.BadInput(fmt.Errorf("%s: format: json is set, but the file does not start with '[' (one JSON array of rows); set format: auto or jsonl for JSON lines", in.name))
	}
	lr := newLineReader(ctx, br, maxLine)
	var line int64
	first := from == 0 // no non-blank line yet
	for {
		if line%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return line, err
			}
		}
		b, size, err := lr.next()
		if errors.Is(err, io.EOF) {
			return line, nil
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return line, cerr
			}
			if from > 0 {
				return line, stage.BadInput(fmt.Errorf("%s: read after line %d of the range from byte %d: %w (truncated or corrupt file?)", in.name, line, from, err))
			}
			return line, stage.BadInput(fmt.Errorf("%s: read after line %d: %w (truncated or corrupt file?)", in.name, line, err))
		}
		line++
		// A UTF-8 byte-order mark opens files written by some Windows
		// tools, and each part of such files concatenated: it is not
		// part of the row. Only JSON's white space is trimmed: a Unicode
		// space (NBSP, VT) is junk in the line, a malformed reject, and a
		// line of nothing else no blank line to skip.
		t := bytes.Trim(bytes.TrimPrefix(b, utf8BOM), jsonSpace)
		if len(t) == 0 && size <= int64(maxLine) {
			continue
		}
		if first {
			first = false
			if err := fileShape(in, b, t); err != nil {
				return line, err
			}
		}
		var rec record
		if size <= int64(maxLine) {
			rec = rf.parse(line, t)
		} else {
			rec = record{line: line, reject: &dataset.Reject{Reason: dataset.ReasonOversize,
				Detail: fmt.Sprintf("line of %d bytes > ingest.max_line_bytes %d; skipped unread", size, maxLine)}}
		}
		if ferr := fn(rec); ferr != nil {
			return line, ferr
		}
	}
}

// scanJSONArray reads the elements of one JSON array as rows, each judged
// as a JSONL line is (duplicate keys, lone surrogates, control characters),
// its 1-based index in the array standing for the line in rejects.
func scanJSONArray(ctx context.Context, in input, br *bufio.Reader, maxElem int, fields map[string]string, fn func(record) error) (int64, error) {
	ar := newArrayReader(ctx, br, maxElem)
	rf := newRowFields(fields, in.src.Join)
	rf.texts = in.texts
	for {
		if ar.n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return ar.n, err
			}
		}
		b, size, err := ar.next()
		if errors.Is(err, io.EOF) {
			return ar.n, nil
		}
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return ar.n, cerr
			}
			var bad errArray
			if errors.As(err, &bad) {
				return ar.n, stage.BadInput(fmt.Errorf("%s: JSON array %w", in.name, err))
			}
			return ar.n, stage.BadInput(fmt.Errorf("%s: read after element %d: %w (truncated or corrupt file?)", in.name, ar.n, err))
		}
		var rec record
		if size <= int64(maxElem) {
			rec = rf.parse(ar.n, b)
		} else {
			rec = record{line: ar.n, reject: &dataset.Reject{Reason: dataset.ReasonOversize,
				Detail: fmt.Sprintf("array element of %d bytes > ingest.max_line_bytes %d; skipped unread", size, maxElem)}}
		}
		if ferr := fn(rec); ferr != nil {
			return ar.n, ferr
		}
	}
}

var utf8BOM = []byte("\xef\xbb\xbf")

// jsonSpace is JSON's white space (RFC 8259, ws): bytes.TrimSpace would
// trim Unicode's too, and so accept a row with junk around its object.
const jsonSpace = " \t\n\r"

// fileShape refuses a file that is not JSON lines at all, judged by its
// first non-blank line (b raw, t trimmed; at most max_line_bytes of it):
// rejecting each of its lines would only bury the one fix under a reject
// per line.
func fileShape(in input, b, t []byte) error {
	bad := func(format string, args ...any) error {
		return stage.BadInput(fmt.Errorf("%s: "+format, append([]any{in.name}, args...)...))
	}
	switch {
	case len(t) == 0: // a blank line too long to read
		return nil
	case bytes.HasPrefix(b, []byte("\xff\xfe")), bytes.HasPrefix(b, []byte("\xfe\xff")):
		return bad("UTF-16 text (it starts with a UTF-16 byte-order mark); ingest reads UTF-8: convert it, e.g. iconv -f UTF-16 -t UTF-8")
	case bytes.HasPrefix(b, []byte("\x1f\x8b")):
		return bad("gzip data in a file whose name does not end in .gz; rename it (or its glob) to .gz")
	case bytes.HasPrefix(b, []byte("\x28\xb5\x2f\xfd")):
		return bad("zstd data in a file whose name does not end in .zst; rename it (or its glob) to .zst")
	case t[0] == '[':
		return bad("a JSON array, but format: jsonl is set; set format: json (or auto) to read its elements as rows")
	case string(t) == "{":
		return bad("a JSON document spread over several lines, not JSON lines; ingest reads one JSON object per line: convert it, e.g. jq -c . in.json > in.jsonl")
	}
	// A bare CR followed by an object's brace, on a line that is not one
	// valid object (a CR may be white space inside one: {"a":\r{...}}).
	if i := bareCR(t); i >= 0 && bytes.HasPrefix(bytes.TrimSpace(t[i:]), []byte("{")) && !json.Valid(t) {
		return bad("lines end in a carriage return only (old Mac line endings), so the file reads as one line; convert them to line feeds, e.g. tr '\\r' '\\n' < in > out")
	}
	return nil
}

func scanParquet(ctx context.Context, in input, obj store.Object, fn func(record) error) (int64, error) {
	f, err := dataset.OpenFile(obj, in.uri)
	if err != nil {
		return 0, stage.BadInput(err)
	}
	fields := extractNames(in.src)
	cols, keys, err := parquetColumns(in, f)
	if err != nil {
		return 0, err
	}
	var line int64
	buf := make([]parquet.Row, 256)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return line, err
			}
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				line++
				vals := parquetValues(row, cols, in.src.Join, fields)
				if ferr := fn(record{line: line, vals: vals, keys: keys}); ferr != nil {
					rows.Close()
					return line, ferr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return line, stage.BadInput(fmt.Errorf("%s: read row %d: %w", in.name, line+1, err))
			}
		}
		rows.Close()
	}
	return line, nil
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
