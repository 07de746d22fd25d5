package ontology

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FieldMap names the fields of a concept list that is in none of the
// published formats: one record per concept, in a JSON array, JSON lines or
// CSV, with the concept's id, label, parents and keywords under names of
// the list's own. A JSON field may be a path into nested objects and arrays
// (meta.name, names[0]); a key that itself contains a dot is found as
// written first. Parents and Keywords may be list fields or strings joined
// by Separator. Empty Parents or Keywords means the list has none.
type FieldMap struct {
	ID, Label, Parents, Keywords string
	// Separator splits a string-valued parents or keywords field
	// ("11A; 11B"); default ";".
	Separator string
}

// DefaultSeparator joins the parents and keywords of a field-mapped
// concept list, as the keywords column of saber's own CSV.
const DefaultSeparator = ";"

// withDefaults fills the id and label names (id, label) and the separator.
func (m FieldMap) withDefaults() FieldMap {
	if m.ID == "" {
		m.ID = "id"
	}
	if m.Label == "" {
		m.Label = "label"
	}
	if m.Separator == "" {
		m.Separator = DefaultSeparator
	}
	return m
}

// record is one concept of a field-mapped list as read: where it is, and a
// lookup of a field's values (found is false when the record lacks it).
type record struct {
	where string
	get   func(field string) (vals []string, found bool, err error)
}

// ReadConceptsJSON reads a concept list through m: a JSON array of objects
// (when the first non-blank byte is '['), else JSON lines, one object a
// line. Values may be strings, numbers or booleans (read as text), lists of
// them, and, for the label, a language map ({"en": ..., "de": ...}, the
// English one taken). See buildConcepts for the checks. The DAG is not
// validated.
func ReadConceptsJSON(r io.Reader, m FieldMap) (*DAG, error) {
	m = m.withDefaults()
	br := bufio.NewReaderSize(r, 1<<16)
	first, err := firstByte(br)
	if err != nil {
		return nil, fmt.Errorf("ontology: concept list: %w", err)
	}
	var recs []record
	add := func(where string, b []byte) error {
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || obj == nil {
			if err == nil {
				err = errors.New("null, not a JSON object")
			}
			return fmt.Errorf("ontology: concept list %s: %w", where, err)
		}
		recs = append(recs, record{where: where, get: func(f string) ([]string, bool, error) {
			v, ok := lookupPath(obj, f)
			if !ok {
				return nil, false, nil
			}
			vals, err := jsonTexts(v, f == m.Label)
			return vals, true, err
		}})
		return nil
	}
	if first == '[' {
		dec := json.NewDecoder(br)
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("ontology: concept list: %w", err)
		}
		for k := 1; dec.More(); k++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("ontology: concept list element %d: %w", k, err)
			}
			if err := add(fmt.Sprintf("element %d", k), raw); err != nil {
				return nil, err
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("ontology: concept list: %w", err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("ontology: concept list: data after the top-level array")
		}
	} else {
		err := readLines(br, func(line int, b []byte) error {
			if b = bytes.TrimSpace(b); len(b) == 0 {
				return nil
			}
			return add(fmt.Sprintf("line %d", line), b)
		})
		if err != nil {
			return nil, err
		}
	}
	return buildConcepts(recs, m)
}

// firstByte returns the first byte of br that is not white space (or a
// UTF-8 byte order mark), without consuming it.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			if err == io.EOF {
				return 0, errors.New("empty input")
			}
			return 0, err
		}
		if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\uFEFF")) {
			br.Discard(3)
			continue
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.Discard(1)
			continue
		}
		return b[0], nil
	}
}

// lookupPath returns the value obj holds under field: the top-level key
// field when there is one, else the value the path field (a.b, a[0].b)
// names.
func lookupPath(obj map[string]any, field string) (any, bool) {
	if v, ok := obj[field]; ok {
		return v, true
	}
	var cur any = obj
	for _, part := range strings.Split(field, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			o, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = o[key]; !ok {
				return nil, false
			}
		}
		for rest != "" {
			ix, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(ix)
			a, isList := cur.([]any)
			if !ok || err != nil || !isList || n < 0 || n >= len(a) {
				return nil, false
			}
			cur = a[n]
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return cur, true
}

// jsonTexts turns a JSON value into its texts: a string, number or boolean
// is one, a list one per element, null none; a language map gives its
// English (else first) text when label is set.
func jsonTexts(v any, label bool) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{t}, nil
	case json.Number:
		return []string{t.String()}, nil
	case bool:
		return []string{strconv.FormatBool(t)}, nil
	case []any:
		var out []string
		for _, e := range t {
			s, err := jsonTexts(e, label)
			if err != nil {
				return nil, err
			}
			if len(s) > 1 {
				return nil, errors.New("a list inside a list")
			}
			out = append(out, s...)
		}
		return out, nil
	case map[string]any:
		if label {
			langs := map[string]string{}
			for k, x := range t {
				if s, ok := x.(string); ok {
					langs[k] = s
				}
			}
			if l := pickLabel(langs); l != "" {
				return []string{l}, nil
			}
		}
		return nil, errors.New("an object, not text or a list of texts (map a field inside it: name.en)")
	}
	return nil, fmt.Errorf("unexpected JSON value %T", v)
}

