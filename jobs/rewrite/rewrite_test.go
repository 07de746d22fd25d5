package rewrite

import "testing"

func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		name, raw, want string
		ok              bool
	}{
		{"tagged", "Sure.\n<rewrite>Determine $t$.</rewrite>", "Determine $t$.", true},
		{"last of several", "<rewrite>draft</rewrite> better: <rewrite> Final $y$. </rewrite>", "Final $y$.", true},
		{"after thinking", "<think>maybe <rewrite>no</rewrite></think><rewrite>yes</rewrite>", "yes", true},
		{"only inside thinking", "<think><rewrite>no</rewrite></think>done", "", false},
		{"untagged", "Determine $t$.", "", false},
		{"unclosed", "<rewrite>Determine $t$.", "", false},
		{"multi-line", "<rewrite>Line one.\nLine two.</rewrite>", "Line one.\nLine two.", true},
	} {
		got, ok := ParseAnswer(c.raw)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: ParseAnswer = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
