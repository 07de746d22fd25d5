package ingest

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		ok    bool
	}{
		{"problem", nil, false},
		{"content.problem", []step{{"content", -1}, {"problem", -1}}, true},
		{"messages[0].content", []step{{"messages", -1}, {"", 0}, {"content", -1}}, true},
		{"a[1][2]", []step{{"a", -1}, {"", 1}, {"", 2}}, true},
		{"[3].x", []step{{"", 3}, {"x", -1}}, true},
		{"a..b", nil, false},
		{"a.", nil, false},
		{"a[x]", nil, false},
		{"a[-1]", nil, false},
		{"a[1", nil, false},
	}
	for _, tt := range tests {
		steps, ok := parsePath(tt.name)
		if ok != tt.ok || (ok && !reflect.DeepEqual(steps, tt.steps)) {
			t.Errorf("parsePath(%q) = %v, %v; want %v, %v", tt.name, steps, ok, tt.steps, tt.ok)
		}
	}
}

// TestNestedFields: a field map reaches nested objects and array elements
// by path, in JSONL rows and JSON-array elements alike; a top-level key
// spelt with a dot is still that key; a path no row has is the typo error.
func TestNestedFields(t *testing.T) {
	fields := map[string]string{"statement": "content.problem", "solution": "messages[1].content", "id": "meta.ids[0]"}
	tests := []struct {
		name, row    string
		fields       map[string]string
		want         map[string]string // field → value; absent fields ""
		reject       string
		rejectDetail string
	}{
		{"nested", `{"content": {"problem": "P"}, "messages": [{"content": "Q"}, {"content": "S"}], "meta": {"ids": [7, 8]}}`,
			fields, map[string]string{"statement": "P", "solution": "S", "id": "7"}, "", ""},
		{"white space", `{ "content" : { "problem" : "P" } , "messages" : [ {"content":"Q"} , { "content" : "S" } ] }`,
			fields, map[string]string{"statement": "P", "solution": "S", "id": ""}, "", ""},
		{"index out of range", `{"content": {"problem": "P"}, "messages": [{"content": "Q"}]}`,
			fields, map[string]string{"statement": "P", "solution": "", "id": ""}, "", ""},
		{"wrong kind on the way", `{"content": "P", "messages": {"1": {"content": "S"}}}`,
			fields, map[string]string{"statement": "", "solution": "", "id": ""}, "", ""},
		{"dotted top-level key wins", `{"content.problem": "top", "content": {"problem": "nested"}}`,
			map[string]string{"statement": "content.problem"}, map[string]string{"statement": "top"}, "", ""},
		// A where: reference ("@" + its path) sorts before the problem
		// field of the same path: each gets the value.
		{"one path, two fields", `{"content": {"problem": "P"}}`,
			map[string]string{"@content.problem": "content.problem", "statement": "content.problem"}, map[string]string{"@content.problem": "P", "statement": "P"}, "", ""},
		{"duplicate key on the path", `{"content": {"problem": "A", "problem": "B"}}`,
			map[string]string{"statement": "content.problem"}, nil, dataset.ReasonDuplicateKey, "on the path content.problem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := parseJSONLine(1, []byte(tt.row), tt.fields, nil)
			if tt.reject != "" {
				if rec.reject == nil || rec.reject.Reason != tt.reject || !strings.Contains(rec.reject.Detail, tt.rejectDetail) {
					t.Fatalf("reject %+v, want %s with %q", rec.reject, tt.reject, tt.rejectDetail)
				}
				return
			}
			if rec.reject != nil {
				t.Fatalf("reject %+v", rec.reject)
			}
			for f, w := range tt.want {
				if v := rec.vals[f]; v.s != w || v.present != (w != "") {
					t.Errorf("%s = %+v, want %q", f, v, w)
				}
			}
			for i, k := range rec.keys {
				if slices.Contains(rec.keys[:i], k) {
					t.Errorf("keys %q: %q twice", rec.keys, k)
				}
			}
		})
	}

	body := `[{"meta": {"n": 1}, "content": {"problem": "Find x."}, "sol": {"text": "x = 1."}},` + "\n" +
		` {"meta": {"n": 2}, "content": {"problem": "Find y."}, "sol": {"text": "y = 2."}}]`
	src := "    - {name: s, paths: [in.json], fields: {id: meta.n, statement: content.problem, solution: sol.text}}\n"
	probs, rejs, err := runShards(t, setup(t, map[string][]byte{"in.json": []byte(body)}, src), 1)
	if err != nil || len(rejs) != 0 || len(probs) != 2 || probs[0].Statement != "Find x." || probs[1].Solution != "y = 2." {
		t.Fatalf("problems %+v, rejects %+v, err %v", probs, rejs, err)
	}
	src = "    - {name: s, paths: [in.json], fields: {id: meta.m, statement: content.problem, solution: sol.text}}\n"
	if _, _, err := runShards(t, setup(t, map[string][]byte{"in.json": []byte(body)}, src), 1); err == nil || !strings.Contains(err.Error(), `fields.id is "meta.m", but no row of its files has that field`) {
		t.Fatalf("err = %v, want the field named", err)
	}
}
