package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/saber-math/saber/artifacts/dataset"
)

// parseJSONLine turns one trimmed JSONL line into a record: the mapped
// fields of its object and the names of all its keys, or why the line
// cannot be a row. encoding/json alone is too lenient for rows: it accepts
// `null` as an empty object, keeps the last of two equal keys, and turns a
// lone surrogate escape into U+FFFD; each of these is a reject here.
//
// join gives the separator a list-valued field's elements are joined with,
// by problem field (DefaultJoin for a field not in it).
func parseJSONLine(line int64, b []byte, fields, join map[string]string) record {
	return newRowFields(fields, join).parse(line, b)
}

// rowFields is a field map made ready for parsing many rows of one file:
// the problem fields each input key fills, the paths parsed, the fields in
// a fixed order, and the decoded keys interned by their raw bytes (rows
// repeat the same few keys, and decoding each key of each row into a new
// string was a tenth of a map shard's allocations; the interning stops at
// maxKeyNames, for files whose keys are data).
//
// A record parse returns holds the rowFields' own vals and keys, cleared
// and refilled by the next parse: a new map per row (its groups allocated
// as it grew) was an eighth of a map shard's CPU with the collection it
// caused. Every reader hands each record to its callback before parsing
// the next row, and nothing keeps a record past the callback (an exploded
// list clones vals per element).
type rowFields struct {
	fields, join map[string]string
	order        []string            // problem fields, sorted
	byName       map[string][]string // input key → the problem fields it fills
	paths        map[string][]step   // problem field → its path, when its name is one
	names        map[string]string   // raw key → decoded key
	vals         map[string]value    // the last row's fields
	keys         []string            // the last row's keys
	texts        *textArena          // where statements and solutions go, when set
}

const maxKeyNames = 1024

func newRowFields(fields, join map[string]string) *rowFields {
	rf := &rowFields{fields: fields, join: join, byName: map[string][]string{}, paths: map[string][]step{}, names: map[string]string{},
		vals: make(map[string]value, len(fields))}
	rf.order = slices.Sorted(maps.Keys(fields))
	for _, field := range rf.order {
		name := fields[field]
		rf.byName[name] = append(rf.byName[name], field)
		if steps, ok := parsePath(name); ok {
			rf.paths[field] = steps
		}
	}
	return rf
}

func (rf *rowFields) key(raw []byte) string {
	if k, ok := rf.names[string(raw)]; ok {
		return k
	}
	k := jsonKey(raw)
	if len(rf.names) < maxKeyNames {
		rf.names[string(raw)] = k
	}
	return k
}

