package minhash

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

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

// GuardReason is why Guard keeps two statements apart; "" when it does not.
type GuardReason string

// The reasons Guard gives.
const (
	GuardNumbers  GuardReason = "numbers differ"
	GuardQuestion GuardReason = "final questions differ"
	// GuardAdded: one statement has a sentence the other lacks that is no
	// instruction: an added constraint or question.
	GuardAdded GuardReason = "one adds a sentence"
	// GuardSentence: an earlier sentence differs (a sign, an operator, a
	// constraint), the final questions being the same.
	GuardSentence GuardReason = "a sentence differs"
	// GuardFigure: both have figures (Asymptote, TikZ) and they differ
	// other than in white space: the same words about another drawing
	// (a label on the hypotenuse or on a leg) are another problem.
	GuardFigure GuardReason = "figures differ"
)

// figure is the code of a drawing in a statement.
var figure = regexp.MustCompile(`(?is)\[asy\](.*?)(?:\[/asy\]|\z)|\\begin\{tikzpicture\}(.*?)(?:\\end\{tikzpicture\}|\z)`)

// figures returns the code of every drawing in s without white space, so
// that a re-flowed figure is the same figure.
func figures(s string) string {
	var b strings.Builder
	for _, m := range figure.FindAllStringSubmatch(s, -1) {
		for _, r := range m[1] + m[2] {
			if !unicode.IsSpace(r) {
				b.WriteRune(r)
			}
		}
		b.WriteByte(0)
	}
	return b.String()
}

// Guard reports whether two statements that look like near-duplicates by
// their shingles must still be kept apart. It compares whole statements,
// sentence by sentence, each in its NormalizeMath form (signs, operators
// and maths in every delimiter kept) with synonyms made one: the pair is
// kept apart when their multisets of numbers differ (exercises that
// differ in one number), or when a sentence of one is in the other
// nowhere and is no instruction ("Express your answer as a common
// fraction.", "Show your work.", "Justify your answer."). A sign flip in
// display maths, a changed earlier sentence before a shared closing
// sentence, an added constraint or question, and another part of a
// multi-part problem thus all stay apart. True copies that differ only in
// white space, punctuation, case, LaTeX spacing and delimiters, a leading
// "Problem 3." label, synonyms, or an appended instruction pass. Figures
// (text.Clean) are compared apart: when both statements have one, they
// must be the same but for white space.
func Guard(a, b string) GuardReason {
	if !slices.Equal(Numbers(a), Numbers(b)) {
		return GuardNumbers
	}
	if fa, fb := figures(a), figures(b); fa != "" && fb != "" && fa != fb {
		return GuardFigure
	}
	// The same tokens in the same order are the same problem however the
	// sentences are cut (a re-post that breaks a "\$" moves the maths).
	ca, cb := StripLabel(text.Clean(a)), StripLabel(text.Clean(b))
	if canonical(NormalizeMath(ca)) == canonical(NormalizeMath(cb)) {
		return ""
	}
	sa, sb := Sentences(a), Sentences(b)
	ra, rb := unmatched(sa, sb), unmatched(sb, sa)
	if len(ra) == 0 && len(rb) == 0 {
		return ""
	}
	if lastQuestion(sa) != lastQuestion(sb) {
		return GuardQuestion
	}
	if len(ra) == 0 || len(rb) == 0 {
		return GuardAdded
	}
	return GuardSentence
}

