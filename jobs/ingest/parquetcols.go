package ingest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/jobs/stage"
)

// pqColumn is one leaf column of a Parquet file read into a record key
// (a problem field, or "@path" for a template or where: reference).
type pqColumn struct {
	key   string
	index int
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
		// other fields take numbers and booleans as text.
		switch kind := leaf.Node.Type().Kind(); {
		case kind == parquet.ByteArray, kind == parquet.Int32, kind == parquet.Int64:
		case key != "id" && (kind == parquet.Boolean || kind == parquet.Float || kind == parquet.Double):
		default:
			return nil, nil, stage.BadInput(fmt.Errorf("%s: column %q (field %s) has type %s, want a string", in.name, name, field, leaf.Node.Type()))
		}
		c := pqColumn{key: key, index: leaf.ColumnIndex, maxDef: leaf.MaxDefinitionLevel}
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
			s := parquetText(v)
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

// parquetText is a scalar Parquet value as text.
func parquetText(v parquet.Value) string {
	switch v.Kind() {
	case parquet.Int32, parquet.Int64:
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
