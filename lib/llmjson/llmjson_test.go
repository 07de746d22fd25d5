package llmjson

import (
	"encoding/json"
	"testing"
)

func TestObject(t *testing.T) {
	tests := []struct {
		raw, key string
		ok       bool
	}{
		{`{"a": 1}`, "a", true},
		{"```json\n{\"a\": 1}\n```", "a", true},
		{"Here you go:\n{\"a\": {\"b\": \"}\"}} and some trailing text {", "a", true},
		{`thinking {not json} then {"a": 2}`, "a", true},
		{`{"a": "unterminated`, "", false},
		{`no object here`, "", false},
		{`[1, 2]`, "", false},
	}
	for _, tt := range tests {
		m, err := Object(tt.raw)
		if (err == nil) != tt.ok {
			t.Errorf("Object(%q) err = %v", tt.raw, err)
			continue
		}
		if tt.ok {
			if _, has := m[tt.key]; !has {
				t.Errorf("Object(%q) = %v, lacks %q", tt.raw, m, tt.key)
			}
		}
	}
}

func TestNumber(t *testing.T) {
	for raw, want := range map[string]float64{`0.5`: 0.5, `"0.75"`: 0.75, `1`: 1} {
		if got, ok := Number(json.RawMessage(raw)); !ok || got != want {
			t.Errorf("Number(%s) = %v, %v", raw, got, ok)
		}
	}
	for _, raw := range []string{`"high"`, `null`, `[1]`} {
		if _, ok := Number(json.RawMessage(raw)); ok {
			t.Errorf("Number(%s) accepted", raw)
		}
	}
}
