package extread

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
)

// write writes rows of d with saber's own writer (parquet-go, zstd) into a
// temporary folder and returns the file's path.
func write[T any](t *testing.T, d dataset.Dataset[T], rows []T) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := d.Name + "/part-00000-of-00001.parquet"
	if _, err := d.Write(context.Background(), st, key, rows); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.FromSlash(key))
}

func TestDuckDBReadsProblems(t *testing.T) {
	db := NewDuckDB(t)
	// More rows than a row group (50,000) holds, so the file has two.
	const n = 60_001
	rows := make([]dataset.Problem, n)
	for i := range rows {
		rows[i] = dataset.Problem{ID: fmt.Sprintf("p%06d", i), Source: dataset.Sources[i%4], Statement: fmt.Sprintf("Find $x_%d$.", i),
			Subject: "Algebra", NoTraining: i%3 == 0}
	}
	// Values a writer or a reader could get wrong.
	rows[0] = dataset.Problem{ID: "p000000", Source: "official", Statement: "Ünïcode ∑ \"quoted\" 'single'\nsecond line\ttab",
		Solution: "$\\frac{1}{2}$ \\\\ ∎", Subject: "Number Theory", License: "CC BY 4.0", Origin: "MATH/test", NoTraining: true}
	rows[1].Solution = ""
	file := write(t, dataset.Problems, rows)

	got, err := db.Count(file)
	if err != nil || got != n {
		t.Fatalf("Count = %d, %v; want %d", got, err, n)
	}
	sample, err := db.Rows(file, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(sample) != 3 {
		t.Fatalf("Rows(3) gave %d rows", len(sample))
	}
	for i, r := range sample {
		want := map[string]any{"id": rows[i].ID, "source": rows[i].Source, "statement": rows[i].Statement, "solution": rows[i].Solution,
			"subject": rows[i].Subject, "license": rows[i].License, "origin": rows[i].Origin, "no_training": rows[i].NoTraining}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("row %d:\n got %#v\nwant %#v", i, r, want)
		}
	}
	// A row of the second row group, and a sum over all of them.
	last, err := db.Query("SELECT id, statement, no_training FROM " + readParquet(file) + " WHERE id = 'p060000'")
	if err != nil {
		t.Fatal(err)
	}
	if want := []map[string]any{{"id": "p060000", "statement": "Find $x_60000$.", "no_training": true}}; !reflect.DeepEqual(last, want) {
		t.Errorf("second row group: got %v, want %v", last, want)
	}
	agg, err := db.Query("SELECT count(*) FILTER (WHERE no_training) AS flagged, count(DISTINCT source) AS sources FROM " + readParquet(file))
	if err != nil {
		t.Fatal(err)
	}
	if want := []map[string]any{{"flagged": int64(20_001), "sources": int64(4)}}; !reflect.DeepEqual(agg, want) {
		t.Errorf("aggregate: got %v, want %v", agg, want)
	}
}

func TestDuckDBReadsListsAndFloats(t *testing.T) {
	db := NewDuckDB(t)
	rows := []dataset.TopicRow{
		{ID: "b", Topics: []string{"Algebra > Linear equations", "Geometry"}, Scores: []float64{1, 0.1}, Domains: []string{"Algebra", "Geometry"},
			Domain: "Algebra", Backend: "lexical", Calls: 7},
		{ID: "a", Topics: []string{}, Scores: nil, Domains: []string{}, Domain: "", Backend: "llm", Model: "m", PromptVersion: "v1", Calls: 0},
		{ID: "c", Topics: []string{"Number Theory > Primes"}, Scores: []float64{0.8500000000000001}, Domains: []string{"Number Theory"},
			Domain: "Number Theory", Calls: math.MaxInt32},
	}
	file := write(t, dataset.Topics, rows)
	got, err := db.Rows(file, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"id": "a", "topics": []any{}, "scores": []any{}, "domains": []any{}, "domain": "", "backend": "llm", "model": "m", "prompt_version": "v1", "calls": int64(0)},
		{"id": "b", "topics": []any{"Algebra > Linear equations", "Geometry"}, "scores": []any{1.0, 0.1}, "domains": []any{"Algebra", "Geometry"},
			"domain": "Algebra", "backend": "lexical", "model": "", "prompt_version": "", "calls": int64(7)},
		{"id": "c", "topics": []any{"Number Theory > Primes"}, "scores": []any{0.8500000000000001}, "domains": []any{"Number Theory"},
			"domain": "Number Theory", "backend": "", "model": "", "prompt_version": "", "calls": int64(math.MaxInt32)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %#v\nwant %#v", got, want)
	}
	// DuckDB sees the list columns as lists, not strings.
	types, err := db.Query("SELECT typeof(topics) AS t, typeof(scores) AS s, len(topics) AS n FROM " + readParquet(file) + " WHERE id = 'b'")
	if err != nil {
		t.Fatal(err)
	}
	if want := []map[string]any{{"t": "VARCHAR[]", "s": "DOUBLE[]", "n": int64(2)}}; !reflect.DeepEqual(types, want) {
		t.Errorf("types: got %v, want %v", types, want)
	}
}

