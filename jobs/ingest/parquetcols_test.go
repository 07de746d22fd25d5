package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/saber-math/saber/jobs/stage"
)

// pqStructs is rows written as Parquet, their schema from T's tags.
func pqStructs[T any](t *testing.T, rows ...T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pqRows is rows of schema written as Parquet, each row its leveled
// values: for the files a Go struct cannot describe (a column named
// with a dot, a NULL list, an annotation older writers left).
func pqRows(t *testing.T, schema *parquet.Schema, rows ...parquet.Row) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewWriter(&b, schema)
	if _, err := w.WriteRows(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pqColumnIndex is the index of the leaf column on path.
func pqColumnIndex(t *testing.T, schema *parquet.Schema, path ...string) int {
	t.Helper()
	leaf, ok := schema.Lookup(path...)
	if !ok {
		t.Fatalf("no column %v in %v", path, schema.Columns())
	}
	return leaf.ColumnIndex
}

// pqRow orders values by column, as a row must be.
func pqRow(vals ...parquet.Value) parquet.Row {
	slices.SortStableFunc(vals, func(a, b parquet.Value) int { return a.Column() - b.Column() })
	return vals
}

// TestParquetLogicalTypes: an unsigned integer column reads as its
// unsigned value; a column whose logical (or, in an older file,
// converted) type makes its stored values something other than text or
// an integer is exit 2, naming the column, the field, its type and the
// cast that fixes it, rather than its stored values taken as text.
func TestParquetLogicalTypes(t *testing.T) {
	type ints struct {
		ID       uint64 `parquet:"id"`
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
		Count    uint32 `parquet:"count"`
		Small    int8   `parquet:"small"`
		Tiny     uint8  `parquet:"tiny"`
	}
	pq := pqStructs(t, ints{18446744073709551615, "P1", "S1", 4294967295, -5, 255}, ints{7, "P2", "S2", 1, 5, 1})
	src := "    - {name: u, paths: [in.parquet], fields: {id: id, statement: problem, solution: solution, subject: count}, template: {origin: \"{small}/{tiny}\"}}\n"
	probs, rejs, err := runShards(t, setup(t, map[string][]byte{"in.parquet": pq}, src), 1)
	if err != nil || len(rejs) != 0 || ids(probs) != "18446744073709551615,7" {
		t.Fatalf("unsigned: %s, %+v, %v", ids(probs), rejs, err)
	}
	for _, p := range probs {
		if p.ID == "18446744073709551615" && (p.Subject != "4294967295" || p.Origin != "-5/255") {
			t.Errorf("unsigned: %+v", p)
		}
	}

	type decimal struct {
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
		X        int32  `parquet:"x,decimal(2:9)"`
	}
	type decimal64 struct {
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
		X        int64  `parquet:"x,decimal(3:18)"`
	}
	type date struct {
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
		X        int32  `parquet:"x,date"`
	}
	type timestamp struct {
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
		X        int64  `parquet:"x,timestamp(millisecond)"`
	}
	type jsonText struct {
		Problem  string `parquet:"problem"`
		Solution string `parquet:"solution"`
		X        string `parquet:"x,json"`
	}
	type uuid struct {
		Problem  string   `parquet:"problem"`
		Solution string   `parquet:"solution"`
		X        [16]byte `parquet:"x,uuid"`
	}
	// A file whose column x has the type given.
	withX := func(x parquet.Node, v parquet.Value) []byte {
		schema := parquet.NewSchema("row", parquet.Group{
			"problem":  parquet.String(),
			"solution": parquet.String(),
			"x":        x,
		})
		return pqRows(t, schema, pqRow(
			parquet.ByteArrayValue([]byte("P1")).Level(0, 0, pqColumnIndex(t, schema, "problem")),
			parquet.ByteArrayValue([]byte("S1")).Level(0, 0, pqColumnIndex(t, schema, "solution")),
			v.Level(0, 0, pqColumnIndex(t, schema, "x"))))
	}
	// An older writer's file: a converted type and no logical type.
	old := func(physical parquet.Type, ct deprecated.ConvertedType, x parquet.Value) []byte {
		return withX(parquet.Leaf(annotated{physical, nil, &ct}), x)
	}
	// FLOAT16, which parquet-go reads as its bytes.
	float16 := withX(parquet.Leaf(annotated{parquet.FixedLenByteArrayType(2), &format.LogicalType{Value: &format.Float16Type{}}, nil}), parquet.FixedLenByteArrayValue([]byte{0x00, 0x3c}))
	refused := []struct {
		name, typ string
		file      []byte
	}{
		{"DECIMAL on INT32", "DECIMAL(9,2) (stored as INT32)", pqStructs(t, decimal{"P1", "S1", 1234})},
		{"DECIMAL on INT64", "DECIMAL(18,3) (stored as INT64)", pqStructs(t, decimal64{"P1", "S1", 1234})},
		{"DATE", "DATE (stored as INT32)", pqStructs(t, date{"P1", "S1", 19724})},
		{"TIMESTAMP", "TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS) (stored as INT64)", pqStructs(t, timestamp{"P1", "S1", 1704153600000})},
		{"JSON", "JSON (stored as BYTE_ARRAY)", pqStructs(t, jsonText{"P1", "S1", `"twelve"`})},
		{"UUID", "UUID (stored as FIXED_LEN_BYTE_ARRAY)", pqStructs(t, uuid{"P1", "S1", [16]byte{1}})},
		{"converted DATE", "DATE (stored as INT32)", old(parquet.Int32Type, deprecated.Date, parquet.Int32Value(19724))},
		{"converted DECIMAL", "DECIMAL (stored as INT32)", old(parquet.Int32Type, deprecated.Decimal, parquet.Int32Value(1234))},
		{"converted TIMESTAMP_MILLIS", "TIMESTAMP_MILLIS (stored as INT64)", old(parquet.Int64Type, deprecated.TimestampMillis, parquet.Int64Value(1704153600000))},
		{"converted JSON", "JSON (stored as BYTE_ARRAY)", old(parquet.ByteArrayType, deprecated.Json, parquet.ByteArrayValue([]byte(`"twelve"`)))},
		{"FLOAT16", "FLOAT16 (stored as FIXED_LEN_BYTE_ARRAY)", float16},
	}
	for _, tt := range refused {
		files := map[string][]byte{"in.parquet": tt.file}
		for _, use := range []struct{ config, field string }{
			{"fields: {statement: problem, solution: solution, subject: x}", "field subject"},
			{"fields: {statement: problem, solution: solution}, where: [{field: x, not: \"1\"}]", "field reference x"},
		} {
			_, _, err := runShards(t, setup(t, files, "    - {name: d, paths: [in.parquet], "+use.config+"}\n"), 1)
			want := `column "x" (` + use.field + `) has type ` + tt.typ + `, whose stored values are not its text; cast it to a string before ingest, e.g. in DuckDB CAST("x" AS VARCHAR)`
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, %s: %v (exit %d); want exit 2 with %s", tt.name, use.field, err, stage.ExitCode(err), want)
			}
		}
	}

	// A list of dates: the cast is to a list of strings.
	files := map[string][]byte{"in.parquet": withX(parquet.Repeated(parquet.Date()), parquet.Value{})}
	_, _, err = runShards(t, setup(t, files, "    - {name: d, paths: [in.parquet], fields: {statement: problem, solution: solution, subject: x}}\n"), 1)
	if want := `column "x" (field subject) has type DATE (stored as INT32), whose stored values are not its text; cast it to a string before ingest, e.g. in DuckDB CAST("x" AS VARCHAR[])`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("list of dates: %v; want %s", err, want)
	}

	// Converted types an older writer left for integers: unsigned reads
	// as unsigned, signed as signed.
	for _, tt := range []struct {
		ct   deprecated.ConvertedType
		x    parquet.Value
		phys parquet.Type
		want string
	}{
		{deprecated.Uint64, parquet.Int64Value(-1), parquet.Int64Type, "18446744073709551615"},
		{deprecated.Uint32, parquet.Int32Value(-1), parquet.Int32Type, "4294967295"},
		{deprecated.Int64, parquet.Int64Value(-1), parquet.Int64Type, "-1"},
		{deprecated.UTF8, parquet.ByteArrayValue([]byte("x1")), parquet.ByteArrayType, "x1"},
	} {
		files := map[string][]byte{"in.parquet": old(tt.phys, tt.ct, tt.x)}
		probs, _, err := runShards(t, setup(t, files, "    - {name: d, paths: [in.parquet], fields: {id: x, statement: problem, solution: solution}}\n"), 1)
		if err != nil || ids(probs) != tt.want {
			t.Errorf("converted type %d: ids %s, %v; want %s", tt.ct, ids(probs), err, tt.want)
		}
	}
}

