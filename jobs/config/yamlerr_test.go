package config

import (
	"strings"
	"testing"
)

// TestSyntaxErrorNamesTheLine: a YAML syntax error names the line that
// breaks the document, counted from 1 (yaml.v3 names the line before it,
// or none), and quotes it.
func TestSyntaxErrorNamesTheLine(t *testing.T) {
	for _, c := range []struct {
		doc  string
		line string
	}{
		{"run: r\nroot: d\ningest:\n  sources:\n    - name: a\n      fields: {solution: solutions[0]}\n      paths: [a]\n", "line 6: did not find expected ',' or '}': fields: {solution: solutions[0]}"},
		{"fields: {solution: solutions[0]}\n", "line 1: "},
		{"run: r\nroot:\n  a: b\n c: d\n", "line 4: "},
	} {
		_, err := Parse([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), "yaml: "+c.line) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.line)
		}
	}
}

// TestSecondDocumentRefused: settings after a "---" are not silently
// ignored; a leading "---" and a trailing empty one are fine.
func TestSecondDocumentRefused(t *testing.T) {
	_, err := Parse([]byte("run: r\nroot: d\n---\nseed: 9\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3: a second YAML document (after ---)") {
		t.Errorf("second document: %v", err)
	}
	for _, doc := range []string{"---\nrun: r\nroot: d\n", "run: r\nroot: d\n---\n", "run: r\nroot: d\n"} {
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
}
