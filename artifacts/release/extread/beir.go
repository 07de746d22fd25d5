package extread

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// The BEIR reader follows beir.datasets.data_loader.GenericDataLoader.load
// (beir-cellar/beir): it opens corpus.jsonl, queries.jsonl and
// qrels/<split>.tsv as UTF-8 text (Python's universal newlines: \n, \r\n and
// a lone \r all end a line), json.loads every JSONL line and keeps
// line.get("_id") → {"text", "title"} and line.get("_id") → line.get("text");
// it reads the TSV with csv.reader(delimiter="\t", QUOTE_MINIMAL), skips the
// first row and takes row[0], row[1], int(row[2]); and it then keeps only
// the queries the qrels name, with self.queries[qid], and logs the first
// document and query. Whatever would raise there is an error here, and so
// is what the loader would take silently but wrongly (a missing or
// non-string id, a null title or text that BEIR's retrievers concatenate, a
// duplicate id or pair that overwrites the first, a field in quotes, a qrels
// document that is not in the corpus).

// BEIRDoc is a corpus entry as the loader keeps it.
type BEIRDoc struct {
	Title, Text string
}

// QrelsHeader is the first line of a BEIR qrels file.
const QrelsHeader = "query-id\tcorpus-id\tscore"

// LineError is something at File:Line that the BEIR loader would fail on or
// read wrongly; Line is 0 for the file as a whole.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxErrors bounds the errors reported for one folder.
const maxErrors = 20

// problems collects LineErrors up to maxErrors.
type problems struct {
	errs []error
	more int
}

func (p *problems) add(file string, line int, format string, args ...any) {
	if len(p.errs) == maxErrors {
		p.more++
		return
	}
	p.errs = append(p.errs, &LineError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *problems) err() error {
	if p.more > 0 {
		p.errs = append(p.errs, fmt.Errorf("and %d more", p.more))
	}
	return errors.Join(p.errs...)
}

// ReadBEIR reads the BEIR folder dir for split as GenericDataLoader(dir).load(split)
// does, and returns its corpus, its queries (only those the qrels name, as
// the loader keeps) and its qrels (query id → document id → score). The
// error joins a *LineError for each problem (at most 20), each naming the
// file and line.
func ReadBEIR(dir, split string) (corpus map[string]BEIRDoc, queries map[string]string, qrels map[string]map[string]int, err error) {
	var p problems
	corpusFile := filepath.Join(dir, "corpus.jsonl")
	queriesFile := filepath.Join(dir, "queries.jsonl")
	qrelsFile := filepath.Join(dir, "qrels", split+".tsv")
	corpus = readCorpus(corpusFile, &p)
	all := readQueries(queriesFile, &p)
	qrels, lines := readQrels(qrelsFile, &p)
	if len(p.errs) > 0 {
		return nil, nil, nil, p.err()
	}
	if len(corpus) == 0 {
		p.add(corpusFile, 0, "no documents (the loader logs the first one and fails)")
	}
	queries = make(map[string]string, len(qrels))
	for _, l := range lines {
		if _, ok := all[l.query]; !ok {
			p.add(qrelsFile, l.line, "query-id %q is not in %s (the loader's self.queries[qid] fails)", l.query, queriesFile)
		}
		if _, ok := corpus[l.doc]; !ok {
			p.add(qrelsFile, l.line, "corpus-id %q is not in %s", l.doc, corpusFile)
		}
		queries[l.query] = all[l.query]
	}
	if err := p.err(); err != nil {
		return nil, nil, nil, err
	}
	return corpus, queries, qrels, nil
}

// ReadBEIRCorpus reads a BEIR corpus.jsonl: _id → title and text.
func ReadBEIRCorpus(file string) (map[string]BEIRDoc, error) {
	var p problems
	c := readCorpus(file, &p)
	return c, p.err()
}

// ReadBEIRQueries reads a BEIR queries.jsonl: _id → text.
func ReadBEIRQueries(file string) (map[string]string, error) {
	var p problems
	q := readQueries(file, &p)
	return q, p.err()
}

// ReadBEIRQrels reads a BEIR qrels TSV: query id → document id → score.
func ReadBEIRQrels(file string) (map[string]map[string]int, error) {
	var p problems
	q, _ := readQrels(file, &p)
	return q, p.err()
}

func readCorpus(file string, p *problems) map[string]BEIRDoc {
	out := map[string]BEIRDoc{}
	first := map[string]int{}
	readJSONL(file, p, func(n int, obj map[string]json.RawMessage) {
		id, ok := idField(file, n, obj, p)
		title, ok1 := stringField(file, n, obj, "title", p)
		text, ok2 := stringField(file, n, obj, "text", p)
		if !ok || !ok1 || !ok2 {
			return
		}
		if f, dup := first[id]; dup {
			p.add(file, n, "duplicate _id %q (first at line %d): the loader keeps only the last", id, f)
			return
		}
		first[id] = n
		out[id] = BEIRDoc{Title: title, Text: text}
	})
	return out
}

func readQueries(file string, p *problems) map[string]string {
	out := map[string]string{}
	first := map[string]int{}
	readJSONL(file, p, func(n int, obj map[string]json.RawMessage) {
		id, ok := idField(file, n, obj, p)
		text, ok1 := stringField(file, n, obj, "text", p)
		if !ok || !ok1 {
			return
		}
		if f, dup := first[id]; dup {
			p.add(file, n, "duplicate _id %q (first at line %d): the loader keeps only the last", id, f)
			return
		}
		first[id] = n
		out[id] = text
	})
	return out
}

// idField is obj's "_id": a non-empty string, since the qrels' ids are
// strings and a number would match none of them.
func idField(file string, n int, obj map[string]json.RawMessage, p *problems) (string, bool) {
	id, ok := stringField(file, n, obj, "_id", p)
	if ok && id == "" {
		p.add(file, n, `empty "_id"`)
		return "", false
	}
	return id, ok
}

// stringField is obj[key], which must be a JSON string: the loader takes a
// missing key as None and BEIR's retrievers then fail on it.
func stringField(file string, n int, obj map[string]json.RawMessage, key string, p *problems) (string, bool) {
	raw, ok := obj[key]
	if !ok {
		p.add(file, n, "no %q", key)
		return "", false
	}
	var s string
	// Unmarshal takes null as no change; the loader would get None.
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) || json.Unmarshal(raw, &s) != nil {
		p.add(file, n, "%q is %s, not a string", key, raw)
		return "", false
	}
	return s, true
}

