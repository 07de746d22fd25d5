package ingest

import (
	"strconv"
	"strings"
)

// step is one step of a field path: an object key, or an array index when
// key is empty and index ≥ 0.
type step struct {
	key   string
	index int
}

// parsePath splits a field path such as content.problem or
// messages[0].content into its steps; ok is false for a name that is no
// path (no '.' or '['), or one whose brackets do not hold an index, which
// is then only ever a top-level key.
func parsePath(name string) (steps []step, ok bool) {
	if !strings.ContainsAny(name, ".[") {
		return nil, false
	}
	for _, part := range strings.Split(name, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			steps = append(steps, step{key: key, index: -1})
		}
		if rest == "" {
			if key == "" {
				return nil, false // an empty part: a.b. or a..b
			}
			continue
		}
		for _, ix := range strings.Split(rest, "[") {
			n, err := strconv.Atoi(strings.TrimSuffix(ix, "]"))
			if !strings.HasSuffix(ix, "]") || err != nil || n < 0 {
				return nil, false
			}
			steps = append(steps, step{index: n})
		}
	}
	return steps, len(steps) > 0
}

// resolvePath follows steps from b, a valid JSON value, to the raw value
// they name. found is false when a key is missing, an index out of range,
// or a step meets a value of the other kind; dup names a key that appears
// twice in an object on the way, whose value is then ambiguous.
func resolvePath(b []byte, steps []step) (raw []byte, found bool, dup string) {
	for _, s := range steps {
		switch {
		case s.key != "" && len(b) > 0 && b[0] == '{':
			var next []byte
			for _, m := range objectMembers(b) {
				if jsonKey(m.key) != s.key {
					continue
				}
				if next != nil {
					return nil, false, s.key
				}
				next = m.val
			}
			if next == nil {
				return nil, false, ""
			}
			b = next
		case s.key == "" && len(b) > 0 && b[0] == '[':
			elems := arrayElems(b)
			if s.index >= len(elems) {
				return nil, false, ""
			}
			b = elems[s.index]
		default:
			return nil, false, ""
		}
	}
	return b, true, ""
}

// arrayElems splits the top level of b, a valid JSON array, into its
// elements, raw and in order.
func arrayElems(b []byte) [][]byte {
	var out [][]byte
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		j := skipValue(b, i)
		out = append(out, b[i:j])
		i = skipSpace(b, j)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return out
}
