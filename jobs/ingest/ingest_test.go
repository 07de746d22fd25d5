package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

// setup writes files into a temp dir and a config whose sources follow.
func setup(t *testing.T, files map[string][]byte, sources string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	y := "run: t\nroot: data\nlog: {progress_seconds: 0}\ningest:\n  max_text_bytes: 200\n  sources:\n" + sources
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, Section)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runShards runs every map shard of ingest, then its reduce, and returns
// all problems and rejects (one part each, whatever the shard count).
func runShards(t *testing.T, cfg *config.Config, n int) ([]dataset.Problem, []dataset.Reject, error) {
	t.Helper()
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		spec := shard.Spec{Index: i, Count: n}
		if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], spec, root, zerolog.Nop(), stage.Options{}); err != nil {
			return nil, nil, err
		}
	}
	one := shard.Spec{Index: 0, Count: 1}
	if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[1], one, root, zerolog.Nop(), stage.Options{}); err != nil {
		return nil, nil, err
	}
	probs, err := dataset.Read[dataset.Problem](ctx, root, layout.DataKey(cfg.Run, "problems", one))
	if err != nil {
		t.Fatal(err)
	}
	rejs, err := dataset.Read[dataset.Reject](ctx, root, layout.DataKey(cfg.Run, "rejects", one))
	if err != nil {
		t.Fatal(err)
	}
	return probs, rejs, nil
}

const plainSource = `    - name: plain
      paths: [in.jsonl]
      source: official
      fields: {id: uid}
`

func TestRejectsEveryBadRow(t *testing.T) {
	lines := []string{
		`{"uid": "a", "statement": "Find x.", "solution": "x = 1."}`,
		`{"uid": "b", "statement": "Find y.", "solution": ""}`,                              // empty solution
		`{"uid": "c", "statement": "Find z."}`,                                              // missing solution
		`{"uid": "d", "statement": "Find w.", "solution": {"x": 1}}`,                        // wrong type
		`{"uid": "a", "statement": "Again.", "solution": "Dup."}`,                           // duplicate id
		`{"uid": "e", "statement": "` + strings.Repeat("long ", 50) + `", "solution": "s"}`, // oversize
		"{\"uid\": \"f\", \"statement\": \"bad \xff\xfe bytes\", \"solution\": \"s\"}",      // invalid UTF-8
		`{"uid": 17, "statement": "Numeric id.", "solution": "ok"}`,                         // numeric id is fine
		`{"statement": "No id.", "solution": "Hash id."}`,                                   // id from content
		`{"uid": "g", "statement": "Truncated", "solu`,                                      // truncated last line
	}
	// Most of these rows are bad on purpose: let the source through.
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(strings.Join(lines, "\n"))}, plainSource+"      max_reject_share: 0.8\n")
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range probs {
		ids = append(ids, p.ID)
	}
	if got := strings.Join(ids, ","); got != "17,a,"+hashID(sha256.New(), "official", "No id.", "Hash id.") {
		t.Errorf("problems %s", got)
	}
	want := []struct {
		line          int64
		reason, field string
	}{
		{2, dataset.ReasonEmpty, "solution"},
		{3, dataset.ReasonMissingField, "solution"},
		{4, dataset.ReasonWrongType, "solution"},
		{5, dataset.ReasonDuplicateID, "uid"},
		{6, dataset.ReasonOversize, "statement"},
		{7, dataset.ReasonInvalidUTF8, "statement"},
		{10, dataset.ReasonMalformed, ""},
	}
	if len(rejs) != len(want) {
		t.Fatalf("got %d rejects: %+v", len(rejs), rejs)
	}
	for i, w := range want {
		r := rejs[i]
		if r.Line != w.line || r.Reason != w.reason || r.Field != w.field || r.File != "in.jsonl" || r.Input != "plain" {
			t.Errorf("reject %d = %+v, want line %d %s %s", i, r, w.line, w.reason, w.field)
		}
	}
	if !strings.Contains(rejs[3].Detail, "in.jsonl:1") {
		t.Errorf("duplicate detail %q does not name the first occurrence", rejs[3].Detail)
	}
}

