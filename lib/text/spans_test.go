package text

import (
	"slices"
	"testing"
)

// spanned rebuilds the token strings of Spans, pairs included, as Append
// lists them.
func spanned(t Tokenizer, s string) []string {
	var sp Spans
	sp.Tokenize(t, s)
	return sp.strings()
}

func (sp *Spans) strings() []string {
	var out []string
	for k := range sp.Len() {
		out = append(out, string(sp.Token(k)))
	}
	for _, k := range sp.Pairs {
		out = append(out, string(sp.Token(int(k)))+" "+string(sp.Token(int(k)+1)))
	}
	return out
}

// upper is a Tokenizer from outside the package: Spans must use Append.
type upper struct{}

func (upper) Name() string { return "upper" }
func (upper) Append(dst []string, s string) []string {
	return append(dst, "X"+s)
}

func TestSpansMatchesAppend(t *testing.T) {
	texts := []string{"", "A b  c", "İX ΟΔΟΣ \u001c x", `$x^2 + \frac{a}{b}$ and \(y\)`, "ab\xffcd Ab", "a bb c dd é ff",
		// Tokens longer than their text (op names), and in both the text
		// and the arena, interleaved.
		`$;;;\_\_,$ x $\text{Ⱥb} y^2$`}
	if p, err := mathDataPathOK(); err == nil {
		docs := readMATH(t, p)
		texts = append(texts, docs[:500]...)
	}
	for _, tok := range []Tokenizer{Plain, Sklearn, Math, upper{}} {
		// One Spans for all texts, as the scorers use it: a long text
		// followed by a short one must leave nothing behind.
		var sp Spans
		for _, s := range texts {
			sp.Tokenize(tok, s)
			want, got := Tokens(tok, s), sp.strings()
			if !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%s: Spans(%.60q) = %q, Append %q", tok.Name(), s, got, want)
			}
			if cap(sp.Bytes) < len(sp.Bytes)+8 {
				t.Fatalf("%s: Spans(%.60q): cap(Bytes) = %d, len %d: want 8 bytes of slack", tok.Name(), s, cap(sp.Bytes), len(sp.Bytes))
			}
		}
	}
}

func TestSpansDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	s := `Find the Value of $\frac{X^2}{Y} + \sqrt{3}$ when \(x = 2\).  İt is NOT 5.`
	for _, tok := range []Tokenizer{Plain, Sklearn, Math} {
		var sp Spans
		sp.Tokenize(tok, s) // grow the arrays
		if n := testing.AllocsPerRun(100, func() { sp.Tokenize(tok, s) }); n > 0 {
			t.Errorf("Spans.Tokenize(%s) allocates %v times per call", tok.Name(), n)
		}
	}
}
