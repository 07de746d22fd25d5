package minhash

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// label is a leading enumeration label: "Problem 3.", "Question 12:",
// "Q7)", "#4", "5.".
var label = regexp.MustCompile(`^\s*(?i:(?:(?:problem|question|exercise|task|example)\s*|q|#)\d+[.:)]?|\d+[.:)])\s`)

// StripLabel drops a leading enumeration label from s: re-posts of a problem
// number it by where it sits in a list, and that number is not part of the
// problem.
func StripLabel(s string) string {
	for { // "Question 22: Task 16." carries two
		loc := label.FindStringIndex(s)
		if loc == nil {
			return s
		}
		s = s[loc[1]:]
	}
}

// Numbers returns the multiset of numeric tokens of s, sorted: the maximal
// runs of decimal digits of Normalize(s). Taking them from the normalised
// text makes them blind to LaTeX spacing and markup ("\frac{1}{2}",
// "\frac {1}{2}" and "½" all give [1 2]; "1{,}000" and "1,000" both give
// [000 1]) while "3.5" ([3 5]) and "35" ([35]) stay apart. A leading
// enumeration label (StripLabel) is not counted.
func Numbers(s string) []string {
	var out []string
	n := Normalize(StripLabel(s))
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
	// Instruction verbs and common synonyms are canonical first, so that a
	// re-post saying "calculate" for "compute" still asks the same.
	na, nb := canonical(Normalize(a)), canonical(Normalize(b))
	if !strings.Contains(nb, canonical(FinalQuestion(a))) && !strings.Contains(na, canonical(FinalQuestion(b))) {
		return GuardQuestion
	}
	return ""
}

// synonyms maps interchangeable words of problem statements to one form;
// "" drops a filler word.
var synonyms = map[string]string{
	"determine": "find", "compute": "find", "calculate": "find", "evaluate": "find",
	"least": "smallest", "minimal": "smallest", "greatest": "largest", "maximal": "largest",
	"every": "each", "count": "number", "precisely": "exactly", "different": "distinct",
	"provided": "given", "total": "sum", "shown": "written", "got": "", "would": "", "like": "want",
	"wants": "want", "please": "",
}

// canonical returns the normalised text with synonyms replaced, wrapped in
// spaces so that Contains matches whole words.
func canonical(normalized string) string {
	words := strings.Fields(normalized)
	out := words[:0]
	for _, w := range words {
		if c, ok := synonyms[w]; ok {
			if c == "" {
				continue
			}
			w = c
		}
		out = append(out, w)
	}
	return " " + strings.Join(out, " ") + " "
}