// TestParquetNullType: a column of pyarrow's NULL type (what it writes
// for a column of nothing but nulls) is absent in every row, as JSON
// null is, not a type error.
func TestParquetNullType(t *testing.T) {
	schema := parquet.NewSchema("row", parquet.Group{
		"problem":  parquet.String(),
		"solution": parquet.String(),
		"answer":   parquet.Optional(parquet.Leaf(annotated{parquet.Int32Type, &format.LogicalType{Value: &format.NullType{}}, nil})),
	})
	var rows []parquet.Row
	for i := 1; i <= 2; i++ {
		rows = append(rows, pqRow(
			parquet.ByteArrayValue(fmt.Appendf(nil, "P%d", i)).Level(0, 0, pqColumnIndex(t, schema, "problem")),
			parquet.ByteArrayValue(fmt.Appendf(nil, "S%d", i)).Level(0, 0, pqColumnIndex(t, schema, "solution")),
			parquet.Value{}.Level(0, 0, pqColumnIndex(t, schema, "answer"))))
	}
	files := map[string][]byte{"in.parquet": pqRows(t, schema, rows...)}
	src := "    - {name: n, paths: [in.parquet], fields: {statement: problem, subject: answer}, template: {solution: \"{solution} ({answer})\"}, max_reject_share: 1}\n"
	// Every row is then a missing_field reject, which stops ingest.
	if _, _, err := runShards(t, setup(t, files, src), 1); err == nil || !strings.Contains(err.Error(), `all 2 rejected; commonest reason missing_field (2 rows), e.g. in.parquet:1 field answer: no "answer"`) {
		t.Fatalf("template: %v", err)
	}
	src = "    - {name: n, paths: [in.parquet], fields: {statement: problem, solution: solution, subject: answer}}\n"
	probs, rejs, err := runShards(t, setup(t, files, src), 1)
	if err != nil || len(probs) != 2 || len(rejs) != 0 || probs[0].Subject != "" {
		t.Fatalf("%+v, %+v, %v", probs, rejs, err)
	}
}