// readJSONL calls fn with each line of file decoded as a JSON object.
func readJSONL(file string, p *problems, fn func(line int, obj map[string]json.RawMessage)) {
	eachLine(file, p, func(n int, line []byte) {
		if len(bytes.TrimSpace(line)) == 0 {
			p.add(file, n, "empty line (json.loads fails on it)")
			return
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			p.add(file, n, "not a JSON object: %v", err)
			return
		}
		if obj == nil {
			p.add(file, n, "null, not a JSON object")
			return
		}
		fn(n, obj)
	})
}

// eachLine calls fn with each line of file, without its line end, as
// Python's text mode splits it; a missing file and lines that are not UTF-8
// or that hold a lone \r are problems.
func eachLine(file string, p *problems, fn func(line int, text []byte)) (opened bool) {
	f, err := os.Open(file)
	if err != nil {
		p.add(file, 0, "cannot open: %v (the loader's check: file not present)", err)
		return false
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return true
		}
		if err != nil && err != io.EOF {
			p.add(file, n, "read: %v", err)
			return true
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		switch {
		case !utf8.Valid(line):
			p.add(file, n, "not UTF-8 (the loader opens it with encoding utf8)")
		case bytes.IndexByte(line, '\r') >= 0:
			p.add(file, n, `a lone \r: Python's universal newlines end the line there`)
		default:
			fn(n, line)
		}
		if err == io.EOF {
			return true
		}
	}
}

// qrelsLine is one pair of a qrels file and where it is.
type qrelsLine struct {
	query, doc string
	line       int
}

// plainInt is what the qrels' scores must look like: int() reads it, and
// nothing else reads it differently.
var plainInt = regexp.MustCompile(`^-?[0-9]+$`)

func readQrels(file string, p *problems) (map[string]map[string]int, []qrelsLine) {
	out := map[string]map[string]int{}
	var lines []qrelsLine
	first := map[[2]string]int{}
	header, rows := false, 0
	opened := eachLine(file, p, func(n int, line []byte) {
		if n == 1 {
			header = true
			if string(line) != QrelsHeader {
				p.add(file, n, "header %q, want %q", line, QrelsHeader)
			}
			return
		}
		rows++
		if len(line) == 0 {
			p.add(file, n, "empty line (csv.reader gives [] and the loader's row[0] fails)")
			return
		}
		if bytes.IndexByte(line, '"') >= 0 {
			p.add(file, n, `a '"': csv.reader with QUOTE_MINIMAL would take it as quoting`)
			return
		}
		fields := bytes.Split(line, []byte("\t"))
		if len(fields) != 3 {
			p.add(file, n, "%d tab-separated fields, want 3 (query-id, corpus-id, score)", len(fields))
			return
		}
		q, d, s := string(fields[0]), string(fields[1]), string(fields[2])
		if q == "" || d == "" {
			p.add(file, n, "empty query-id or corpus-id")
			return
		}
		if !plainInt.MatchString(s) {
			p.add(file, n, "score %q is not an integer (the loader calls int() on it)", s)
			return
		}
		score, err := strconv.Atoi(s)
		if err != nil {
			p.add(file, n, "score %q: %v", s, err)
			return
		}
		if f, dup := first[[2]string{q, d}]; dup {
			p.add(file, n, "duplicate pair (%s, %s) (first at line %d): the loader keeps only the last", q, d, f)
			return
		}
		first[[2]string{q, d}] = n
		if out[q] == nil {
			out[q] = map[string]int{}
		}
		out[q][d] = score
		lines = append(lines, qrelsLine{query: q, doc: d, line: n})
	})
	switch {
	case opened && !header:
		p.add(file, 0, "empty file: no header (the loader's next(reader) fails)")
	case opened && rows == 0:
		p.add(file, 0, "no judgments after the header (the loader then keeps no query and fails)")
	}
	return out, lines
}