// parse is parseJSONLine with the field map made ready.
func (rf *rowFields) parse(line int64, b []byte) record {
	fields, join := rf.fields, rf.join
	bad := func(reason, field, detail string) record {
		return record{line: line, reject: &dataset.Reject{Field: field, Reason: reason, Detail: detail}}
	}
	rf.texts.lineStart()
	var buf [16]member // most rows have fewer members: no allocation
	members, ok := scanRow(b, buf[:0])
	if !ok {
		if !utf8.Valid(b) {
			return bad(dataset.ReasonInvalidUTF8, "", "line is not valid UTF-8")
		}
		detail := "not valid JSON"
		var v json.RawMessage
		if err := json.Unmarshal(b, &v); err != nil {
			detail = err.Error()
		}
		if i := bareCR(b); i >= 0 {
			detail += fmt.Sprintf("; the line holds a bare CR at byte %d (are lines separated by CR only?)", i)
		}
		return bad(dataset.ReasonMalformed, "", detail)
	}
	if b[0] != '{' {
		return bad(dataset.ReasonNotObject, "", fmt.Sprintf("line is a JSON %s, not an object", jsonKind(b[0])))
	}
	keys := slices.Grow(rf.keys[:0], len(members))[:len(members)]
	rf.keys = keys
	vals := rf.vals
	clear(vals)
	var seen map[string]bool // for objects too wide to compare keys pairwise
	if len(members) > 16 {
		seen = make(map[string]bool, len(members))
	}
	for i, m := range members {
		k := rf.key(m.key)
		dup := seen[k]
		if seen != nil {
			seen[k] = true
		} else {
			dup = slices.Contains(keys[:i], k)
		}
		if dup {
			r := bad(dataset.ReasonDuplicateKey, k, fmt.Sprintf("key %q appears more than once in the object, so its value is ambiguous", k))
			r.vals = rf.idOnly(members, k)
			return r
		}
		keys[i] = k
		for _, field := range rf.byName[k] {
			if rf.texts != nil && (field == "statement" || field == "solution") {
				vals[field] = textValue(field, m, join, rf.texts)
				continue
			}
			vals[field] = memberValue(field, m, join)
		}
	}
	// A mapped name that is no top-level key but a path (content.problem,
	// messages[0].content) reaches into nested values; a top-level key
	// spelt with a dot wins, as it did before paths. Only the row's own
	// keys say so: a path already resolved for another field (a where:
	// reference sorts before the problem field of the same path) is
	// resolved again for this one.
	top := len(keys)
	for _, field := range rf.order {
		name := fields[field]
		steps, isPath := rf.paths[field]
		if !isPath {
			continue
		}
		if _, ok := vals[field]; ok || slices.Contains(keys[:top], name) {
			continue
		}
		raw, found, dup := resolvePath(b, steps)
		if dup != "" {
			r := bad(dataset.ReasonDuplicateKey, field, fmt.Sprintf("key %q appears more than once in an object on the path %s, so its value is ambiguous", dup, name))
			if field != "id" {
				r.vals = map[string]value{"id": vals["id"]}
			}
			return r
		}
		if found {
			vals[field] = memberValue(field, member{val: raw}, join)
			if !slices.Contains(keys[top:], name) {
				keys = append(keys, name) // the tally counts the path as a field some row has
			}
		}
	}
	for _, field := range rf.order {
		if _, ok := vals[field]; !ok {
			vals[field] = value{}
		}
	}
	rf.keys = keys // keep what append grew
	return record{line: line, vals: vals, keys: keys}
}

// idOnly is the values of a row rejected for a duplicate key dupKey: only
// its id, when the id is a top-level key that is not the one duplicated,
// so that the reject can be found in the source by id (as every reject
// whose row had a readable id can).
func (rf *rowFields) idOnly(members []member, dupKey string) map[string]value {
	name := rf.fields["id"]
	if name == "" || name == dupKey {
		return nil
	}
	for _, m := range members {
		if rf.key(m.key) == name {
			return map[string]value{"id": memberValue("id", m, rf.join)}
		}
	}
	return nil
}

// memberValue is jsonValue for a member scanRow has read (null: absent),
// using what the scan found out about a string.
func memberValue(field string, m member, join map[string]string) value {
	switch {
	case m.plain():
		return value{s: string(m.val[1 : len(m.val)-1]), present: true}
	case m.flags&fString != 0:
		return stringValue(m.val, m.flags)
	case string(m.val) == "null":
		return value{}
	}
	return jsonValue(field, m.val, join)
}

// textValue is memberValue for a statement or a solution, its text in
// texts when it is a string that needs no more than copying or unquoting.
func textValue(field string, m member, join map[string]string, texts *textArena) value {
	switch {
	case m.plain():
		raw := m.val[1 : len(m.val)-1]
		s, _ := texts.text(len(raw), func(dst []byte) ([]byte, bool) { return append(dst, raw...), true })
		return value{s: s, present: true}
	case m.flags&fString != 0 && m.flags&(fNonASCII|fUEscape) == 0:
		// Escapes alone (LaTeX's backslashes): unquote's work. A string
		// with bytes ≥ 0x80 or \u escapes takes stringValue's checks.
		if s, ok := texts.text(len(m.val), func(dst []byte) ([]byte, bool) { return appendUnquote(dst, m.val) }); ok {
			return value{s: s, present: true}
		}
	}
	return memberValue(field, m, join)
}