func TestShardCountDoesNotChangeRows(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, `{"uid": "id%03d", "statement": "Problem %d.", "solution": "Answer %d."}`+"\n", (i*37)%50, i, i)
		if i%7 == 0 {
			fmt.Fprintf(&b, `{"uid": "bad%d", "statement": "", "solution": "x"}`+"\n", i)
		}
	}
	body := []byte(b.String())
	p1, r1, err := runShards(t, setup(t, map[string][]byte{"in.jsonl": body}, plainSource), 1)
	if err != nil {
		t.Fatal(err)
	}
	p3, r3, err := runShards(t, setup(t, map[string][]byte{"in.jsonl": body}, plainSource), 3)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p1) != fmt.Sprint(p3) || fmt.Sprint(r1) != fmt.Sprint(r3) || len(p1) != 50 || len(r1) != 8 {
		t.Fatalf("1 shard: %d problems %d rejects; 3 shards: %d, %d", len(p1), len(r1), len(p3), len(r3))
	}
	for i := 1; i < len(p3); i++ {
		if p3[i-1].ID >= p3[i].ID {
			t.Fatalf("shard parts not contiguous in id order at %d", i)
		}
	}
}

func TestCompressedAndParquetSources(t *testing.T) {
	row := `{"problem": "P%d", "solution": "S%d", "source": "olympiads", "problem_type": "Algebra"}` + "\n"
	var plain bytes.Buffer
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&plain, row, i, i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.ReplaceAll(plain.String(), "P", "G")))
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	zs := enc.EncodeAll([]byte(strings.ReplaceAll(plain.String(), "P", "Z")), nil)
	// NuminaMath-style Parquet: problem, solution, source, problem_type.
	type numina struct {
		Problem     string `parquet:"problem"`
		Solution    string `parquet:"solution"`
		Source      string `parquet:"source"`
		ProblemType string `parquet:"problem_type,optional"`
	}
	var pq bytes.Buffer
	if err := parquet.Write(&pq, []numina{{"Q1", "A1", "olympiads", "Geometry"}, {"Q2", "", "olympiads", ""}, {"Q3", "A3", "amc", "Number Theory"}}); err != nil {
		t.Fatal(err)
	}
	sources := `    - name: numina
      paths: [n.jsonl, n.jsonl.gz, n.jsonl.zst, n.parquet]
      source: numina
      fields: {statement: problem, solution: solution, subject: problem_type, origin: source}
      subject_map: {Geometry: Geometry-mapped}
`
	cfg := setup(t, map[string][]byte{"n.jsonl": plain.Bytes(), "n.jsonl.gz": gz.Bytes(), "n.jsonl.zst": zs, "n.parquet": pq.Bytes()}, sources)
	probs, rejs, err := runShards(t, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	stmts := map[string]dataset.Problem{}
	for _, p := range probs {
		stmts[p.Statement] = p
	}
	for _, s := range []string{"P0", "P2", "G1", "Z2", "Q1", "Q3"} {
		if _, ok := stmts[s]; !ok {
			t.Errorf("statement %s missing", s)
		}
	}
	if len(probs) != 11 || len(rejs) != 1 || rejs[0].File != "n.parquet" || rejs[0].Line != 2 || rejs[0].Reason != dataset.ReasonEmpty {
		t.Fatalf("%d problems, rejects %+v", len(probs), rejs)
	}
	if p := stmts["Q1"]; p.Subject != "Geometry-mapped" || p.Origin != "olympiads" || p.Source != "numina" || len(p.ID) != 16 {
		t.Errorf("Q1 = %+v", p)
	}
}

