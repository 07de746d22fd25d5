// duckdb.js: run the SQL read from stdin in an in-memory DuckDB and print the
// last statement's rows as one JSON array of objects, for extread.DuckDB.
// Run as `node duckdb.js` with NODE_PATH naming the folder that holds
// @duckdb/node-api (CommonJS, since NODE_PATH does not apply to ES modules).
//
// JSON cannot tell the Go side an integer from a whole float, and JS numbers
// lose integers past 2^53, so values are written by type, not by JS value:
// every integer type as its exact decimal digits (BIGINT, UBIGINT and HUGEINT
// arrive as BigInt), every FLOAT, DOUBLE and DECIMAL with a '.' or an
// exponent, a non-finite float as {"$nonfinite":"NaN"|"Infinity"|"-Infinity"},
// lists, structs, maps and unions as JSON arrays and objects, and every other
// type (dates, timestamps, intervals, UUIDs, blobs) as DuckDB's own text.
'use strict';
const duckdb = require('@duckdb/node-api');
const { DuckDBInstance, DuckDBTypeId: T, JSDuckDBValueConverter } = duckdb;

class Int { constructor(s) { this.s = s; } }
class Float { constructor(x) { this.x = x; } }

const ints = new Set([T.TINYINT, T.SMALLINT, T.INTEGER, T.BIGINT, T.UTINYINT, T.USMALLINT,
  T.UINTEGER, T.UBIGINT, T.HUGEINT, T.UHUGEINT, T.BIGNUM]);
const nested = new Set([T.LIST, T.ARRAY, T.STRUCT, T.MAP, T.UNION, T.VARIANT]);

function convert(value, type, self) {
  if (value === null || value === undefined) return null;
  const id = type.typeId;
  if (ints.has(id)) return new Int(value.toString());
  if (id === T.FLOAT || id === T.DOUBLE) return new Float(value);
  if (id === T.DECIMAL) return new Float(value.toDouble());
  if (id === T.BOOLEAN || id === T.VARCHAR || id === T.SQLNULL) return value;
  // The library's converter walks nested values and calls back here for
  // each element, with the element's type.
  if (nested.has(id)) return JSDuckDBValueConverter(value, type, self);
  return String(value);
}

function json(v) {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Int) return v.s;
  if (v instanceof Float) {
    if (!Number.isFinite(v.x)) return JSON.stringify({ $nonfinite: String(v.x) });
    const s = String(v.x);
    return /[.eE]/.test(s) ? s : s + '.0';
  }
  if (Array.isArray(v)) return '[' + v.map(json).join(',') + ']';
  if (typeof v === 'object') {
    return '{' + Object.entries(v).map(([k, x]) => JSON.stringify(k) + ':' + json(x)).join(',') + '}';
  }
  return JSON.stringify(v);
}

(async () => {
  const sql = require('fs').readFileSync(0, 'utf8');
  // Offline: the Parquet and JSON readers are built into the binding, and an
  // extension DuckDB would otherwise fetch must fail here, not hang.
  const db = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
  const conn = await db.connect();
  const reader = await conn.runAndReadAll(sql);
  const rows = reader.convertRowObjects(convert);
  process.stdout.write('[' + rows.map(json).join(',\n') + ']\n');
})().catch((e) => {
  process.stderr.write(String(e && e.message || e) + '\n');
  process.exit(1);
});
