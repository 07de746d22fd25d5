package ingest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestTextCoercion: numbers and booleans become their JSON text where the
// target is text, and list-valued fields are joined (by the field's join:
// separator, else a blank line), skipping nulls.
func TestTextCoercion(t *testing.T) {
	tests := []struct {
		name, row string
		join      map[string]string
		want      string // the solution
	}{
		{"integer", `{"solution": 42}`, nil, "42"},
		{"decimal and exponent", `{"solution": -1.5e3}`, nil, "-1.5e3"},
		{"boolean", `{"solution": false}`, nil, "false"},
		{"list", `{"solution": ["First.", "Second."]}`, nil, "First.\n\nSecond."},
		{"list with its separator", `{"solution": ["a", "b", "c"]}`, map[string]string{"solution": "\n---\n"}, "a\n---\nb\n---\nc"},
		{"list of mixed scalars and nulls", `{"solution": ["x", null, 3, true]}`, nil, "x\n\n3\n\ntrue"},
		{"escapes in list elements", `{"solution": ["a\"b", "\u00e9"]}`, nil, "a\"b\n\né"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := parseJSONLine(1, []byte(tt.row), map[string]string{"solution": "solution"}, tt.join)
			if v := rec.vals["solution"]; rec.reject != nil || !v.present || v.badType != "" || v.badUTF8 || v.s != tt.want {
				t.Errorf("reject %+v, value %+v; want %q", rec.reject, v, tt.want)
			}
		})
	}
}

// TestCompetitionArray is the first bar: a JSON array of 1,500
// pretty-printed rows with integer ids, nested statements and list-valued
// solutions loads with a field map alone, no conversion script.
func TestCompetitionArray(t *testing.T) {
	rows := make([]map[string]any, 1500)
	for i := range rows {
		rows[i] = map[string]any{
			"id":        i + 1,
			"content":   map[string]any{"problem": fmt.Sprintf("Find the %dth prime.", i+1), "year": 2000 + i%20},
			"solutions": []string{fmt.Sprintf("By sieve, p%d.", i), "By counting."},
			"answer":    i * 7,
		}
	}
	body, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	src := "    - {name: comp, paths: [comp.json], id_prefix: \"comp/\", join: {solution: \"\\n\\n---\\n\\n\"}, fields: {id: id, statement: content.problem, solution: solutions, subject: content.year}}\n"
	cfg := setup(t, map[string][]byte{"comp.json": body}, src)
	probs, rejs, err := runShards(t, cfg, 1)
	if err != nil || len(rejs) != 0 || len(probs) != 1500 {
		t.Fatalf("%d problems, %d rejects (%+v), err %v; want 1500 rows", len(probs), len(rejs), rejs[:min(3, len(rejs))], err)
	}
	byID := map[string]int{}
	for i, p := range probs {
		byID[p.ID] = i
	}
	p := probs[byID["comp/42"]]
	if p.Statement != "Find the 42th prime." || p.Solution != "By sieve, p41.\n\n---\n\nBy counting." || p.Subject != "2001" {
		t.Errorf("row 42: %+v", p)
	}
	if !strings.HasPrefix(probs[byID["comp/1500"]].Statement, "Find the 1500th") {
		t.Errorf("row 1500: %+v", probs[byID["comp/1500"]])
	}
}