func TestBadFilesAreBadInput(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(`{"statement": "s", "solution": "t"}`+"\n", 500)))
	zw.Close()
	truncated := gz.Bytes()[:gz.Len()/2]
	tests := []struct {
		name  string
		files map[string][]byte
		paths string
		want  string
	}{
		{"empty file", map[string][]byte{"e.jsonl": nil}, "[e.jsonl]", "e.jsonl: empty file"},
		{"blank lines only", map[string][]byte{"e.jsonl": []byte("\n\n")}, "[e.jsonl]", "e.jsonl: no rows"},
		{"not parquet", map[string][]byte{"x.parquet": []byte("hello, I am text pretending")}, "[x.parquet]", "not a Parquet file"},
		{"truncated gzip", map[string][]byte{"t.jsonl.gz": truncated}, "[t.jsonl.gz]", "t.jsonl.gz: read after line"},
		{"no match", map[string][]byte{}, "[nothing*.jsonl]", "matched no files"},
		{"unknown format", map[string][]byte{"a.csv": []byte("x")}, "[a.csv]", "cannot tell the format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := setup(t, tt.files, "    - name: s\n      paths: "+tt.paths+"\n")
			_, _, err := runShards(t, cfg, 1)
			if err == nil || !strings.Contains(err.Error(), tt.want) || stage.ExitCode(err) != stage.ExitBadInput {
				t.Fatalf("err = %v (exit %d), want %q and exit 2", err, stage.ExitCode(err), tt.want)
			}
		})
	}
	// A Parquet file without the statement column names the column.
	type other struct {
		Question string `parquet:"question"`
	}
	var pq bytes.Buffer
	parquet.Write(&pq, []other{{"q"}})
	cfg := setup(t, map[string][]byte{"o.parquet": pq.Bytes()}, "    - name: s\n      paths: [o.parquet]\n")
	_, _, err := runShards(t, cfg, 1)
	if err == nil || !strings.Contains(err.Error(), `column "statement" (field statement) missing; columns: question`) || stage.ExitCode(err) != 2 {
		t.Fatalf("missing column: %v", err)
	}
}

func TestMATHFiles(t *testing.T) {
	dir, err := filepath.Abs("../../../shared/data/math")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MATH_train.jsonl")); err != nil {
		t.Skipf("MATH data not present at %s", dir)
	}
	src := fmt.Sprintf(`    - name: math
      paths: [%s/MATH_*.jsonl]
      source: official
      license: MIT
      fields: {id: unique_id, statement: problem, solution: solution, subject: type}
`, dir)
	cfg := setup(t, nil, src)
	Section.Of(cfg).MaxTextBytes = 1 << 20
	probs, rejs, err := runShards(t, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs)+len(rejs) != 12500 {
		t.Fatalf("%d problems + %d rejects != 12500 rows", len(probs), len(rejs))
	}
	t.Logf("MATH: %d problems, %d rejects", len(probs), len(rejs))
}