// ReadConceptsCSV reads a concept list through m from CSV whose header
// names the fields (compared case-insensitively, trimmed). Nested paths do
// not apply; parents and keywords are split by m.Separator. See
// buildConcepts for the checks. The DAG is not validated.
func ReadConceptsCSV(r io.Reader, m FieldMap) (*DAG, error) {
	m = m.withDefaults()
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("ontology: concept list: empty input")
	}
	if err != nil {
		return nil, fmt.Errorf("ontology: concept list CSV: %w", err)
	}
	col := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF")))
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	var recs []record
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("ontology: concept list CSV: %w", err)
		}
		line, _ := cr.FieldPos(0)
		recs = append(recs, record{where: fmt.Sprintf("line %d", line), get: func(f string) ([]string, bool, error) {
			i, ok := col[strings.ToLower(strings.TrimSpace(f))]
			if !ok {
				return nil, false, nil
			}
			return []string{rec[i]}, true, nil
		}})
	}
	return buildConcepts(recs, m)
}

// buildConcepts makes a DAG of records read through m. Each record is a
// node: its id (required; a number is read as text), its label (default:
// the id), its keywords and edges from each of its parents, all in record
// order. A record repeating an id adds its parents and keywords to the
// node (a list given as one row per parent); its label must agree. Errors:
// a mapped field that no record has (the map is wrong, not the data), a
// record without an id, an id or label that is a list, conflicting labels,
// and a parent that is no record's id. Cycles are left to Validate, which
// names them.
func buildConcepts(recs []record, m FieldMap) (*DAG, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("ontology: concept list: no records")
	}
	type field struct{ key, name string }
	fields := []field{{"id", m.ID}, {"label", m.Label}, {"parents", m.Parents}, {"keywords", m.Keywords}}
	seen := make(map[string]bool)
	d := &DAG{}
	index := make(map[string]int)
	var parents [][]string // by node
	var parentAt [][]string
	one := func(r record, f field, vals []string) (string, error) {
		if len(vals) > 1 {
			return "", fmt.Errorf("ontology: concept list %s: the %s field %q holds a list of %d values, want one", r.where, f.key, f.name, len(vals))
		}
		if len(vals) == 0 {
			return "", nil
		}
		return strings.TrimSpace(vals[0]), nil
	}
	split := func(vals []string) []string {
		var out []string
		for _, v := range vals {
			for _, s := range strings.Split(v, m.Separator) {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
		return out
	}
	// First every record's values, so that a field the map names wrongly
	// is reported as such, not as a record without it.
	gots := make([]map[string][]string, len(recs))
	for j, r := range recs {
		got := make(map[string][]string, len(fields))
		for _, f := range fields {
			if f.name == "" {
				continue
			}
			vals, found, err := r.get(f.name)
			if err != nil {
				return nil, fmt.Errorf("ontology: concept list %s: the %s field %q: %w", r.where, f.key, f.name, err)
			}
			if found {
				seen[f.key] = true
				got[f.key] = vals
			}
		}
		gots[j] = got
	}
	for _, f := range fields {
		if f.name != "" && !seen[f.key] {
			return nil, fmt.Errorf("ontology: concept list: the %s field %q is in no record (of %d); check the field map", f.key, f.name, len(recs))
		}
	}
	for j, r := range recs {
		got := gots[j]
		id, err := one(r, fields[0], got["id"])
		if err != nil {
			return nil, err
		}
		label, err := one(r, fields[1], got["label"])
		if err != nil {
			return nil, err
		}
		if id == "" {
			return nil, fmt.Errorf("ontology: concept list %s: no id (field %q)", r.where, m.ID)
		}
		i, ok := index[id]
		if !ok {
			i = len(d.Nodes)
			index[id] = i
			d.Nodes = append(d.Nodes, Node{ID: id})
			parents = append(parents, nil)
			parentAt = append(parentAt, nil)
		}
		n := &d.Nodes[i]
		switch {
		case label == "":
		case n.Label == "":
			n.Label = label
		case n.Label != label:
			return nil, fmt.Errorf("ontology: concept list %s: concept %q labelled %q here but %q before", r.where, id, label, n.Label)
		}
		for _, k := range split(got["keywords"]) {
			if !contains(n.Keywords, k) {
				n.Keywords = append(n.Keywords, k)
			}
		}
		for _, p := range split(got["parents"]) {
			if !contains(parents[i], p) {
				parents[i] = append(parents[i], p)
				parentAt[i] = append(parentAt[i], r.where)
			}
		}
	}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		if n.Label == "" {
			n.Label = n.ID
		}
		for k, p := range parents[i] {
			if _, ok := index[p]; !ok {
				return nil, fmt.Errorf("ontology: concept list %s: parent %q of concept %q is not the id of any record", parentAt[i][k], p, n.ID)
			}
			d.Edges = append(d.Edges, Edge{Parent: p, Child: n.ID})
		}
	}
	return d, nil
}
