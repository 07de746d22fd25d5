package ingest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/ingest/decl"
	"github.com/saber-math/saber/jobs/stage"
)

// A source's field map has, besides fields: (a problem field read from
// one input field or path), four ways to reach real shapes:
//
//   - lists: a list-valued field is joined (default) or exploded, one row
//     per element;
//   - files: the input field names a side file whose text is the value;
//   - template: several input fields combined into one text;
//   - where: rows that fail a condition are filtered (counted, not
//     rejected).
//
// Parsing extracts every input field any of these names, so that the
// filter, templates and side files are applied to the parsed record
// (mapRows) before validate sees it, the same way for JSON and Parquet.

// refKey is the key under which a record holds an input field that a
// template or a where: condition names (not a problem field): "@path".
func refKey(path string) string { return "@" + path }

// extractNames is what parsing extracts, by record key: the problem
// fields (fieldNames) and every input field a template or where: names.
func extractNames(src *Source) map[string]string {
	m := fieldNames(src)
	for _, r := range refs(src) {
		if r.key != "" {
			m[r.key] = r.name
		}
	}
	return m
}

// ref is one input field a source's config names, for the check that some
// row has it: what says where the config names it.
type ref struct {
	what string // e.g. fields.subject is "problem_typ"
	name string // the input field or path
	key  string // its record key when it is no problem field ("@path")
}

// refs lists the input fields a source's config names, in a fixed order
// (fields and files by problem field, then templates, then where:), so
// that the same config always gives the same message.
func refs(src *Source) []ref {
	var out []ref
	for _, f := range fieldOrder {
		switch {
		case FieldOf(src, f) != "":
			out = append(out, ref{what: fmt.Sprintf("fields.%s is %q", f, FieldOf(src, f)), name: FieldOf(src, f)})
		case src.Files[f] != "":
			out = append(out, ref{what: fmt.Sprintf("files.%s is %q", f, src.Files[f]), name: src.Files[f]})
		}
	}
	for _, f := range fieldOrder {
		if t, ok := src.Template[f]; ok {
			_, names, _ := parseTemplate(t)
			for _, n := range names {
				out = append(out, ref{what: fmt.Sprintf("template.%s uses {%s}", f, n), name: n, key: refKey(n)})
			}
		}
	}
	for i, c := range src.Where {
		out = append(out, ref{what: fmt.Sprintf("where[%d].field is %q", i, c.Field), name: c.Field, key: refKey(c.Field)})
	}
	return out
}

// explodedField is the problem field lists: explodes, or "".
func explodedField(src *Source) string {
	for _, f := range fieldOrder {
		if src.Lists[f] == ListExplode {
			return f
		}
	}
	return ""
}

// The config's check of a source's field map is ingest's own (see
// decl.CheckFieldMap).
func init() { decl.CheckFieldMap = validateFieldMap }