// TestManifestRecordsSourceFiles: every manifest of an ingest shard (one
// per output dataset) records each raw source file it read — its URI, the
// SHA-256 and size of its bytes as stored (a compressed file hashes
// compressed) — as a file outside the run (no dataset, no key), and the
// configuration that determined its bytes without the operational
// shard count.
func TestManifestRecordsSourceFiles(t *testing.T) {
	plain := []byte(`{"uid": "a", "statement": "Find x.", "solution": "x = 1."}` + "\n" + `{"uid": "b", "statement": "", "solution": "y"}` + "\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"uid": "c", "statement": "Find z.", "solution": "z = 3."}` + "\n"))
	zw.Close()
	files := map[string][]byte{"in.jsonl": plain, "more.jsonl.gz": gz.Bytes()}
	cfg := setup(t, files, `    - name: plain
      paths: [in.jsonl, more.jsonl.gz]
      source: official
      fields: {id: uid}
`)
	if _, _, err := runShards(t, cfg, 2); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	// Each map shard reads one of the two files (plan balances them by
	// bytes) and records the other by its size alone, as unread: the plan
	// is made from every size, so a change of any makes every shard stale.
	var whole []layout.Object
	for _, name := range []string{"in.jsonl", "more.jsonl.gz"} {
		sum := sha256.Sum256(files[name])
		whole = append(whole, layout.Object{URI: filepath.Join(cfg.Dir(), name), SHA256: fmt.Sprintf("%x", sum), Size: int64(len(files[name]))})
	}
	for i := 0; i < 2; i++ {
		spec := shard.Spec{Index: i, Count: 2}
		want := []layout.Object{whole[0], whole[1]}
		want[1-i] = layout.Object{URI: want[1-i].URI, Size: want[1-i].Size, Unread: true}
		var hashes []string
		for _, ds := range []string{"ingest_rows", "ingest_problems", "ingest_spans"} {
			m, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, ds, spec))
			if err != nil {
				t.Fatalf("%s %s: %v", ds, spec, err)
			}
			info, _ := dataset.Lookup(ds)
			if m.Dataset != ds || m.Format != info.Version || m.Stage != "ingest" || m.Spec() != spec {
				t.Errorf("%s %s: manifest of dataset %q format %d stage %q shard %s", ds, spec, m.Dataset, m.Format, m.Stage, m.Spec())
			}
			if fmt.Sprint(m.Inputs) != fmt.Sprint(want) {
				t.Errorf("%s %s: inputs\n%+v\nwant\n%+v", ds, spec, m.Inputs, want)
			}
			if m.InputsHash != stage.InputsHash(want) {
				t.Errorf("%s %s: inputs hash %s, want %s", ds, spec, m.InputsHash, stage.InputsHash(want))
			}
			if got := m.Config["ingest.max_text_bytes"]; got != "200" {
				t.Errorf("%s %s: config ingest.max_text_bytes = %q, want 200", ds, spec, got)
			}
			if got := m.Config["ingest.sources[0].paths"]; got != `["in.jsonl","more.jsonl.gz"]` {
				t.Errorf("%s %s: config ingest.sources[0].paths = %q", ds, spec, got)
			}
			if _, ok := m.Config["ingest.shards"]; ok {
				t.Errorf("%s %s: the shard count is recorded as config: %v", ds, spec, m.Config)
			}
			if m.ConfigHash != config.HashValues(m.Config) || m.Hash == "" {
				t.Errorf("%s %s: config hash %s of %v, hash %q", ds, spec, m.ConfigHash, m.Config, m.Hash)
			}
			if len(m.Outputs) != 3 || m.Rows != m.Objects(ds)[0].Rows {
				t.Errorf("%s %s: outputs %+v, rows %d", ds, spec, m.Outputs, m.Rows)
			}
			hashes = append(hashes, m.Hash)
		}
		if hashes[0] != hashes[1] || hashes[0] != hashes[2] {
			t.Errorf("%s: the ingest_rows, ingest_problems and ingest_spans manifests differ in hash: %v", spec, hashes)
		}
	}
	// The reduce reads only the staging datasets.
	m, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range m.Inputs {
		if in.Dataset != "ingest_rows" && in.Dataset != "ingest_problems" && in.Dataset != "ingest_spans" {
			t.Errorf("reduce input %+v, want only staging parts", in)
		}
	}
}

// TestChangedSourceFileIsStale: a done ingest shard whose source file has
// grown since it was read, or whose config changed, is refused as stale
// (exit 2, naming what changed) rather than served; unchanged, it is
// skipped.
func TestChangedSourceFileIsStale(t *testing.T) {
	body := []byte(`{"uid": "a", "statement": "Find x.", "solution": "x = 1."}` + "\n")
	cfg := setup(t, map[string][]byte{"in.jsonl": body}, plainSource)
	if _, _, err := runShards(t, cfg, 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	one := shard.Spec{Index: 0, Count: 1}
	res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if err != nil || !res.Skipped {
		t.Fatalf("unchanged rerun: %+v, %v; want skipped", res, err)
	}

	Section.Of(cfg).MaxTextBytes = 300
	_, err = stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	var stale *stage.StaleError
	if !errors.As(err, &stale) || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "ingest.max_text_bytes: 200 → 300") {
		t.Fatalf("changed max_text_bytes: %v; want a stale error naming the key", err)
	}
	Section.Of(cfg).MaxTextBytes = 200

	src := filepath.Join(cfg.Dir(), "in.jsonl")
	if err := os.WriteFile(src, append(body, `{"uid": "b", "statement": "Find y.", "solution": "y = 2."}`+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if !errors.As(err, &stale) || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "input file "+src+" changed") {
		t.Fatalf("grown source file: %v; want a stale error naming the file", err)
	}
	res, err = stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{Force: true})
	if err != nil || res.Skipped || res.Manifest.Rows != 2 {
		t.Fatalf("--force after the change: %+v, %v; want 2 problems", res, err)
	}
}

