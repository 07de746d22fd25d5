package release

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/trec"
)

// Problem is one thing wrong with a release folder, naming the file.
type Problem struct {
	File string `json:"file"`
	Msg  string `json:"problem"`
}

func (p Problem) String() string { return p.File + ": " + p.Msg }

// Report is what Verify found.
type Report struct {
	// Files are the files checked against SHA256SUMS.
	Files    int       `json:"files"`
	Problems []Problem `json:"problems"`
	// bad are files already reported as changed, missing or corrupt: a
	// file is reported once, for what is wrong with it first, not again
	// by every check that would have read it.
	bad map[string]bool
}

// OK reports a release without problems.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) add(file, format string, a ...any) {
	if r.bad[file] {
		return
	}
	r.Problems = append(r.Problems, Problem{File: file, Msg: fmt.Sprintf(format, a...)})
}

// fail reports file and marks it bad: no later check reports it again.
func (r *Report) fail(file, format string, a ...any) {
	r.add(file, format, a...)
	if r.bad == nil {
		r.bad = map[string]bool{}
	}
	r.bad[file] = true
}

// corrupt reports a file whose checksum holds but that cannot be read.
func (r *Report) corrupt(file string, err error) {
	r.fail(file, "corrupt: cannot be read (%v)", err)
}

var sumLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *](.+)$`)

// Verify checks a release folder (st is rooted at it): every checksum of
// SHA256SUMS, no file left out of it, MANIFEST.json against the files
// (hashes, sizes, rows), every Parquet schema against the table it
// declares, the card's configs against the files, croissant.json's hashes
// and fields, and the cross-references (every qrel's document in the
// corpus, every query with candidates and ratings, ratings in [0, 5] with
// their level, no query among its own candidates, no unaccepted leak, every
// layout of Layouts holding the same ids). An error is returned
// only when the folder cannot be read at all.
func Verify(ctx context.Context, st store.Store) (*Report, error) {
	rep := &Report{}
	infos, err := st.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", st.URI(""), err)
	}
	present := map[string]int64{}
	for _, in := range infos {
		present[in.Key] = in.Size
	}
	if _, ok := present[SumsFile]; !ok {
		rep.add(SumsFile, "missing: not a release folder, or an interrupted publish (it is written last)")
		return rep, nil
	}
	data := map[string][]byte{} // files that hash as SHA256SUMS says
	sums, err := store.ReadAll(ctx, st, SumsFile)
	if err != nil {
		return nil, err
	}
	listed := map[string]string{}
	var order []string
	for i, line := range strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n") {
		m := sumLine.FindStringSubmatch(line)
		if m == nil {
			rep.add(SumsFile, "line %d is not \"<sha256>  <path>\": %q", i+1, trim(line))
			continue
		}
		if _, dup := listed[m[2]]; dup {
			rep.add(SumsFile, "line %d lists %s twice", i+1, m[2])
			continue
		}
		listed[m[2]], order = m[1], append(order, m[2])
	}
	for _, p := range order {
		rep.Files++
		if _, ok := present[p]; !ok {
			rep.fail(p, "listed in %s but missing", SumsFile)
			continue
		}
		b, err := store.ReadAll(ctx, st, p)
		if err != nil {
			return nil, err
		}
		if got := hexSHA(b); got != listed[p] {
			rep.fail(p, "SHA-256 is %s, %s says %s (changed or damaged)", got, SumsFile, listed[p])
			continue
		}
		data[p] = b
	}
	for _, t := range Tables {
		if _, ok := listed[t.Path]; !ok {
			rep.fail(t.Path, "missing: every release has this table, and %s does not list it", SumsFile)
		}
	}
	// A Parquet file that does not decode is reported once, as corrupt,
	// and no check reads it again.
	for _, p := range sortedKeys(data) {
		if strings.HasSuffix(p, ".parquet") {
			if _, err := dataset.FileSchema(data[p], p); err != nil {
				rep.corrupt(p, err)
				delete(data, p)
			}
		}
	}
	for _, in := range infos {
		if _, ok := listed[in.Key]; !ok && in.Key != SumsFile {
			rep.add(in.Key, "not in %s", SumsFile)
		}
	}
	checkManifest(rep, data, listed)
	checkSchemas(rep, data)
	checkCard(rep, data)
	checkCroissant(rep, data)
	t := decodeTables(rep, data)
	checkReferences(rep, data, t)
	checkMeaning(rep, data, t)
	return rep, nil
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func checkManifest(rep *Report, data map[string][]byte, listed map[string]string) {
	b, ok := data[ManifestFile]
	if !ok {
		if _, l := listed[ManifestFile]; !l {
			rep.add(ManifestFile, "missing")
		}
		return
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		rep.add(ManifestFile, "not JSON: %v", err)
		return
	}
	seen := map[string]bool{}
	for _, e := range m.Files {
		seen[e.Path] = true
		sum, ok := listed[e.Path]
		// MANIFEST.json hashes as SHA256SUMS says, so where the two
		// disagree on another file, SHA256SUMS is the one changed.
		switch {
		case !ok:
			rep.add(SumsFile, "does not list %s, which %s does", e.Path, ManifestFile)
			continue
		case sum != e.SHA256:
			rep.add(SumsFile, "%s: SHA-256 %s disagrees with %s's %s", e.Path, sum, ManifestFile, e.SHA256)
			continue
		}
		f, ok := data[e.Path]
		if !ok {
			continue // its own problem is reported
		}
		if int64(len(f)) != e.Size {
			rep.add(e.Path, "%d bytes, %s says %d", len(f), ManifestFile, e.Size)
		}
		if rows, ok := countRows(e.Path, f); ok {
			switch {
			case e.Rows == nil:
				rep.add(ManifestFile, "%s: no rows (every table's rows are listed, 0 included)", e.Path)
			case rows >= 0 && rows != *e.Rows:
				rep.add(e.Path, "%d rows, %s says %d", rows, ManifestFile, *e.Rows)
			}
		}
	}
	for p := range listed {
		if !seen[p] && p != ManifestFile {
			rep.add(SumsFile, "lists %s, which %s does not", p, ManifestFile)
		}
	}
}

// countRows counts a table's rows: Parquet rows, JSONL lines, TSV and TREC
// data lines; ok is false for other files.
func countRows(p string, b []byte) (int64, bool) {
	switch {
	case strings.HasSuffix(p, ".parquet"):
		n, err := dataset.FileRows(b, p)
		if err != nil {
			return -1, true
		}
		return n, true
	case strings.HasSuffix(p, ".jsonl"), strings.HasSuffix(p, ".txt"), strings.HasSuffix(p, ".run"):
		return int64(bytes.Count(b, []byte("\n"))), true
	case strings.HasSuffix(p, ".tsv"):
		return max(int64(bytes.Count(b, []byte("\n")))-1, 0), true
	}
	return 0, false
}

// schemaOf are the declared schemas of every Parquet file of a release.
func schemaOf(p string) (dataset.Info, bool) {
	if t, ok := TableOf(p); ok {
		return dataset.Info{Name: t.Config, Schema: t.Schema}, true
	}
	if l, ok := layoutOf(p); ok && l.Schema != nil {
		return l.Schema(p)
	}
	return dataset.Info{}, false
}

func infoOf[T any]() dataset.Info {
	return dataset.Dataset[T]{}.Info()
}

func checkSchemas(rep *Report, data map[string][]byte) {
	for _, p := range sortedKeys(data) {
		if !strings.HasSuffix(p, ".parquet") {
			continue
		}
		want, ok := schemaOf(p)
		if !ok {
			rep.add(p, "a Parquet file no table declares")
			continue
		}
		s, err := dataset.FileSchema(data[p], p)
		if err != nil {
			continue // reported as corrupt
		}
		got := dataset.Info{Schema: s}.Columns()
		exp := want.Columns()
		if !slices.Equal(got, exp) {
			rep.add(p, "schema %s, declared %s", columnsString(got), columnsString(exp))
		}
	}
}

func columnsString(cols []dataset.Column) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, c.Name+" "+c.Type)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func checkCard(rep *Report, data map[string][]byte) {
	b, ok := data[CardFile]
	if !ok {
		return
	}
	head, ok := frontMatter(b)
	if !ok {
		rep.add(CardFile, "no YAML header between --- lines")
		return
	}
	var h cardHeader
	if err := yaml.Unmarshal(head, &h); err != nil {
		rep.add(CardFile, "YAML header: %v", err)
		return
	}
	configs := map[string]bool{}
	for _, c := range h.Configs {
		configs[c.Name] = true
		if len(c.DataFiles) == 0 {
			rep.add(CardFile, "config %s has no data_files", c.Name)
		}
		for _, f := range c.DataFiles {
			matched := false
			for p := range data {
				if ok, _ := path.Match(f.Path, p); ok {
					matched = true
				}
			}
			if !matched {
				rep.add(CardFile, "config %s: data_files %q match no file", c.Name, f.Path)
			}
		}
	}
	for _, t := range Tables {
		if !configs[t.CardConfig()] {
			rep.add(CardFile, "declares no config %s for %s", t.CardConfig(), t.Path)
		}
	}
	if h.License == "" || len(h.TaskCategories) == 0 || len(h.SizeCategories) == 0 || len(h.Language) == 0 {
		rep.add(CardFile, "the header lacks license, task_categories, size_categories or language")
	}
}

// frontMatter returns the YAML between a leading "---" line and the next.
func frontMatter(b []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		return nil, false
	}
	i := bytes.Index(rest, []byte("\n---\n"))
	if i < 0 {
		return nil, false
	}
	return rest[:i+1], true
}

func checkCroissant(rep *Report, data map[string][]byte) {
	b, ok := data[CroissantFile]
	if !ok {
		return
	}
	var doc Croissant
	if err := json.Unmarshal(b, &doc); err != nil {
		rep.add(CroissantFile, "not JSON: %v", err)
		return
	}
	if doc.ConformsTo != CroissantConformsTo {
		rep.add(CroissantFile, "conformsTo %q, want %q", doc.ConformsTo, CroissantConformsTo)
	}
	// Croissant 1.0 requires name, description, license, url, creator and
	// datePublished of a dataset; jsonld in CI checks them again by IRI.
	if strings.TrimSpace(doc.Name) == "" || strings.TrimSpace(doc.Description) == "" {
		rep.add(CroissantFile, "no name or description (Croissant 1.0 requires both)")
	}
	if !strings.Contains(doc.URL, "://") {
		rep.add(CroissantFile, "url %q is not a URL (Croissant 1.0 requires one: set release.homepage)", doc.URL)
	}
	if len(doc.Creator) == 0 {
		rep.add(CroissantFile, "no creator (Croissant 1.0 requires one: set release.creators)")
	}
	for i, cr := range doc.Creator {
		if strings.TrimSpace(cr.Name) == "" || (cr.Type != "sc:Person" && cr.Type != "sc:Organization") {
			rep.add(CroissantFile, "creator %d: want a sc:Person or sc:Organization with a name, got %q %q", i+1, cr.Type, cr.Name)
		}
	}
	if _, err := time.Parse(time.DateOnly, doc.DatePublished); err != nil {
		rep.add(CroissantFile, "datePublished %q is not a date (Croissant 1.0 requires it: set release.date)", doc.DatePublished)
	}
	if len(doc.License) == 0 {
		rep.add(CroissantFile, "no license (Croissant 1.0 requires one)")
	}
	files := map[string]string{} // @id → path
	for _, f := range doc.Distribution {
		files[f.ID] = f.ContentURL
		fb, ok := data[f.ContentURL]
		if !ok {
			rep.add(CroissantFile, "distribution %s: %s is not a checked file of the release", f.ID, f.ContentURL)
			continue
		}
		if f.SHA256 != hexSHA(fb) {
			rep.add(CroissantFile, "distribution %s: sha256 %s, the file's is %s", f.ID, f.SHA256, hexSHA(fb))
		}
		if f.ContentSize != fmt.Sprintf("%d B", len(fb)) {
			rep.add(CroissantFile, "distribution %s: contentSize %s, the file has %d B", f.ID, f.ContentSize, len(fb))
		}
	}
	for _, rs := range doc.RecordSet {
		for _, fd := range rs.Field {
			p, ok := files[fd.Source.FileObject.ID]
			if !ok {
				rep.add(CroissantFile, "field %s: no distribution %s", fd.ID, fd.Source.FileObject.ID)
				continue
			}
			fb, ok := data[p]
			if !ok {
				continue
			}
			s, err := dataset.FileSchema(fb, p)
			if err != nil {
				continue // reported by checkSchemas
			}
			col, found := s.Lookup(fd.Source.Extract.Column)
			if !found {
				if f := fieldNamed(s.Fields(), fd.Source.Extract.Column); f != nil {
					if dt, rep2 := DataType(f); dt != fd.DataType || rep2 != fd.Repeated {
						rep.add(CroissantFile, "field %s: dataType %s (repeated %v), the column is %s (repeated %v)", fd.ID, fd.DataType, fd.Repeated, dt, rep2)
					}
					continue
				}
				rep.add(CroissantFile, "field %s: %s has no column %q", fd.ID, p, fd.Source.Extract.Column)
				continue
			}
			if dt, r := DataType(col.Node); dt != fd.DataType || r != fd.Repeated {
				rep.add(CroissantFile, "field %s: dataType %s (repeated %v), the column is %s (repeated %v)", fd.ID, fd.DataType, fd.Repeated, dt, r)
			}
		}
	}
}

func fieldNamed[F interface{ Name() string }](fs []F, name string) F {
	var zero F
	for _, f := range fs {
		if f.Name() == name {
			return f
		}
	}
	return zero
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// decodeTable reads a data/ table and marks it in have, reporting a file
// that does not decode as corrupt.
func decodeTable[T any](rep *Report, data map[string][]byte, config string, have map[string]bool) []T {
	t, _ := tableByConfig(config)
	b, ok := data[t.Path]
	if !ok {
		return nil // reported: missing, changed or corrupt
	}
	rows, err := dataset.Decode[T](b, t.Path)
	if err != nil {
		rep.corrupt(t.Path, err)
		delete(data, t.Path)
		return nil
	}
	have[config] = true
	return rows
}

func checkReferences(rep *Report, data map[string][]byte, t *tables) {
	queries, corpus, cands, qrels, leaks := t.queries, t.corpus, t.candidates, t.qrels, t.leaks
	if !t.have["queries"] || !t.have["corpus"] || !t.have["candidates"] || !t.have["qrels"] {
		return
	}
	okL := t.have["leaks"]
	docs := map[string]bool{}
	for _, d := range corpus {
		docs[d.ID] = true
	}
	qset := map[string]bool{}
	for _, q := range queries {
		qset[q.ID] = true
	}
	candOf := map[string]map[string]bool{}
	for _, c := range cands {
		if candOf[c.Query] == nil {
			candOf[c.Query] = map[string]bool{}
		}
		candOf[c.Query][c.Doc] = true
		if c.Query == c.Doc {
			rep.add("data/candidates.parquet", "query %s is among its own candidates", c.Query)
		}
		if !qset[c.Query] {
			rep.add("data/candidates.parquet", "query %s is not in data/queries.parquet", c.Query)
		}
		if !docs[c.Doc] {
			rep.add("data/corpus.parquet", "candidate %s of query %s is not in the corpus", c.Doc, c.Query)
		}
	}
	rated := map[string]int{}
	for _, r := range qrels {
		rated[r.Query]++
		switch {
		case !docs[r.Doc]:
			rep.add("data/corpus.parquet", "qrel document %s (query %s) is not in the corpus", r.Doc, r.Query)
		case !candOf[r.Query][r.Doc]:
			rep.add("data/qrels.parquet", "document %s is rated for query %s but is not its candidate", r.Doc, r.Query)
		}
		if !(r.Rating >= 0 && r.Rating <= trec.MaxRating) {
			rep.add("data/qrels.parquet", "query %s doc %s: rating %v outside [0, 5]", r.Query, r.Doc, r.Rating)
		} else if lv, _ := trec.Level(r.Rating); int32(lv) != r.Level {
			rep.add("data/qrels.parquet", "query %s doc %s: level %d, the rating %v rounds to %d", r.Query, r.Doc, r.Level, r.Rating, lv)
		}
	}
	for _, q := range queries {
		if len(candOf[q.ID]) == 0 {
			rep.add("data/candidates.parquet", "query %s has no candidates", q.ID)
		}
		if rated[q.ID] != len(candOf[q.ID]) {
			rep.add("data/qrels.parquet", "query %s has %d ratings for %d candidates", q.ID, rated[q.ID], len(candOf[q.ID]))
		}
	}
	if okL {
		for _, l := range leaks {
			if !l.Accepted {
				rep.add("data/leaks.parquet", "flagged pair %s is not accepted: no release may hold an unresolved leak", dataset.LeakID(l.Query, l.Doc))
			}
		}
	}
	checkLayouts(rep, data, queries, corpus, qrels)
}

func idsOf[T any](rows []T, id func(T) string) map[string]bool {
	out := make(map[string]bool, len(rows))
	for _, r := range rows {
		out[id(r)] = true
	}
	return out
}

func jsonlIDs(b []byte) (map[string]bool, error) {
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec struct {
			ID *string `json:"_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.ID == nil {
			return nil, fmt.Errorf("line %d: not a JSON object with an _id", n)
		}
		out[*rec.ID] = true
	}
	return out, sc.Err()
}

func tsvQrels(b []byte) (map[string]int32, error) {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "query-id\tcorpus-id\tscore" {
		return nil, errors.New("line 1: want the header query-id\\tcorpus-id\\tscore")
	}
	out := map[string]int32{}
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		var lv int32
		if len(f) != 3 || func() bool { _, err := fmt.Sscan(f[2], &lv); return err != nil }() {
			return nil, fmt.Errorf("line %d: want query-id, corpus-id and an integer score", i+2)
		}
		out[f[0]+"\t"+f[1]] = lv
	}
	return out, nil
}

// HashReader is the hex SHA-256 of what r holds.
func HashReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