// stringValue reads a raw JSON string, valid JSON, as text. flags say
// which checks it needs: UTF-8 only when it has bytes ≥ 0x80, decoding
// only when it has escapes, and the surrogate check only for \u escapes.
func stringValue(raw []byte, flags uint8) value {
	if flags&fNonASCII != 0 && !utf8.Valid(raw) {
		// encoding/json would silently turn bad bytes into U+FFFD.
		return value{present: true, badUTF8: true}
	}
	// Without an escape the text is the bytes between the quotes: valid
	// JSON holds no raw control characters and utf8.Valid has refused bad
	// bytes, so decoding could change nothing.
	if flags&fEscape == 0 {
		return value{s: string(raw[1 : len(raw)-1]), present: true}
	}
	if flags&fUEscape != 0 {
		if esc := loneSurrogate(raw); esc != "" {
			return value{present: true, badUTF8: true, note: "lone surrogate escape " + esc}
		}
	}
	if s, ok := unquote(raw); ok {
		return value{s: s, present: true}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return value{present: true, badType: "string: " + err.Error()}
	}
	return value{s: s, present: true}
}

// jsonValue reads one mapped field's raw value (not null) as text: a
// string as it is; a number as written and a boolean as true or false
// (answers are often numbers; ids are too); a list of those joined by the
// field's separator. Objects, and lists holding lists or objects, have no
// one text and are the wrong type.
func jsonValue(field string, raw []byte, join map[string]string) value {
	if raw[0] == '"' {
		flags := fString | fUEscape | fNonASCII // unknown: check both
		if bytes.IndexByte(raw, '\\') >= 0 {
			flags |= fEscape
		}
		return stringValue(raw, flags)
	}
	if !utf8.Valid(raw) {
		// encoding/json would silently turn bad bytes into U+FFFD.
		return value{present: true, badUTF8: true}
	}
	switch raw[0] {
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return value{s: string(raw), present: true}
	case 't', 'f':
		if field == "id" {
			return value{present: true, badType: "boolean"}
		}
		return value{s: string(raw), present: true}
	case '[':
		if field == "id" {
			return value{present: true, badType: "array"}
		}
		sep, ok := join[field]
		if !ok {
			sep = DefaultJoin
		}
		var parts []string
		for _, e := range arrayElems(raw) {
			if string(e) == "null" {
				continue // a gap in the list, not text
			}
			if e[0] == '[' || e[0] == '{' {
				return value{present: true, badType: "array of " + jsonKind(e[0]) + "s"}
			}
			v := jsonValue(field, e, join)
			if v.badUTF8 || v.badType != "" {
				return v
			}
			parts = append(parts, v.s)
		}
		return value{s: strings.Join(parts, sep), present: true, list: true, elems: parts}
	}
	return value{present: true, badType: jsonKind(raw[0])}
}

// unquote decodes a raw JSON string that json.Valid, utf8.Valid and
// loneSurrogate have passed, as encoding/json would, in one pass without
// its reflection (decoding strings was a third of parsing a row); ok is
// false for anything it does not expect, which then goes to encoding/json.
func unquote(raw []byte) (string, bool) {
	b, ok := appendUnquote(make([]byte, 0, len(raw)), raw)
	if !ok {
		return "", false
	}
	// The bytes are the string's alone: hand them over, as a
	// strings.Builder would, with one copy and not two.
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// appendUnquote appends the text of raw, a JSON string with its quotes, to
// out.
func appendUnquote(out []byte, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return out, false
	}
	b := raw[1 : len(raw)-1]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\\')
		if i < 0 {
			out = append(out, b...)
			break
		}
		out = append(out, b[:i]...)
		b = b[i:]
		if len(b) < 2 {
			return out, false
		}
		switch c := b[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b, 0)
			if !ok {
				return out, false
			}
			n := 6
			if utf16.IsSurrogate(r) {
				lo, ok := hex4(b, 6)
				if !ok {
					return out, false
				}
				r, n = utf16.DecodeRune(r, lo), 12
				if r == utf8.RuneError {
					return out, false
				}
			}
			out = utf8.AppendRune(out, r)
			b = b[n:]
			continue
		default:
			return out, false
		}
		b = b[2:]
	}
	return out, true
}