// TestFolderSource: a source path naming a folder reads every file under
// it, in key order, and names them in rejects relative to the config's
// folder, as a glob's matches are named.
func TestFolderSource(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "in", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"in/b.jsonl":     `{"uid": "b", "statement": "Find b.", "solution": "b"}` + "\n",
		"in/sub/a.jsonl": `{"uid": "a", "statement": "Find a.", "solution": "a"}` + "\n" + `{"uid": "c", "statement": "", "solution": "c"}` + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	y := "run: t\nroot: data\nlog: {progress_seconds: 0}\ningest:\n  sources:\n    - {name: f, paths: [in], fields: {id: uid}}\n"
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p, Section)
	if err != nil {
		t.Fatal(err)
	}
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 2 || probs[0].ID != "a" || probs[1].ID != "b" {
		t.Errorf("problems %+v", probs)
	}
	if len(rejs) != 1 || rejs[0].File != "in/sub/a.jsonl" || rejs[0].Line != 2 {
		t.Errorf("rejects %+v, want in/sub/a.jsonl line 2", rejs)
	}
	ctx := context.Background()
	root, _ := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	m, err := layout.ReadDone(ctx, root, layout.DoneKey("t", "ingest_rows", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Inputs) != 2 || !strings.HasSuffix(m.Inputs[0].URI, "in/b.jsonl") || !strings.HasSuffix(m.Inputs[1].URI, "in/sub/a.jsonl") ||
		m.Inputs[0].Size != int64(len(files["in/b.jsonl"])) {
		t.Errorf("inputs %+v", m.Inputs)
	}
	for _, in := range m.Inputs {
		if _, err := layout.OpenFile(ctx, in.URI, cfg.Storage); err != nil {
			t.Errorf("recorded %s cannot be reopened: %v", in.URI, err)
		}
	}
}

// TestFileNamedTwice: a file that two of a source's paths name — a file
// and a glob, or a folder and a file in it — is read once, in the place
// of the first pattern that names it (its rows win duplicate ids), and
// the map shard warns naming both patterns: never its rows twice, each
// a duplicate_id of itself.
func TestFileNamedTwice(t *testing.T) {
	files := map[string]string{
		"in/a.jsonl": `{"uid": "a1", "statement": "Find a1.", "solution": "a"}` + "\n" + `{"uid": "x", "statement": "From a.", "solution": "a"}` + "\n",
		"in/b.jsonl": `{"uid": "b1", "statement": "Find b1.", "solution": "b"}` + "\n" + `{"uid": "x", "statement": "From b.", "solution": "b"}` + "\n",
	}
	for _, tt := range []struct {
		paths, file, first, again string
		wantX                     string // the statement of id x: the first file read wins
	}{
		{`[in/b.jsonl, "in/*.jsonl"]`, "in/b.jsonl", "in/b.jsonl", "in/*.jsonl", "From b."},
		{`["in/*.jsonl", in/a.jsonl]`, "in/a.jsonl", "in/*.jsonl", "in/a.jsonl", "From a."},
		{`[in/b.jsonl, in]`, "in/b.jsonl", "in/b.jsonl", "in", "From b."}, // a folder's files come back as file:// URIs
		{`[in/b.jsonl, ./in/../in/b.jsonl, in/a.jsonl]`, "in/b.jsonl", "in/b.jsonl", "./in/../in/b.jsonl", "From b."},
	} {
		t.Run(tt.paths, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
				t.Fatal(err)
			}
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			y := "run: t\nroot: data\nlog: {progress_seconds: 0}\ningest:\n  sources:\n    - {name: f, paths: " + tt.paths + ", fields: {id: uid}}\n"
			p := filepath.Join(dir, "run.yaml")
			if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(p, Section)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			root, _ := store.Open(ctx, cfg.RootURI(), cfg.Storage)
			var log bytes.Buffer
			if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.New(&log), stage.Options{}); err != nil {
				t.Fatal(err)
			}
			probs, rejs, err := runShards(t, cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) != 3 {
				t.Errorf("problems %+v, want a1, b1, x", probs)
			}
			for _, pr := range probs {
				if pr.ID == "x" && pr.Statement != tt.wantX {
					t.Errorf("x is %q, want %q (the first pattern's file wins)", pr.Statement, tt.wantX)
				}
			}
			if len(rejs) != 1 || rejs[0].Reason != dataset.ReasonDuplicateID {
				t.Errorf("rejects %+v, want only x's second occurrence", rejs)
			}
			if st := summedStats(t, cfg); st["rows_read"] != 4 {
				t.Errorf("rows_read = %d, want 4 (each file once)", st["rows_read"])
			}
			want := fmt.Sprintf(`"source":"f","file":%q,"first":%q,"again":%q,"message":"file named by two paths of the source: read once, in the place of the first"`, tt.file, tt.first, tt.again)
			if !strings.Contains(log.String(), want) {
				t.Errorf("log has no warning %s:\n%s", want, log.String())
			}
		})
	}
}

