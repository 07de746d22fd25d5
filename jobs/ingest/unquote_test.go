package ingest

import (
	"encoding/json"
	"testing"
)

// TestUnquote: the one-pass string decoder gives what encoding/json gives
// for every escape a valid row can hold.
func TestUnquote(t *testing.T) {
	for _, raw := range []string{
		`"plain"`, `"a\"b"`, `"back\\slash \\frac{1}{2}"`, `"\/\b\f\n\r\t"`, `"\u00e9\u4e2d"`,
		`"\ud83d\ude00 pair"`, `"\u0000 nul"`, `"mixed é \n \u00e9"`, `""`, `"\\"`, `"end\\"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := unquote([]byte(raw))
		if !ok || got != want {
			t.Errorf("unquote(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}
