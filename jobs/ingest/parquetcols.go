package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/saber-math/saber/jobs/stage"
)

// pqColumn is one leaf column of a Parquet file read into a record key
// (a problem field, or "@path" for a template or where: reference).
type pqColumn struct {
	key   string
	index int
	// unsigned: an unsigned integer (UINT_8 … UINT_64), whose stored
	// bits read as a signed value would turn 2^64-1 into -1.
	unsigned bool
	// list: a repeated leaf, a list of scalars (Go []string, or a LIST
	// column as pyarrow writes it); listDef is the definition level at
	// which the list itself is present (and empty), maxDef that of an
	// element that is present.
	list            bool
	listDef, maxDef int
}

// listLayouts are the paths below a LIST column's name to its element:
// the Parquet spec's, older writers' (item), and bare repeated fields.
var listLayouts = [][]string{{"list", "element"}, {"list", "item"}, {"element"}, {"array"}}

// parquetColumns resolves the record keys of in's source to the columns
// of f: a dotted name to a nested column, a list's name to its element
// column. keys are the names the file has, for the tally: its columns,
// and each configured name that resolved (a LIST column's own name).
func parquetColumns(in input, f *parquet.File) (cols []pqColumn, keys []string, err error) {
	schema := f.Schema()
	for _, c := range schema.Columns() {
		keys = append(keys, strings.Join(c, "."))
	}
	elems := leafElements(f)
	names := extractNames(in.src)
	// Fixed order: the same file always gives the same message.
	order := slices.Clone(fieldOrder)
	for _, k := range slices.Sorted(maps.Keys(names)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for _, key := range order {
		name, ok := names[key]
		if !ok {
			continue
		}
		field := strings.TrimPrefix(key, "@")
		if key != field {
			field = "reference " + name
		}
		// A top-level column whose own name holds a dot (pandas'
		// json_normalize writes meta.id) is that column, as a JSON key
		// spelt with a dot is, and wins over a nested meta.id as that
		// key does; only a name no top-level column has is a path.
		path := []string{name}
		if strings.Contains(name, ".") && !topLevel(schema, name) {
			path = strings.Split(name, ".")
		}
		leaf, full, ok := lookupLeaf(schema, path)
		if !ok || !leaf.Node.Leaf() {
			if group(schema, path) {
				return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field %s) is a group (a struct, or a list of structs or lists), want a string or a list of strings; name one of its columns: %s",
					in.name, name, field, columnList(schema)))
			}
			if key == "statement" || key == "solution" {
				return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field %s) missing; columns: %s", in.name, name, field, columnList(schema)))
			}
			continue // optional fields may be absent from a file
		}
		if leaf.MaxRepetitionLevel > 1 {
			return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field %s) is a list of lists, want a string or a list of strings", in.name, name, field))
		}
		// An id is text or an integer, as in JSON (no boolean, no float);
		// other fields take numbers and booleans as text. A logical type
		// over those is not the text it stands for (a DECIMAL(10,2)'s
		// stored 1234 is 12.34, a DATE's 19724 is 2024-01-02): rather
		// than take the stored value, ask for the column as text.
		unsigned, null, refused := annotation(elems, leaf.ColumnIndex)
		text := "VARCHAR"
		if leaf.MaxRepetitionLevel == 1 {
			text = "VARCHAR[]"
		}
		cast := fmt.Sprintf("cast it to a string before ingest, e.g. in DuckDB CAST(%s AS %s)", duckIdent(path), text)
		switch kind := leaf.Node.Type().Kind(); {
		case refused != "":
			return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field %s) has type %s (stored as %s), whose stored values are not its text; %s",
				in.name, name, field, refused, kind, cast))
		case null:
			// pyarrow's type for a column of nulls alone: every row's
			// value is null, absent as a JSON null is.
		case kind == parquet.ByteArray, kind == parquet.Int32, kind == parquet.Int64:
		case key != "id" && (kind == parquet.Boolean || kind == parquet.Float || kind == parquet.Double):
		default:
			return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field %s) has type %s, want a string; %s", in.name, name, field, leaf.Node.Type(), cast))
		}
		c := pqColumn{key: key, index: leaf.ColumnIndex, unsigned: unsigned, maxDef: leaf.MaxDefinitionLevel}
		if leaf.MaxRepetitionLevel == 1 {
			if key == "id" {
				return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field id) is a list, want one value", in.name, name))
			}
			// The list's level from the path looked up, layout and all:
			// leaf.Path is only the leaf's own name (element), which
			// finds no list and made a NULL list read as an empty one.
			c.list, c.listDef = true, listLevel(schema, full)
		}
		cols = append(cols, c)
		if !slices.Contains(keys, name) {
			keys = append(keys, name)
		}
	}
	return cols, keys, nil
}

// topLevel reports whether schema has a top-level column (or group) of
// that name.
func topLevel(schema *parquet.Schema, name string) bool {
	return slices.ContainsFunc(schema.Fields(), func(f parquet.Field) bool { return f.Name() == name })
}

// lookupLeaf finds the leaf column at path or, for a list, below it by
// one of listLayouts; full is the path of the leaf found.
func lookupLeaf(schema *parquet.Schema, path []string) (leaf parquet.LeafColumn, full []string, ok bool) {
	if leaf, ok = schema.Lookup(path...); ok {
		return leaf, path, true
	}
	for _, l := range listLayouts {
		full = append(slices.Clone(path), l...)
		if leaf, ok = schema.Lookup(full...); ok {
			return leaf, full, true
		}
	}
	return leaf, nil, false
}