// TestFileOfTwoSources: two sources may read one file, each with its own
// where: filter, name and licence: each reads it whole (an overlap would
// be a duplicate_id reject, never a silent drop).
func TestFileOfTwoSources(t *testing.T) {
	lines := `{"uid": "1", "statement": "Q1", "solution": "S1", "split": "train"}` + "\n" +
		`{"uid": "2", "statement": "Q2", "solution": "S2", "split": "test"}` + "\n" +
		`{"uid": "3", "statement": "Q3", "solution": "S3", "split": "test"}` + "\n"
	for _, n := range []int{1, 2} {
		cfg := setup(t, map[string][]byte{"in.jsonl": []byte(lines)},
			"    - {name: train, paths: [in.jsonl], fields: {id: uid}, id_prefix: \"tr/\", where: [{field: split, is: train}]}\n"+
				"    - {name: test, paths: [in.jsonl], fields: {id: uid}, id_prefix: \"te/\", where: [{field: split, is: test}]}\n")
		probs, rejs, err := runShards(t, cfg, n)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(probs); got != "te/2,te/3,tr/1" || len(rejs) != 0 {
			t.Errorf("%d shards: problems %s, rejects %+v; want te/2,te/3,tr/1 and none", n, got, rejs)
		}
		if st := summedStats(t, cfg); st["rows_read"] != 3 || st["filtered"] != 3 {
			t.Errorf("%d shards: rows_read %d, filtered %d; want 3 and 3", n, st["rows_read"], st["filtered"])
		}
	}
}

