// Package llmjson reads the JSON object in an LLM's answer tolerantly:
// models wrap it in ```json fences, put prose or reasoning before or after
// it, or answer with several objects. The first complete, valid object wins.
package llmjson

import (
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoObject says the answer holds no valid JSON object.
var ErrNoObject = errors.New("llmjson: no JSON object in the answer")

// Object returns the first valid JSON object in raw, as raw fields.
func Object(raw string) (map[string]json.RawMessage, error) {
	for start := strings.IndexByte(raw, '{'); start >= 0; {
		if end := matchBrace(raw, start); end > start {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(raw[start:end+1]), &m); err == nil {
				return m, nil
			}
		}
		next := strings.IndexByte(raw[start+1:], '{')
		if next < 0 {
			break
		}
		start += 1 + next
	}
	return nil, ErrNoObject
}

// matchBrace returns the index of the brace closing the one at start,
// skipping braces inside JSON strings, or -1.
func matchBrace(s string, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// Number reads a JSON number, or a string holding one ("0.8"), as float64.
func Number(raw json.RawMessage) (float64, bool) {
	if strings.TrimSpace(string(raw)) == "null" {
		return 0, false // Unmarshal would leave 0 and report success
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		var g float64
		if json.Unmarshal([]byte(strings.TrimSpace(s)), &g) == nil {
			return g, true
		}
	}
	return 0, false
}
