package extread

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

//go:embed duckdb.js
var duckdbJS []byte

// DuckDB runs SQL in DuckDB (npm @duckdb/node-api, an in-memory database
// per query), a Parquet reader that shares no code with parquet-go.
type DuckDB struct {
	env nodeEnv
}

// NewDuckDB returns a DuckDB for t. It skips t when node or
// SABER_NODE_MODULES (with @duckdb/node-api) is missing, and fails it
// instead under CI=true.
func NewDuckDB(t testing.TB) *DuckDB {
	t.Helper()
	env, ok := needNode(t, "@duckdb/node-api", "duckdb.js", duckdbJS)
	if !ok {
		return nil
	}
	return &DuckDB{env: env}
}

// Query runs sql (one or more statements; the last one's rows are returned)
// and returns the rows, one map per row from column name to value. Values
// keep DuckDB's types:
//
//	integer types (TINYINT … HUGEINT)  int64; uint64 past MaxInt64; string past both
//	FLOAT, DOUBLE, DECIMAL             float64 (NaN and ±Inf included; FLOAT widened)
//	BOOLEAN, VARCHAR                   bool, string
//	LIST, ARRAY                        []any
//	STRUCT                             map[string]any
//	MAP                                []any of map[string]any{"key": …, "value": …}
//	NULL                               nil
//	anything else (DATE, TIMESTAMP …)  string, as DuckDB prints it
//
// A failed statement returns DuckDB's message.
func (d *DuckDB) Query(sql string) ([]map[string]any, error) {
	out, err := d.env.run("duckdb.js", []byte(sql))
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var rows []map[string]any
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("duckdb: decode rows: %w", err)
	}
	for _, r := range rows {
		for k, v := range r {
			r[k] = typed(v)
		}
	}
	return rows, nil
}

// typed turns duckdb.js's JSON into Go values: a number with a '.' or an
// exponent is a float, one without is an integer, and {"$nonfinite": …} is
// NaN or an infinity.
func typed(v any) any {
	switch v := v.(type) {
	case json.Number:
		s := v.String()
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return s
			}
			return f
		}
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u
		}
		return s
	case []any:
		for i := range v {
			v[i] = typed(v[i])
		}
		return v
	case map[string]any:
		if s, ok := v["$nonfinite"].(string); ok && len(v) == 1 {
			switch s {
			case "NaN":
				return math.NaN()
			case "Infinity":
				return math.Inf(1)
			case "-Infinity":
				return math.Inf(-1)
			}
		}
		for k, x := range v {
			v[k] = typed(x)
		}
		return v
	}
	return v
}

// Count returns the number of rows of a Parquet file, as DuckDB counts them.
func (d *DuckDB) Count(file string) (int64, error) {
	rows, err := d.Query("SELECT count(*) AS n FROM " + readParquet(file))
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 {
		return 0, fmt.Errorf("duckdb: count of %s: %d rows", file, len(rows))
	}
	n, ok := rows[0]["n"].(int64)
	if !ok {
		return 0, fmt.Errorf("duckdb: count of %s: got %T %v", file, rows[0]["n"], rows[0]["n"])
	}
	return n, nil
}

// Rows returns the first limit rows of a Parquet file in file order (all of
// them when limit <= 0), valued as Query says.
func (d *DuckDB) Rows(file string, limit int) ([]map[string]any, error) {
	sql := "SELECT * FROM " + readParquet(file)
	if limit > 0 {
		sql += " LIMIT " + strconv.Itoa(limit)
	}
	return d.Query(sql)
}

// readParquet is the table function reading file, made absolute so that
// DuckDB's working folder does not matter.
func readParquet(file string) string {
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	return "read_parquet(" + SQLString(file) + ")"
}

// SQLString quotes s as an SQL string literal.
func SQLString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