// TestTermsAndAoPS: a mixed dump whose rows name their own source gives
// the rows of a source listed under terms: that source's licence and
// flag, the others the entry's; and every aops row is flagged no_training
// (App. A.8), through terms: or without them, in a mixed dump or in a
// source entry that is aops itself.
func TestTermsAndAoPS(t *testing.T) {
	mixed := `{"uid": "n1", "problem": "P1", "solution": "S1", "src": "numina"}
{"uid": "a1", "problem": "P2", "solution": "S2", "src": "aops"}
{"uid": "o1", "problem": "P3", "solution": "S3"}
`
	for _, tt := range []struct {
		name, sources string
		want          map[string]string // id → "license no_training"
	}{
		{"terms", `    - name: mix
      paths: [mix.jsonl]
      source: official
      license: Apache-2.0
      fields: {id: uid, statement: problem, solution: solution, source: src}
      terms: {aops: {license: AoPS terms of use, no_training: true}}
`, map[string]string{"n1": "Apache-2.0 false", "a1": "AoPS terms of use true", "o1": "Apache-2.0 false"}},
		{"aops rows without terms", `    - name: mix
      paths: [mix.jsonl]
      source: official
      license: Apache-2.0
      fields: {id: uid, statement: problem, solution: solution, source: src}
`, map[string]string{"n1": "Apache-2.0 false", "a1": "Apache-2.0 true", "o1": "Apache-2.0 false"}},
		{"an aops entry without no_training", `    - name: mix
      paths: [mix.jsonl]
      source: aops
      license: AoPS terms of use
      fields: {id: uid, statement: problem, solution: solution}
`, map[string]string{"n1": "AoPS terms of use true", "a1": "AoPS terms of use true", "o1": "AoPS terms of use true"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := setup(t, map[string][]byte{"mix.jsonl": []byte(mixed)}, tt.sources)
			probs, rejs, err := runShards(t, cfg, 2)
			if err != nil || len(rejs) != 0 {
				t.Fatalf("err %v, rejects %+v", err, rejs)
			}
			got := map[string]string{}
			for _, p := range probs {
				got[p.ID] = fmt.Sprintf("%s %v", p.License, p.NoTraining)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("terms by id: %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExcludeCountsUnmatchedIDs: an ingest.exclude id no row has (a typo)
// excludes nothing, and the reduce says so: it is counted in the manifest
// (and logged with the ids), where the matched one is a reject.
func TestExcludeCountsUnmatchedIDs(t *testing.T) {
	rows := `{"uid": "a1", "problem": "P1", "solution": "S1"}
{"uid": "a2", "problem": "P2", "solution": "S2"}
`
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(rows)}, `    - name: s
      paths: [in.jsonl]
      fields: {id: uid, statement: problem, solution: solution}
  exclude: [a1, a1x, a1x]
`)
	probs, rejs, err := runShards(t, cfg, 2)
	if err != nil || len(probs) != 1 || len(rejs) != 1 || rejs[0].Reason != dataset.ReasonExcluded {
		t.Fatalf("err %v, %d problems, rejects %+v", err, len(probs), rejs)
	}
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	m, err := layout.ReadDone(ctx, root, layout.DoneKey(cfg.Run, "problems", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats["exclude_unmatched"] != 1 {
		t.Errorf("exclude_unmatched = %d, want 1 (a1x, listed twice)", m.Stats["exclude_unmatched"])
	}
}

// TestPlaceholderIDIsNoID: corpora write "N/A" or "null" where a row has
// no id; such an id is no id (the content hash), not a real id that makes
// every later row with it a duplicate_id reject. Exploded rows too.
func TestPlaceholderIDIsNoID(t *testing.T) {
	rows := `{"uid": "N/A", "problem": "P1", "solution": "S1"}
{"uid": " null ", "problem": "P2", "solution": "S2"}
{"uid": "-", "problem": "P3", "solution": ["S3a", "S3b"]}
{"uid": "r4", "problem": "P4", "solution": "S4"}
`
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(rows)}, `    - name: s
      paths: [in.jsonl]
      fields: {id: uid, statement: problem, solution: solution}
      lists: {solution: explode}
`)
	probs, rejs, err := runShards(t, cfg, 2)
	if err != nil || len(rejs) != 0 || len(probs) != 5 {
		t.Fatalf("err %v, %d problems, rejects %+v; want 5 problems", err, len(probs), rejs)
	}
	for _, p := range probs {
		if p.Statement != "P4" && (len(p.ID) != 16 || strings.ContainsAny(p.ID, "#/N")) {
			t.Errorf("problem %q has id %q, want its content hash", p.Statement, p.ID)
		}
	}
}

// TestListForALabel: a list of several values mapped to a one-line label
// (subject, origin) is a wrong_type reject that says it is a list and how
// to take one element, not a control character (the join's line feed); a
// list of one is its value.
func TestListForALabel(t *testing.T) {
	rows := `{"uid": "l1", "problem": "P1", "solution": "S1", "tags": ["Algebra", "Geometry"]}
{"uid": "l2", "problem": "P2", "solution": "S2", "tags": ["Algebra"]}
`
	cfg := setup(t, map[string][]byte{"in.jsonl": []byte(rows)}, `    - name: s
      paths: [in.jsonl]
      max_reject_share: 1
      fields: {id: uid, statement: problem, solution: solution, subject: tags}
`)
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil || len(probs) != 1 || probs[0].Subject != "Algebra" || len(rejs) != 1 {
		t.Fatalf("err %v, problems %+v, rejects %+v", err, probs, rejs)
	}
	if r := rejs[0]; r.ID != "l1" || r.Reason != dataset.ReasonWrongType || !strings.Contains(r.Detail, "a list of 2 values; subject takes one (map one element, subject: tags[0])") {
		t.Errorf("reject %+v", r)
	}
}
