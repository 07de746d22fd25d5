package synth

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestFixPunct(t *testing.T) {
	for in, want := range map[string]string{
		"What is $x$. Find $y$?":                     "What is $x$? Find $y$.",
		"Given that $a = 1.5$, what is the value.":   "Given that $a = 1.5$, what is the value?",
		"Find the sum of $1, 2, 3$. How many ways.":  "Find the sum of $1, 2, 3$. How many ways?",
		"When they are grouped, none remain. Why?":   "When they are grouped, none remain. Why?",
		"In triangle $ABC$, find $BC$?":              "In triangle $ABC$, find $BC$.",
		"Whatever happens. Thanks.":                  "Whatever happens. Thanks.",
		"Compute $f(2.5)$ and the value at $x = 3$?": "Compute $f(2.5)$ and the value at $x = 3$.",
	} {
		if got := fixPunct(in); got != want {
			t.Errorf("fixPunct(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpinAndTidy(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	seen := map[string]bool{}
	for k := 0; k < 200; k++ {
		seen[g.spinf("A [[big|small|]] box of $%d$ [[items%.0s|%s's items]].", 5, "Ann")] = true
	}
	for _, want := range []string{"A big box of $5$ items.", "A box of $5$ Ann's items.", "A small box of $5$ items."} {
		if !seen[want] {
			t.Errorf("spinf never produced %q; got %v", want, seen)
		}
	}
	for s := range seen {
		if strings.Contains(s, "  ") || strings.Contains(s, "%!") {
			t.Errorf("untidy output %q", s)
		}
	}
}

func TestSwapPhrases(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(3, 4))}
	out := map[string]bool{}
	for k := 0; k < 300; k++ {
		out[g.swapPhrases("Find the smallest number of cm/s and at least the largest count, in cm.")] = true
	}
	for s := range out {
		if strings.Contains(s, "centimeters/s") || strings.Contains(s, "at smallest") || !strings.HasSuffix(s, ".") {
			t.Errorf("bad swap %q", s)
		}
	}
	if len(out) < 10 {
		t.Errorf("only %d variants", len(out))
	}
}

// TestSpinAlternativesConsistent checks, in the sources, that all
// alternatives of every [[a|b]] choice use the same formatting verbs in the
// same order, which spinf relies on.
func TestSpinAlternativesConsistent(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	spinRe := regexp.MustCompile(`\[\[(.*?)\]\]`)
	verbRe := regexp.MustCompile(`%(?:\.0)?[sdc]`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range spinRe.FindAllStringSubmatch(string(src), -1) {
			n++
			alts := strings.Split(m[1], "|")
			norm := func(a string) string {
				return strings.ReplaceAll(strings.Join(verbRe.FindAllString(a, -1), ""), "%.0s", "%s")
			}
			for _, a := range alts[1:] {
				if norm(a) != norm(alts[0]) {
					t.Errorf("%s: alternatives of %q use different verbs", f, m[0])
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("found only %d choices; is the test looking at the sources?", n)
	}
}