// validateFieldMap checks lists:, files:, template: and where: of the
// source at p.
func validateFieldMap(p string, s *Source, bad func(string, ...any)) {
	known := func(setting, field string) bool {
		if !slices.Contains(fieldOrder, field) {
			bad("%s.%s.%s: %q is not a problem field (one of %s)", p, setting, field, field, strings.Join(fieldOrder, ", "))
			return false
		}
		return true
	}
	// One way to fill each field: an explicit fields: entry next to a
	// template or a side file would be silently ignored by one of them.
	for _, f := range slices.Sorted(maps.Keys(s.Files)) {
		if !known("files", f) {
			continue
		}
		switch {
		case f == "id":
			bad("%s.files.id: an id cannot come from a side file", p)
		case s.Files[f] == "":
			bad("%s.files.%s: empty; name the input field that holds the side file's path", p, f)
		case FieldOf(s, f) != "":
			bad("%s.files.%s: fields.%s is set too; a field comes from fields:, files: or template:, not two", p, f, f)
		case s.Template[f] != "":
			bad("%s.files.%s: template.%s is set too; a field comes from fields:, files: or template:, not two", p, f, f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(s.Template)) {
		if !known("template", f) {
			continue
		}
		if FieldOf(s, f) != "" {
			bad("%s.template.%s: fields.%s is set too; a field comes from fields:, files: or template:, not two", p, f, f)
		}
		if _, names, err := parseTemplate(s.Template[f]); err != nil {
			bad("%s.template.%s: %v", p, f, err)
		} else if len(names) == 0 {
			bad("%s.template.%s: names no input field; write them in braces, e.g. \"{solution}\\n\\nFinal answer: {answer}\"", p, f)
		}
	}
	// join: separates a list's elements, whether fields: or a template
	// reads the list; a side file is one text, so join: there would be
	// silently ignored.
	for _, f := range slices.Sorted(maps.Keys(s.Join)) {
		if !known("join", f) {
			continue
		}
		switch {
		case s.Files[f] != "":
			bad("%s.join.%s: files.%s reads the field from a side file, which is one text, not a list; remove join.%s", p, f, f, f)
		case FieldOf(s, f) == "" && s.Template[f] == "":
			bad("%s.join.%s: nothing fills %s (set fields.%s or template.%s)", p, f, f, f, f)
		}
	}
	var exploded []string
	for _, f := range slices.Sorted(maps.Keys(s.Lists)) {
		if !known("lists", f) {
			continue
		}
		switch s.Lists[f] {
		case ListJoin:
		case ListExplode:
			exploded = append(exploded, f)
			switch {
			case f == "id":
				bad("%s.lists.id: an id cannot explode; exploded rows get <id>#<k>", p)
			case FieldOf(s, f) == "":
				bad("%s.lists.%s: explode needs fields.%s, the list-valued input field to explode", p, f, f)
			}
		default:
			bad("%s.lists.%s: %q is not join or explode (one element: an index path in fields:, e.g. solutions[0])", p, f, s.Lists[f])
		}
	}
	if len(exploded) > 1 {
		bad("%s.lists: explode is set for %s; at most one field per source may explode (rows would multiply)", p, strings.Join(exploded, " and "))
	}
	for i, c := range s.Where {
		q := fmt.Sprintf("%s.where[%d]", p, i)
		if c.Field == "" {
			bad("%s.field: required (the input field or path the condition tests)", q)
		}
		// is: null decodes as no is: at all; say so rather than that
		// no operator is set.
		if nulls := c.Nulls(); len(nulls) > 0 {
			for _, op := range nulls {
				bad("%s.%s: %v", q, op, errNull)
			}
			continue
		}
		var ops []string
		if c.Is != nil {
			ops = append(ops, "is")
		}
		if c.Not != nil {
			ops = append(ops, "not")
		}
		if c.In != nil {
			ops = append(ops, "in")
		}
		if c.NotIn != nil {
			ops = append(ops, "not_in")
		}
		if len(ops) != 1 {
			bad("%s: set exactly one of is, not, in, not_in (has %s)", q, orNone(ops))
			continue
		}
		for _, v := range []any{c.Is, c.Not} {
			if v != nil {
				if err := checkMatchValue(v, false); err != nil {
					bad("%s.%s: %v", q, ops[0], err)
				}
			}
		}
		for _, vs := range [][]any{c.In, c.NotIn} {
			for j, v := range vs {
				if err := checkMatchValue(v, true); err != nil {
					bad("%s.%s[%d]: %v", q, ops[0], j, err)
				}
			}
		}
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// errNull is why null is no condition value: is: null would keep no row,
// not: null every row, whatever the rows hold.
var errNull = errors.New(`null matches nothing (an absent or null field matches no value); quote it ("null") to compare with the text null`)

// checkMatchValue accepts what a condition can compare with: a string,
// number or boolean, or [] (an empty list).
func checkMatchValue(v any, member bool) error {
	switch x := v.(type) {
	case string, bool, int, int64, uint64, float64:
		return nil
	case []any:
		if len(x) == 0 {
			return nil
		}
		if member {
			return fmt.Errorf("a list inside a list; only [] (an empty list) is a value")
		}
		return fmt.Errorf("a list of values; use in: or not_in: for membership ([] alone matches an empty list)")
	case nil:
		return errNull
	case map[string]any:
		return fmt.Errorf("a mapping is not a value; want a string, a number, a boolean or [] (quote a value with \": \" in it)")
	}
	return fmt.Errorf("%T is not a value; want a string, a number, a boolean or []", v)
}

// matchText is the text a condition's scalar value compares with: as
// the config writes it (decl.Cond.UnmarshalYAML).
func matchText(v any) string { return decl.MatchText(v) }

// matches reports whether a field's value equals one condition value:
// byte for byte, or in any letter case with ignoreCase.
func matches(v value, want any, ignoreCase bool) bool {
	if !v.present || v.badType != "" || v.badUTF8 {
		return false
	}
	if _, isList := want.([]any); isList {
		return v.list && len(v.elems) == 0
	}
	if ignoreCase {
		return strings.EqualFold(v.s, matchText(want))
	}
	return v.s == matchText(want)
}

// condValues are a condition's values, whichever operator holds them, and
// the operator's name.
func condValues(c Cond) (string, []any) {
	switch {
	case c.Is != nil:
		return "is", []any{c.Is}
	case c.Not != nil:
		return "not", []any{c.Not}
	case c.In != nil:
		return "in", c.In
	case c.NotIn != nil:
		return "not_in", c.NotIn
	}
	return "", nil
}

// keep reports whether a row meets every where: condition.
func keep(conds []Cond, vals map[string]value) bool {
	for _, c := range conds {
		v := vals[refKey(c.Field)]
		m := func(w any) bool { return matches(v, w, c.IgnoreCase) }
		var ok bool
		switch {
		case c.Is != nil:
			ok = m(c.Is)
		case c.Not != nil:
			ok = !m(c.Not)
		case c.In != nil:
			ok = slices.ContainsFunc(c.In, m)
		case c.NotIn != nil:
			ok = !slices.ContainsFunc(c.NotIn, m)
		}
		if !ok {
			return false
		}
	}
	return true
}

// whereKey names value j of where: condition i in IngestSpan.WhereHits
// and WhereCase.
func whereKey(i, j int) string { return strconv.Itoa(i) + "." + strconv.Itoa(j) }

// parseTemplate splits a template into its literal texts and the input
// field names in braces between them: lits has one more element than
// names. {{ and }} stand for literal braces.
func parseTemplate(t string) (lits, names []string, err error) {
	var lit strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '{' && i+1 < len(t) && t[i+1] == '{', c == '}' && i+1 < len(t) && t[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '{':
			j := strings.IndexAny(t[i+1:], "{}")
			if j < 0 || t[i+1+j] != '}' {
				return nil, nil, fmt.Errorf("unclosed { at byte %d (a literal brace is {{)", i)
			}
			name := strings.TrimSpace(t[i+1 : i+1+j])
			if name == "" {
				return nil, nil, fmt.Errorf("empty {} at byte %d; name an input field in it", i)
			}
			lits = append(lits, lit.String())
			lit.Reset()
			names = append(names, name)
			i += j + 1
		case c == '}':
			return nil, nil, fmt.Errorf("} without { at byte %d (a literal brace is }})", i)
		default:
			lit.WriteByte(c)
		}
	}
	return append(lits, lit.String()), names, nil
}

// template is a parsed template: for a problem field. join, when the
// source's join: names the field, separates the elements of a
// list-valued input field the template names (else DefaultJoin).
type template struct {
	field       string
	lits, names []string
	join        *string
}

// fill builds the template's text from a record's values, or the reject
// of the first named field that is absent or cannot be text.
func (t template) fill(vals map[string]value) (value, *dataset.Reject) {
	var b strings.Builder
	for i, n := range t.names {
		b.WriteString(t.lits[i])
		v := vals[refKey(n)]
		used := fmt.Sprintf(" (used by template.%s)", t.field)
		switch {
		case !v.present:
			return value{}, &dataset.Reject{Field: n, Reason: dataset.ReasonMissingField, Detail: fmt.Sprintf("no %q%s", n, used)}
		case v.badUTF8:
			return value{}, &dataset.Reject{Field: n, Reason: dataset.ReasonInvalidUTF8, Detail: "value is not valid UTF-8" + used}
		case v.badType != "":
			return value{}, &dataset.Reject{Field: n, Reason: dataset.ReasonWrongType, Detail: "want text, got " + v.badType + used}
		}
		if v.list && t.join != nil {
			b.WriteString(strings.Join(v.elems, *t.join))
		} else {
			b.WriteString(v.s)
		}
	}
	b.WriteString(t.lits[len(t.names)])
	return value{s: b.String(), present: true}, nil
}

// mapRows turns each parsed record of in into the rows it stands for,
// and passes them to fn: a row that fails where: is counted in t as
// filtered (t nil: not counted, as in a second pass) and goes no
// further; side files are read (their bytes recorded as inputs of the
// shard); an exploded list gives one row per element, each with its
// element k (1-based) in elem; templates are filled last, per element.
func mapRows(ctx context.Context, env *stage.Env, in input, t *tally, fn func(record) error) func(record) error {
	src := in.src
	var tmpls []template
	for _, f := range fieldOrder {
		if s, ok := src.Template[f]; ok {
			lits, names, _ := parseTemplate(s) // validated with the config
			tm := template{field: f, lits: lits, names: names}
			if sep, ok := src.Join[f]; ok {
				tm.join = &sep
			}
			tmpls = append(tmpls, tm)
		}
	}
	explode := explodedField(src)
	placeholders := Section.Of(env.Config).Placeholders
	side := newSideFiles(ctx, env, in)
	plain := len(src.Where) == 0 && len(src.Files) == 0 && len(tmpls) == 0 && explode == ""
	fill := func(r record) error {
		for _, tm := range tmpls {
			v, bad := tm.fill(r.vals)
			if bad != nil {
				r.reject = bad
				return fn(r)
			}
			r.vals[tm.field] = v
		}
		return fn(r)
	}
	return func(r record) error {
		if plain || r.reject != nil {
			return fn(r)
		}
		if t != nil {
			t.where(src.Where, r.vals)
		}
		if !keep(src.Where, r.vals) {
			if t != nil {
				t.filter(r)
			}
			return nil
		}
		for _, f := range fieldOrder {
			if _, ok := src.Files[f]; !ok {
				continue
			}
			v, bad, err := side.value(r.vals[f])
			if err != nil {
				return fmt.Errorf("%s:%d: %w", in.name, r.line, err)
			}
			if bad != nil {
				bad.Field = src.Files[f]
				r.reject = bad
				return fn(r)
			}
			r.vals[f] = v
		}
		v := r.vals[explode]
		if explode == "" || !v.present || !v.list || len(v.elems) == 0 {
			// Not a list (a single value is one row, its id unchanged),
			// or an empty list: an empty field, rejected as one.
			return fill(r)
		}
		id := r.vals["id"]
		ref := refKey(FieldOf(src, explode))
		for k, e := range v.elems {
			row := r
			row.elem = k + 1
			row.vals = maps.Clone(r.vals)
			ev := value{s: e, present: true}
			row.vals[explode] = ev
			if _, ok := row.vals[ref]; ok {
				row.vals[ref] = ev // a template naming the exploded field gets the element
			}
			if id.present && id.badType == "" && realID(id.s, placeholders) {
				row.vals["id"] = value{s: strings.TrimSpace(id.s) + "#" + strconv.Itoa(k+1), present: true, badUTF8: id.badUTF8}
			}
			if err := fill(row); err != nil {
				return err
			}
		}
		return nil
	}
}