// leafElements are the schema elements of f's leaf columns, by column
// index (leaves come depth first, in column order): their annotations
// as written, which parquet-go's Type drops where it has no type for
// one (FLOAT16, a DECIMAL without its scale).
func leafElements(f *parquet.File) []*format.SchemaElement {
	var leaves []*format.SchemaElement
	s := f.Metadata().Schema
	for i := range s {
		if s[i].Type.Valid {
			leaves = append(leaves, &s[i])
		}
	}
	return leaves
}

// annotation reads what the logical (or, in older files, converted) type
// of column index says of its values: unsigned for an unsigned integer;
// null for the NULL type, which holds no values; refused, the type's
// name, for one whose stored values are not the text they stand for (a
// decimal, a date or time, JSON, a UUID, FLOAT16 …). Text, enums and
// signed integers are none of these.
func annotation(elems []*format.SchemaElement, index int) (unsigned, null bool, refused string) {
	if index >= len(elems) {
		return false, false, ""
	}
	el := elems[index]
	switch lt := el.LogicalType.Value.(type) {
	case nil:
	case *format.StringType, *format.EnumType:
		return false, false, ""
	case *format.NullType:
		return false, true, ""
	case *format.IntType:
		return !lt.IsSigned, false, ""
	default:
		return false, false, lt.String()
	}
	if !el.ConvertedType.Valid {
		return false, false, ""
	}
	switch ct := el.ConvertedType.V; ct {
	case deprecated.UTF8, deprecated.Enum, deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
		return false, false, ""
	case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
		return true, false, ""
	case deprecated.Decimal:
		if !el.Precision.Valid || !el.Scale.Valid {
			return false, false, "DECIMAL" // malformed, but a decimal all the same
		}
		return false, false, fmt.Sprintf("DECIMAL(%d,%d)", el.Precision.V, el.Scale.V)
	default:
		if name, ok := convertedNames[ct]; ok {
			return false, false, name
		}
		return false, false, fmt.Sprintf("converted type %d", ct)
	}
}

// convertedNames name the converted types annotation refuses, as the
// Parquet spec spells them.
var convertedNames = map[deprecated.ConvertedType]string{
	deprecated.Map: "MAP", deprecated.MapKeyValue: "MAP_KEY_VALUE", deprecated.List: "LIST",
	deprecated.Date: "DATE", deprecated.TimeMillis: "TIME_MILLIS", deprecated.TimeMicros: "TIME_MICROS",
	deprecated.TimestampMillis: "TIMESTAMP_MILLIS", deprecated.TimestampMicros: "TIMESTAMP_MICROS",
	deprecated.Json: "JSON", deprecated.Bson: "BSON", deprecated.Interval: "INTERVAL",
}

// duckIdent is path as a DuckDB column reference, each name quoted so
// that one holding a dot is one column: "meta.id", or "meta"."date".
func duckIdent(path []string) string {
	q := make([]string, len(path))
	for i, p := range path {
		q[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(q, ".")
}

// group reports whether path names a group of columns, not a column.
func group(schema *parquet.Schema, path []string) bool {
	for _, c := range schema.Columns() {
		if len(c) > len(path) && slices.Equal(c[:len(path)], path) {
			return true
		}
	}
	return false
}

// listLevel is the definition level at which the list on path is
// present: the optional and repeated nodes above its repeated node.
func listLevel(schema *parquet.Schema, path []string) int {
	var n parquet.Node = schema
	level := 0
	for _, name := range path {
		var next parquet.Node
		for _, f := range n.Fields() {
			if f.Name() == name {
				next = f
			}
		}
		if next == nil || next.Repeated() {
			break
		}
		if next.Optional() {
			level++
		}
		n = next
	}
	return level
}

// parquetValues reads one row's values of cols into record values, with
// the same coercions as JSON: numbers and booleans as text, a list of
// scalars joined by its field's join: separator and kept as elements.
func parquetValues(row parquet.Row, cols []pqColumn, join map[string]string, fields map[string]string) map[string]value {
	vals := make(map[string]value, len(fields))
	for k := range fields {
		vals[k] = value{}
	}
	for _, c := range cols {
		var elems []string
		present, bad := false, false
		for _, v := range row {
			if v.Column() != c.index {
				continue
			}
			if c.list {
				if v.DefinitionLevel() >= c.listDef {
					present = true
				}
				if v.DefinitionLevel() < c.maxDef || v.IsNull() {
					continue // an empty list, or a null element: a gap, not text
				}
			} else if v.IsNull() {
				continue
			}
			s := parquetText(v, c.unsigned)
			bad = bad || !utf8.ValidString(s)
			elems = append(elems, s)
			present = true
		}
		switch {
		case !present:
			vals[c.key] = value{}
		case c.list:
			sep, ok := join[c.key]
			if !ok {
				sep = DefaultJoin
			}
			vals[c.key] = value{s: strings.Join(elems, sep), present: true, badUTF8: bad, list: true, elems: elems}
		default:
			vals[c.key] = value{s: elems[0], present: true, badUTF8: bad}
		}
	}
	return vals
}

// parquetText is a scalar Parquet value as text; unsigned, an integer's
// bits are read as unsigned.
func parquetText(v parquet.Value, unsigned bool) string {
	switch v.Kind() {
	case parquet.Int32:
		if unsigned {
			return strconv.FormatUint(uint64(v.Uint32()), 10)
		}
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Int64:
		if unsigned {
			return strconv.FormatUint(v.Uint64(), 10)
		}
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	}
	return string(v.ByteArray())
}
