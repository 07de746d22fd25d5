package minhash

import (
	"slices"
	"strings"
	"unicode"
)

// Numbers returns the multiset of numeric tokens of s, sorted: the maximal
// runs of decimal digits of Normalize(s). Taking them from the normalised
// text makes them blind to LaTeX spacing and markup ("\frac{1}{2}",
// "\frac {1}{2}" and "½" all give [1 2]; "1{,}000" and "1,000" both give
// [000 1]) while "3.5" ([3 5]) and "35" ([35]) stay apart.
func Numbers(s string) []string {
	var out []string
	n := Normalize(s)
	start := -1
	for i, r := range n + " " {
		if r >= '0' && r <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, n[start:i])
			start = -1
		}
	}
	slices.Sort(out)
	return out
}

// FinalQuestion returns the normalised last sentence of s: the text after
// the last sentence end ('.', '?' or '!' followed by a space, outside $…$
// maths) that is followed by more text. A statement that ends with display
// maths after its last prose sentence ("Compute the following. $$…$$")
// thus gives the maths. Multi-part problems that share a preamble and ask
// different sub-questions differ here even when their shingles mostly agree.
func FinalQuestion(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	cut, inMath := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++ // "\$" and "\." are not delimiters
		case c == '$':
			inMath = !inMath
		case !inMath && (c == '.' || c == '?' || c == '!') && i+1 < len(s) && unicode.IsSpace(rune(s[i+1])):
			if strings.TrimSpace(s[i+1:]) != "" {
				cut = i + 1
			}
		}
	}
	return Normalize(s[cut:])
}

// GuardReason is why Guard keeps two statements apart; "" when it does not.
type GuardReason string

// The reasons Guard gives.
const (
	GuardNumbers  GuardReason = "numbers differ"
	GuardQuestion GuardReason = "final questions differ"
)

// Guard reports whether two statements that look like near-duplicates by
// their shingles must still be kept apart: their multisets of numbers
// differ (exercises that differ in one number), or their final questions
// differ, i.e. neither final question occurs in the other statement
// (multi-part problems with a shared preamble). True copies that differ
// only in white space, punctuation or LaTeX spacing, or by an appended
// instruction, pass.
func Guard(a, b string) GuardReason {
	if !slices.Equal(Numbers(a), Numbers(b)) {
		return GuardNumbers
	}
	// A question counts as shared when it occurs, as whole words, anywhere
	// in the other statement: a copy with an instruction appended ("Show
	// your work.", "Express your answer as a fraction.") still asks it.
	na, nb := " "+Normalize(a)+" ", " "+Normalize(b)+" "
	if !strings.Contains(nb, " "+FinalQuestion(a)+" ") && !strings.Contains(na, " "+FinalQuestion(b)+" ") {
		return GuardQuestion
	}
	return ""
}