// annotated is a physical type with the annotations given, and no
// others: a converted type alone, as older writers left, or a logical
// type parquet-go has no Type for.
type annotated struct {
	parquet.Type
	lt *format.LogicalType
	ct *deprecated.ConvertedType
}

func (t annotated) LogicalType() *format.LogicalType         { return t.lt }
func (t annotated) ConvertedType() *deprecated.ConvertedType { return t.ct }

// TestParquetDottedColumnName: a top-level column whose own name holds a
// dot, as pandas' json_normalize writes, is that column, and wins over a
// nested column of the same path, as a JSON key spelt with a dot does.
func TestParquetDottedColumnName(t *testing.T) {
	schema := parquet.NewSchema("row", parquet.Group{
		"meta.id":  parquet.String(),
		"q.text":   parquet.String(),
		"solution": parquet.String(),
		"a.b":      parquet.String(),
		"a":        parquet.Group{"b": parquet.String()},
	})
	var rows []parquet.Row
	var jsonl []byte
	for i := 1; i <= 2; i++ {
		v := func(s string, path ...string) parquet.Value {
			return parquet.ByteArrayValue(fmt.Appendf(nil, "%s%d", s, i)).Level(0, 0, pqColumnIndex(t, schema, path...))
		}
		rows = append(rows, pqRow(v("m", "meta.id"), v("Q", "q.text"), v("S", "solution"), v("top", "a.b"), v("nested", "a", "b")))
		jsonl = fmt.Appendf(jsonl, `{"meta.id": "m%d", "q.text": "Q%d", "solution": "S%d", "a.b": "top%d", "a": {"b": "nested%d"}}`+"\n", i, i, i, i, i)
	}
	files := map[string][]byte{"in.parquet": pqRows(t, schema, rows...), "in.jsonl": jsonl}
	for _, in := range []string{"in.parquet", "in.jsonl"} {
		src := "    - {name: d, paths: [" + in + "], fields: {id: meta.id, statement: q.text, solution: solution, subject: a.b}, template: {origin: \"{a.b}\"}}\n"
		probs, rejs, err := runShards(t, setup(t, files, src), 1)
		if err != nil || len(rejs) != 0 || ids(probs) != "m1,m2" {
			t.Fatalf("%s: %s, %+v, %v", in, ids(probs), rejs, err)
		}
		for _, p := range probs {
			n := strings.TrimPrefix(p.ID, "m")
			if p.Statement != "Q"+n || p.Subject != "top"+n || p.Origin != "top"+n {
				t.Errorf("%s: %+v", in, p)
			}
		}
	}
	// Without the top-level column, the dotted name is the nested path.
	nested := parquet.NewSchema("row", parquet.Group{"q": parquet.Group{"text": parquet.String()}, "solution": parquet.String()})
	pq := pqRows(t, nested, pqRow(
		parquet.ByteArrayValue([]byte("Q1")).Level(0, 0, pqColumnIndex(t, nested, "q", "text")),
		parquet.ByteArrayValue([]byte("S1")).Level(0, 0, pqColumnIndex(t, nested, "solution"))))
	probs, _, err := runShards(t, setup(t, map[string][]byte{"in.parquet": pq}, "    - {name: d, paths: [in.parquet], fields: {statement: q.text}}\n"), 1)
	if err != nil || len(probs) != 1 || probs[0].Statement != "Q1" {
		t.Errorf("nested q.text: %+v, %v", probs, err)
	}
}

