package ingest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
)

// arrayOf is n good rows as one JSON array, pretty-printed as json.MarshalIndent does.
func arrayOf(t *testing.T, n int, indent bool) []byte {
	t.Helper()
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"uid": fmt.Sprintf("g%d", i), "statement": fmt.Sprintf("Find x%d.", i), "solution": fmt.Sprintf("x = %d.", i)}
	}
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(rows, "", "  ")
	} else {
		b, err = json.Marshal(rows)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJSONArray: a file holding one JSON array is read as rows, whatever
// its name, layout or compression, unless format: jsonl forbids it.
func TestJSONArray(t *testing.T) {
	tests := []struct {
		name, file string
		body       []byte
		format     string
	}{
		{"one line", "in.json", arrayOf(t, 5, false), ""},
		{"pretty-printed", "in.json", arrayOf(t, 5, true), ""},
		{"named .jsonl", "in.jsonl", arrayOf(t, 5, true), ""},
		{"after a BOM and blank lines", "in.json", append([]byte("\xef\xbb\xbf\n\n  "), arrayOf(t, 5, true)...), ""},
		{"gzip", "in.json.gz", gzipped(string(arrayOf(t, 5, true))), ""},
		{"forced", "in.json", arrayOf(t, 5, false), "json"},
		{"trailing white space", "in.json", append(arrayOf(t, 5, true), "\n\n  \n"...), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := fmt.Sprintf("    - {name: s, paths: [%s], fields: {id: uid}", tt.file)
			if tt.format != "" {
				src += ", format: " + tt.format
			}
			probs, rejs, err := runShards(t, setup(t, map[string][]byte{tt.file: tt.body}, src+"}\n"), 1)
			if err != nil || len(rejs) != 0 || len(probs) != 5 {
				t.Fatalf("%d problems, rejects %+v, err %v; want 5 rows", len(probs), rejs, err)
			}
			ids := map[string]bool{}
			for _, p := range probs {
				ids[p.ID] = true
			}
			for i := 0; i < 5; i++ {
				if !ids[fmt.Sprintf("g%d", i)] {
					t.Errorf("row g%d missing; got %v", i, ids)
				}
			}
		})
	}
}

// TestJSONArrayDamagedElements: a damaged element of an array is one
// reject, at its 1-based index in the array, with the reason a JSONL line
// would get (the same row parser judges both); the elements around it are
// kept, even after one too large to read.
func TestJSONArrayDamagedElements(t *testing.T) {
	good := func(i int) string {
		return fmt.Sprintf(`{"uid": "g%d", "statement": "Find x%d.", "solution": "x = %d."}`, i, i, i)
	}
	tests := []struct {
		name, elem, reason, field, detail string
	}{
		{"duplicate key", `{"uid": "d", "statement": "a", "statement": "b", "solution": "t"}`, dataset.ReasonDuplicateKey, "statement", "more than once"},
		{"lone surrogate", `{"uid": "d", "statement": "a\ud800", "solution": "t"}`, dataset.ReasonInvalidUTF8, "statement", "lone surrogate"},
		{"control character", `{"uid": "d", "statement": "a\u000crac", "solution": "t"}`, dataset.ReasonControlChar, "statement", "form feed"},
		{"not an object", `[1, 2]`, dataset.ReasonNotObject, "", "array"},
		{"a number", `42`, dataset.ReasonNotObject, "", "number"},
		{"malformed inside", `{"uid": "d", "statement": "a" "solution": "t"}`, dataset.ReasonMalformed, "", ""},
		{"oversize", `{"uid": "d", "statement": "` + strings.Repeat("x", 2000) + `", "solution": "t"}`, dataset.ReasonOversize, "", "array element of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := "[\n  " + good(0) + ",\n  " + good(1) + ",\n  " + tt.elem + ",\n  " + good(3) + "\n]\n"
			probs, rejs, err := runShards(t, setup(t, map[string][]byte{"in.json": []byte(body)}, "    - {name: s, paths: [in.json], fields: {id: uid}}\n"), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) != 3 || len(rejs) != 1 {
				t.Fatalf("%d problems, rejects %+v; want 3 and one reject", len(probs), rejs)
			}
			r := rejs[0]
			if r.Line != 3 || r.Reason != tt.reason || r.Field != tt.field || !strings.Contains(r.Detail, tt.detail) || r.File != "in.json" {
				t.Errorf("reject %+v, want element 3, reason %s, field %q, detail with %q", r, tt.reason, tt.field, tt.detail)
			}
		})
	}
}
