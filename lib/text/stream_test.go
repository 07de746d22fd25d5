package text

import (
	"slices"
	"testing"
)

// collect is a Sink that rebuilds the token strings, pairs included.
type collect struct {
	singles, out []string
	pairs        []string
}

func (c *collect) Token(tok []byte) {
	c.singles = append(c.singles, string(tok))
	c.out = append(c.out, string(tok))
}
func (c *collect) Pair(i int) { c.pairs = append(c.pairs, c.singles[i]+" "+c.singles[i+1]) }

func streamed(t Tokenizer, s string) []string {
	var c collect
	Stream(t, s, &c)
	return append(c.out, c.pairs...)
}

// upper is a Tokenizer from outside the package: Stream must use Append.
type upper struct{}

func (upper) Name() string { return "upper" }
func (upper) Append(dst []string, s string) []string {
	return append(dst, "X"+s)
}

func TestStreamMatchesAppend(t *testing.T) {
	var texts []string
	for _, tt := range []string{"", "A b  c", "İX ΟΔΟΣ \u001c x", `$x^2 + \frac{a}{b}$ and \(y\)`, "ab\xffcd Ab"} {
		texts = append(texts, tt)
	}
	if p, err := mathDataPathOK(); err == nil {
		docs := readMATH(t, p)
		texts = append(texts, docs[:500]...)
	}
	for _, tok := range []Tokenizer{Plain, Sklearn, Math, upper{}} {
		for _, s := range texts {
			want, got := Tokens(tok, s), streamed(tok, s)
			if !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%s: Stream(%.60q) = %q, Append %q", tok.Name(), s, got, want)
			}
		}
	}
}

type discard struct{ n int }

func (d *discard) Token(tok []byte) { d.n += len(tok) }
func (d *discard) Pair(i int)       { d.n += i }

func TestStreamDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	s := `Find the Value of $\frac{X^2}{Y} + \sqrt{3}$ when \(x = 2\).  İt is NOT 5.`
	var d discard
	for _, tok := range []Tokenizer{Plain, Sklearn, Math} {
		Stream(tok, s, &d) // grow the pooled buffers
		if n := testing.AllocsPerRun(100, func() { Stream(tok, s, &d) }); n > 0 {
			t.Errorf("Stream(%s) allocates %v times per call", tok.Name(), n)
		}
	}
}