// Integers past 2^53 (int64) and past MaxInt64 (uint64) arrive exactly.
func TestDuckDBReadsBigIntegers(t *testing.T) {
	db := NewDuckDB(t)
	sig := write(t, dataset.Signatures, []dataset.Signature{{ID: "x", Source: "aops", Shingles: 3, MinHash: []uint64{1, 1<<63 + 5, math.MaxUint64}}})
	got, err := db.Rows(sig, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{"id": "x", "source": "aops", "shingles": int64(3), "minhash": []any{int64(1), uint64(1<<63 + 5), uint64(math.MaxUint64)}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("signatures:\n got %#v\nwant %#v", got, want)
	}
	rej := write(t, dataset.Rejects, []dataset.Reject{{Input: "in", File: "f.jsonl", Line: 1<<60 + 1, Reason: dataset.ReasonMalformed}})
	got, err = db.Rows(rej, 1)
	if err != nil {
		t.Fatal(err)
	}
	if line := got[0]["line"]; line != int64(1<<60+1) {
		t.Errorf("line = %#v, want %d", line, int64(1<<60+1))
	}
}

func TestDuckDBQueryTypes(t *testing.T) {
	db := NewDuckDB(t)
	got, err := db.Query(`SELECT 1::INTEGER AS i, 2.0::DOUBLE AS d, 1.25::DECIMAL(10,2) AS dc, NULL AS n, [1, 2] AS l,
		{'a': 'x', 'b': [1.5]} AS s, DATE '2024-01-02' AS dt, 170141183460469231731687303715884105727::HUGEINT AS huge,
		'NaN'::DOUBLE AS nan, '-inf'::DOUBLE AS ninf, 1e300 AS e, true AS b, 'it''s' AS q`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d rows", len(got))
	}
	r := got[0]
	if f, ok := r["nan"].(float64); !ok || !math.IsNaN(f) {
		t.Errorf("nan = %#v", r["nan"])
	}
	if f, ok := r["ninf"].(float64); !ok || !math.IsInf(f, -1) {
		t.Errorf("ninf = %#v", r["ninf"])
	}
	delete(r, "nan")
	delete(r, "ninf")
	want := map[string]any{"i": int64(1), "d": 2.0, "dc": 1.25, "n": nil, "l": []any{int64(1), int64(2)},
		"s": map[string]any{"a": "x", "b": []any{1.5}}, "dt": "2024-01-02", "huge": "170141183460469231731687303715884105727",
		"e": 1e300, "b": true, "q": "it's"}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("row:\n got %#v\nwant %#v", r, want)
	}
}

func TestDuckDBErrors(t *testing.T) {
	db := NewDuckDB(t)
	if _, err := db.Query("SELEC 1"); err == nil || !strings.Contains(err.Error(), "syntax error") {
		t.Errorf("bad SQL: err = %v", err)
	}
	missing := filepath.Join(t.TempDir(), "it's missing.parquet")
	if _, err := db.Count(missing); err == nil || !strings.Contains(err.Error(), "it's missing.parquet") {
		t.Errorf("missing file: err = %v", err)
	}
	// A file that is not Parquet is refused by DuckDB, not read as empty.
	notParquet := filepath.Join(t.TempDir(), "x.parquet")
	st, _ := store.Open(context.Background(), filepath.Dir(notParquet), store.Options{})
	if _, err := store.Put(context.Background(), st, "x.parquet", []byte("not parquet"), store.Replace); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Rows(notParquet, 1); err == nil {
		t.Error("a file that is not Parquet was read")
	}
}