// hex4 reads the \uXXXX escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// jsonKind names the JSON type a value starting with c has.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// objectMembers splits the top level of b, a valid JSON object (json.Valid
// holds), into its members, in order. Validity makes the scan simple: a
// string ends at the first unescaped quote, a container at its matching
// bracket.
func objectMembers(b []byte) []member {
	var out []member
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		k := skipString(b, i)
		key := b[i:k]
		i = skipSpace(b, skipSpace(b, k)+1) // past ':'
		j := skipValue(b, i)
		out = append(out, member{key: key, val: b[i:j]})
		i = skipSpace(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return len(b)
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the character it escapes
	}
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// jsonKey decodes a raw JSON string key as encoding/json does, so that
// keys equal to it ("solu\u0074ion" and "solution") are equal here; a key
// that is not valid UTF-8 is kept as its raw bytes (below).
func jsonKey(raw []byte) string {
	if !utf8.Valid(raw) {
		// Decoding would make every bad byte U+FFFD, and two different
		// keys one: a false duplicate_key. Kept as its raw bytes, such a
		// key stays itself, and no configured name matches it.
		return string(raw)
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return string(raw)
	}
	return s
}

// loneSurrogate returns the first \uXXXX escape in the raw JSON string that
// is half of a UTF-16 surrogate pair without its other half ("\ud800",
// "\uDC00"), or "". Such a string has no UTF-8 form; encoding/json would
// replace the escape with U+FFFD, so a damaged row would pass as text.
func loneSurrogate(raw []byte) string {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			return ""
		}
		i += j
		r, ok := hex4(i)
		if !ok {
			i += 2 // \n, \", \\ ...: the escaped character is not a new escape
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 12
				continue
			}
			return string(raw[i : i+6])
		case r >= 0xDC00 && r <= 0xDFFF:
			return string(raw[i : i+6])
		}
		i += 6
	}
	return ""
}

// controlChar finds the first control character in s (C0, DEL, C1), other
// than tab, line feed and carriage return when text allows them: a NUL or
// a form feed in a statement is damage (often LaTeX's \f of \frac written
// into JSON unescaped), and such bytes break every tool downstream.
func controlChar(s string, text bool) (rune, int, bool) {
	// ASCII first, byte by byte (most text is ASCII, and decoding runes
	// to ask unicode.IsControl was a tenth of judging a row); from the
	// first byte ≥ 0x80 on, runes, for the C1 controls.
	i := 0
	for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
		for i+8 <= len(s) && !asciiStop(leWord(s[i:])) {
			i += 8
		}
		if i >= len(s) || s[i] >= utf8.RuneSelf {
			break
		}
		c := s[i]
		if c >= 0x20 && c != 0x7f {
			continue
		}
		if text && (c == '\n' || c == '\t' || c == '\r') {
			continue
		}
		return rune(c), i, true
	}
	for j, r := range s[i:] {
		i := i + j
		if !unicode.IsControl(r) {
			continue
		}
		if text && (r == '\n' || r == '\t' || r == '\r') {
			continue
		}
		return r, i, true
	}
	return 0, 0, false
}

// bareCR is the index of the first carriage return in b not followed by a
// line feed, or -1.
func bareCR(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			return i
		}
	}
	return -1
}

// charName shows a control character in a reject's detail.
func charName(r rune) string {
	switch r {
	case 0:
		return "NUL (U+0000)"
	case '\f':
		return `form feed (U+000C; an unescaped \f, as in \frac?)`
	case '\b':
		return `backspace (U+0008; an unescaped \b, as in \beta?)`
	case '\t':
		return "tab (U+0009)"
	case '\n':
		return "line feed (U+000A)"
	case '\r':
		return "carriage return (U+000D)"
	}
	return fmt.Sprintf("%U", r)
}

// leWord is the first eight bytes of s (len(s) ≥ 8) as a little-endian
// word: binary.LittleEndian.Uint64 for a string, without converting it to
// a []byte (a copy) on every eight bytes.
func leWord(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