// TestParquetNullList: a NULL list column is absent, as JSON null is; an
// empty list and a list of one null element are empty lists, as JSON []
// and [null] are. Each config below gives the same problems, rejects and
// filtered count from a Parquet file as from the same rows in JSON.
func TestParquetNullList(t *testing.T) {
	// pyarrow's list<string>: optional group (LIST) { repeated group list
	// { optional binary element (STRING) } }, here inside an optional
	// struct as well, so that a NULL struct is tested too.
	list := parquet.Optional(parquet.List(parquet.Optional(parquet.String())))
	schema := parquet.NewSchema("row", parquet.Group{
		"problem": parquet.String(),
		"sols":    list,
		"answers": list,
		"meta":    parquet.Optional(parquet.Group{"sols": list}),
	})
	// listValues is a list's values: nil a NULL list, [] an empty one,
	// a nil element a null one; def is the level of the list itself.
	listValues := func(v []any, isNull bool, def int, path ...string) []parquet.Value {
		col := pqColumnIndex(t, schema, append(path, "list", "element")...)
		switch {
		case isNull:
			return []parquet.Value{parquet.Value{}.Level(0, def-1, col)}
		case len(v) == 0:
			return []parquet.Value{parquet.Value{}.Level(0, def, col)}
		}
		var out []parquet.Value
		for i, e := range v {
			rep := min(i, 1)
			if e == nil {
				out = append(out, parquet.Value{}.Level(rep, def+1, col))
				continue
			}
			out = append(out, parquet.ByteArrayValue([]byte(e.(string))).Level(rep, def+2, col))
		}
		return out
	}
	type row struct {
		sols, answers, metaSols []any
		nullSols, nullAnswers   bool
		nullMeta, nullMetaSols  bool
	}
	rows := []row{
		{nullSols: true, answers: []any{"4"}, nullMeta: true},
		{sols: []any{}, answers: []any{"5"}, metaSols: []any{}},
		{sols: []any{nil}, answers: []any{"6"}, metaSols: []any{nil}},
		{sols: []any{"S4"}, nullAnswers: true, nullMetaSols: true},
		{sols: []any{"S5", nil, "T5"}, answers: []any{"7", "8"}, metaSols: []any{"M5"}},
	}
	var pqr []parquet.Row
	var jsonl []byte
	for i, r := range rows {
		vals := []parquet.Value{parquet.ByteArrayValue(fmt.Appendf(nil, "P%d", i+1)).Level(0, 0, pqColumnIndex(t, schema, "problem"))}
		vals = append(vals, listValues(r.sols, r.nullSols, 1, "sols")...)
		vals = append(vals, listValues(r.answers, r.nullAnswers, 1, "answers")...)
		obj := map[string]any{"problem": fmt.Sprintf("P%d", i+1), "sols": r.sols, "answers": r.answers}
		if r.nullSols {
			obj["sols"] = nil
		}
		if r.nullAnswers {
			obj["answers"] = nil
		}
		if r.nullMeta {
			// A NULL struct: its list's column holds one value at level 0.
			vals = append(vals, parquet.Value{}.Level(0, 0, pqColumnIndex(t, schema, "meta", "sols", "list", "element")))
			obj["meta"] = nil
		} else {
			vals = append(vals, listValues(r.metaSols, r.nullMetaSols, 2, "meta", "sols")...)
			obj["meta"] = map[string]any{"sols": r.metaSols}
			if r.nullMetaSols {
				obj["meta"] = map[string]any{"sols": nil}
			}
		}
		pqr = append(pqr, pqRow(vals...))
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		jsonl = append(append(jsonl, b...), '\n')
	}
	files := map[string][]byte{"in.parquet": pqRows(t, schema, pqr...), "in.jsonl": jsonl}

	// outcome is what a config gives: problems, rejects and the count
	// filtered, as text to compare.
	outcome := func(in, config string) string {
		cfg := setup(t, files, "    - {name: n, paths: ["+in+"], max_reject_share: 1, "+config+"}\n")
		probs, rejs, err := runShards(t, cfg, 1)
		if err != nil {
			t.Fatalf("%s, %s: %v", in, config, err)
		}
		var out []string
		for _, p := range probs {
			out = append(out, fmt.Sprintf("%s %q %q", p.Statement, p.Solution, p.Subject))
		}
		for _, r := range rejs {
			out = append(out, fmt.Sprintf("line %d %s %s", r.Line, r.Reason, r.Field))
		}
		slices.Sort(out)
		return fmt.Sprintf("%s; filtered %d", strings.Join(out, "; "), summedStats(t, cfg)["source_n_filtered"])
	}
	for _, tt := range []struct{ config, want string }{
		// A NULL list is a missing field; an empty one, or one of nulls, an empty field.
		{"fields: {statement: problem, solution: sols}",
			`P4 "S4" ""; P5 "S5\n\nT5" ""; line 1 missing_field sols; line 2 empty_field sols; line 3 empty_field sols; filtered 0`},
		// An absent or null field matches no value: not: [] keeps it.
		{"fields: {statement: problem, solution: sols}, where: [{field: sols, not: []}]",
			`P4 "S4" ""; P5 "S5\n\nT5" ""; line 1 missing_field sols; filtered 2`},
		// A template naming a NULL list rejects the row; an empty list is
		// empty text in it.
		{`fields: {statement: problem}, template: {solution: "{sols}\n\nFinal answer: {answers}"}`,
			`P2 "\n\nFinal answer: 5" ""; P3 "\n\nFinal answer: 6" ""; P5 "S5\n\nT5\n\nFinal answer: 7\n\n8" ""; line 1 missing_field sols; line 4 missing_field answers; filtered 0`},
		// Within an optional struct: a NULL struct or a NULL list is absent.
		{"fields: {statement: problem, solution: answers, subject: meta.sols}, where: [{field: meta.sols, not: []}]",
			`P1 "4" ""; P5 "7\n\n8" "M5"; line 4 missing_field answers; filtered 2`},
	} {
		for _, in := range []string{"in.parquet", "in.jsonl"} {
			if got := outcome(in, tt.config); got != tt.want {
				t.Errorf("%s, %s:\n got %s\nwant %s", in, tt.config, got, tt.want)
			}
		}
	}
}
