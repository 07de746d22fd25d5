package minhash

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/saber-math/saber/lib/text"
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
// the last sentence end ('.', '?' or '!' followed by a space, outside
// maths: $…$, $$…$$, \[…\] and \(…\)) that is followed by more words. A
// statement that ends with display maths after its last prose sentence
// ("Compute the following. $$…$$") thus gives the maths. A sentence end
// followed only by what normalises to nothing ("…, 86? $$", "….\n\\]") is
// no cut: the question is the sentence before it. Multi-part problems that
// share a preamble and ask different sub-questions differ here even when
// their shingles mostly agree. Drawing code, images and URLs (text.Clean)
// are not read.
func FinalQuestion(s string) string { return Normalize(finalSentence(s)) }

// finalSentence is FinalQuestion before normalising: the raw text.
func finalSentence(s string) string {
	// A figure's code is no question: "Find $b.$ [asy]…[/asy]" asks for b.
	s = strings.TrimRightFunc(text.Clean(s), unicode.IsSpace)
	var cuts []int
	inMath := false
	end := func(c byte) bool { return c == '.' || c == '?' || c == '!' }
	spaceAt := func(i int) bool { return i < len(s) && unicode.IsSpace(rune(s[i])) }
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case '[', '(':
				inMath = true
			case ']', ')':
				inMath = false
			}
			i++ // "\$" and "\." are not delimiters
		case c == '$':
			at, closing := i, inMath
			inMath = !inMath
			if i+1 < len(s) && s[i+1] == '$' {
				i++ // $$ opens or closes display maths once
			}
			// "… = 12.$ What is" ends its sentence as "… = 12$. What
			// is" does: writers put the full stop on either side.
			if before := strings.TrimRightFunc(s[:at], unicode.IsSpace); closing && before != "" && end(before[len(before)-1]) && spaceAt(i+1) {
				cuts = append(cuts, i+1)
			}
		case !inMath && end(c) && spaceAt(i+1):
			cuts = append(cuts, i+1)
		}
	}
	for k := len(cuts) - 1; k >= 0; k-- {
		if Normalize(s[cuts[k]:]) != "" {
			return s[cuts[k]:]
		}
	}
	return s
}

// mathSpacing are LaTeX spellings that change how maths looks, not what it
// says; mathOf drops them.
var mathSpacing = strings.NewReplacer(`\left`, "", `\right`, "", `\,`, "", `\;`, "", `\!`, "", `\ `, "", `\dfrac`, `\frac`, `\tfrac`, `\frac`, "{", "", "}", "")

// mathOf returns the maths of s ($…$ spans) without white space, spacing
// commands or braces: "$y = |f(x)|$" and "$y=f(|x|)$" differ here though
// Normalize reads both as "y f x", while "$\frac {1}{2} x$" and
// "$\frac{1}{2}x$" are the same.
func mathOf(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '$':
			if in {
				b.WriteString(`\$`)
			}
			i++
		case c == '$':
			if in { // a full stop or question mark closing the span is prose
				trimmed := strings.TrimRight(b.String(), ".,;:?!")
				b.Reset()
				b.WriteString(trimmed)
			}
			in = !in
		case in && !unicode.IsSpace(rune(c)):
			b.WriteByte(c)
		}
	}
	return mathSpacing.Replace(b.String())
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
	// Both sides without figures, as FinalQuestion reads them.
	na, nb := canonical(Normalize(text.Clean(a))), canonical(Normalize(text.Clean(b)))
	fa, fb := finalSentence(a), finalSentence(b)
	qa, qb := canonical(Normalize(fa)), canonical(Normalize(fb))
	if strings.TrimSpace(qa) == "" || strings.TrimSpace(qb) == "" {
		return "" // no words to ask with (maths only): nothing to compare
	}
	if !strings.Contains(nb, qa) && !strings.Contains(na, qb) {
		return GuardQuestion
	}
	// The same words may ask about other maths: "the graph of $y =
	// |f(x)|$" and "of $y = f(|x|)$" normalise alike.
	if ma, mb := mathOf(fa), mathOf(fb); ma != mb && ma != "" && mb != "" {
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
	// LaTeX spellings of the same maths.
	"dfrac": "frac", "tfrac": "frac", "left": "", "right": "",
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