// Sentences returns the sentences of a statement as Guard compares them:
// figures and a leading enumeration label dropped, cut at a sentence end
// ('.', '?' or '!' and white space) outside maths or at the end of maths
// that closes one ("… = 12.$ What" as "… = 12$. What"), each in its
// NormalizeMath form with synonyms made one; sentences with no token are
// left out.
func Sentences(s string) []string {
	s = StripLabel(text.Clean(s))
	d := norm.NFKD.String(symbolCommands.Replace(s))
	var out []string
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		c := strings.TrimSpace(canonical(strings.Join(cur, " ")))
		cur = cur[:0]
		// An instruction glued to the question ("Compute that remainder
		// Explain your reasoning.": a re-post dropped the full stop) is
		// its own sentence.
		if at := instructionTail(c); at > 0 {
			// "… moment (No calculators.)": the bracket goes with it.
			if head := strings.TrimRight(c[:at], "( "); head != "" {
				out = append(out, head, c[at:])
				return
			}
		}
		out = append(out, c)
	}
	end := func(c byte) bool { return c == '.' || c == '?' || c == '!' }
	segs := splitMath(d)
	for k, seg := range segs {
		if seg.math {
			cur = appendTokens(cur, seg.text, true)
			// Maths ending a sentence: followed by white space or nothing.
			t := strings.TrimRightFunc(seg.text, unicode.IsSpace)
			next := k+1 == len(segs) || segs[k+1].text != "" && unicode.IsSpace(rune(segs[k+1].text[0]))
			if t != "" && end(t[len(t)-1]) && next {
				flush()
			}
			continue
		}
		from := 0
		for i := 0; i < len(seg.text); i++ {
			if end(seg.text[i]) && i+1 < len(seg.text) && unicode.IsSpace(rune(seg.text[i+1])) {
				cur = appendTokens(cur, seg.text[from:i+1], false)
				flush()
				from = i + 1
			}
		}
		cur = appendTokens(cur, seg.text[from:], false)
	}
	flush()
	return out
}

// unmatched returns the sentences of a that b does not hold (as a
// multiset) and that are no instruction.
func unmatched(a, b []string) []string {
	left := map[string]int{}
	for _, s := range b {
		left[s]++
	}
	var out []string
	for _, s := range a {
		if left[s] > 0 {
			left[s]--
			continue
		}
		if !instruction(s) {
			out = append(out, s)
		}
	}
	return out
}

// lastQuestion is the last sentence that is no instruction: what the
// problem asks.
func lastQuestion(ss []string) string {
	for i := len(ss) - 1; i >= 0; i-- {
		if !instruction(ss[i]) {
			return ss[i]
		}
	}
	return ""
}

// instructions begin sentences that say how to answer, not what: a copy
// may add one ("Express your answer as a common fraction.") and still be
// the same problem. They are in canonical form (synonyms made one, fillers
// such as "please" dropped).
var instructions = []string{
	"express your answer", "express the answer", "express each answer", "express answer",
	"give your answer", "give the answer", "give answer", "give reasons", "give a reason",
	"write your answer", "enter your answer", "put your answer", "leave your answer", "present your answer",
	"state your answer", "round your answer", "simplify your answer", "your answer should",
	"show your work", "show all your work", "show all work", "show work", "show your working", "show your steps",
	"explain your reasoning", "explain your answer", "justify your answer", "justify your reasoning", "prove your answer",
	"no calculators", "no calculator", "thanks in advance", "thanks", "thank you", "help", "any help",
}

// instructionTail returns where in a canonical sentence an instruction
// of two words or more begins after other words, or 0.
func instructionTail(s string) int {
	best := 0
	for _, p := range instructions {
		if !strings.Contains(p, " ") {
			continue // "help" may be a word of the question
		}
		if i := strings.Index(s+" ", " "+p+" "); i >= 0 && (best == 0 || i+1 < best) {
			best = i + 1
		}
	}
	return best
}

// instruction reports whether a canonical sentence only says how to
// answer.
func instruction(s string) bool {
	// "(No calculators.)" is an instruction in brackets.
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "( "), " )")) + " "
	for _, p := range instructions {
		if strings.HasPrefix(s, p+" ") {
			return true
		}
	}
	return strings.Contains(s, "separated by commas")
}

// synonyms maps interchangeable words of problem statements to one form;
// "" drops a filler word.
var synonyms = map[string]string{
	"determine": "find", "compute": "find", "calculate": "find", "evaluate": "find",
	"least": "smallest", "minimal": "smallest", "greatest": "largest", "maximal": "largest",
	"every": "each", "count": "number", "precisely": "exactly", "different": "distinct",
	"provided": "given", "total": "sum", "shown": "written", "got": "", "would": "", "like": "want",
	"wants": "want", "please": "",
	"must": "has to",
	// LaTeX spellings of the same maths (NormalizeMath makes most one).
	"dfrac": "frac", "tfrac": "frac",
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
