package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Part is a stretch of a text as the Math tokeniser splits it: a math
// part (what lies between a pair of delimiters, the delimiters kept in
// Open and Close so that the part can be written back) or a text part.
// Unbalanced delimiters are text, as the tokeniser reads them.
type Part struct {
	Math        bool
	Text        string
	Open, Close string
}

func (st *mathState) recordPart(math bool, lo, hi, open int) {
	if lo >= hi && !math {
		return
	}
	p := Part{Math: math, Text: st.s[lo:hi]}
	if math {
		p.Open = st.s[lo-open : lo]
		p.Close = closerOf(p.Open)
	}
	*st.parts = append(*st.parts, p)
}

// closerOf is the closer of a math opener.
func closerOf(open string) string {
	switch open {
	case "$", "$$":
		return open
	case `\(`:
		return `\)`
	case `\[`:
		return `\]`
	}
	return `\end{` + strings.TrimSuffix(strings.TrimPrefix(open, `\begin{`), "}") + "}"
}

// Parts splits s into its text and math parts by the Math tokeniser's
// delimiter rules (see the tokeniser's doc): the same parts it tokenises.
func Parts(s string) []Part {
	var parts []Part
	st := &mathState{parts: &parts}
	st.reset(s)
	st.run()
	return parts
}

// SplitMath is the maths-only and the words-only form of s (paper §4.2,
// App. D.10): maths is every math part with its delimiters, in order,
// joined by one space (so the Math tokeniser still reads it as maths);
// words is the text parts with white space collapsed. A side with no
// letter, digit or symbol is "".
func SplitMath(s string) (maths, words string) {
	var m, w []string
	for _, p := range Parts(s) {
		if p.Math {
			if strings.TrimSpace(p.Text) != "" {
				m = append(m, p.Open+strings.TrimSpace(p.Text)+p.Close)
			}
			continue
		}
		w = append(w, strings.Fields(p.Text)...)
	}
	words = strings.Join(w, " ")
	if !strings.ContainsFunc(words, IsWord) {
		words = ""
	}
	return strings.Join(m, " "), words
}

// DelimitMath is the offline normaliser of App. D.10 (what prompt F.5
// asks a model to do: put every mathematical element in math mode). It
// keeps the delimited parts as they are and, in the text parts, wraps
// each maximal run of maths-looking white-space-separated tokens (see
// mathWord) in $…$, leaving their trailing punctuation outside. Its limits
// are those of a rule: "a" is never a variable, and a spelled-out formula
// ("x squared") stays words.
func DelimitMath(s string) string {
	var b strings.Builder
	for _, p := range Parts(s) {
		if p.Math {
			b.WriteString(p.Open + p.Text + p.Close)
			continue
		}
		delimitText(&b, p.Text)
	}
	return b.String()
}

// delimitText writes t with its runs of maths tokens in $…$.
func delimitText(b *strings.Builder, t string) {
	type tok struct {
		lo, hi int // the token, less trailing punctuation
		math   bool
	}
	var toks []tok
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRuneInString(t[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i
		for j < len(t) {
			r, n := utf8.DecodeRuneInString(t[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		hi := j
		for hi > i && strings.IndexByte(".,;:?!", t[hi-1]) >= 0 {
			hi--
		}
		toks = append(toks, tok{i, hi, hi > i && mathWord(t[i:hi])})
		i = j
	}
	// A lone minus is maths between two maths tokens ("x - y"), a dash
	// in prose otherwise.
	for k := 1; k+1 < len(toks); k++ {
		if w := t[toks[k].lo:toks[k].hi]; (w == "-" || w == "−") && toks[k-1].math && toks[k+1].math {
			toks[k].math = true
		}
	}
	at := 0
	for k := 0; k < len(toks); {
		if !toks[k].math {
			k++
			continue
		}
		e := k
		// A run continues over white space only: punctuation after a
		// token ends it ("x, y" is two expressions).
		for e+1 < len(toks) && toks[e+1].math && toks[e].hi == endOfToken(t, toks[e].lo) {
			e++
		}
		b.WriteString(t[at:toks[k].lo])
		b.WriteString("$" + t[toks[k].lo:toks[e].hi] + "$")
		at = toks[e].hi
		k = e + 1
	}
	b.WriteString(t[at:])
}

// endOfToken is where the white-space-separated token at lo ends.
func endOfToken(t string, lo int) int {
	for j := lo; j < len(t); {
		r, n := utf8.DecodeRuneInString(t[j:])
		if unicode.IsSpace(r) {
			return j
		}
		j += n
	}
	return len(t)
}

// mathWord says whether a token of prose is maths: it holds a digit, an
// operator (= + < > ^ _ * / | \), a math symbol (unicode Sm: ≤, ±, √) or a
// Greek letter; or it is one Latin letter other than a, A and I (a
// variable); or it is a letter applied to a bracket, "f(x)", or a
// hyphenated pair of single letters or numbers, "x-y".
func mathWord(w string) bool {
	w = strings.TrimLeft(w, "(")
	if w == "" {
		return false
	}
	for _, r := range w {
		switch {
		case unicode.IsDigit(r), strings.ContainsRune(`=+<>^_*/|\`, r), unicode.Is(unicode.Sm, r), unicode.Is(unicode.Greek, r):
			return true
		}
	}
	w = strings.TrimRight(w, ")")
	if len(w) == 1 && isASCIILetter(w[0]) {
		return w != "a" && w != "A" && w != "I"
	}
	if len(w) >= 3 && isASCIILetter(w[0]) && w[1] == '(' {
		return true
	}
	if a, c, ok := strings.Cut(w, "-"); ok && len(a) == 1 && len(c) == 1 && isASCIILetter(a[0]) && isASCIILetter(c[0]) {
		return true
	}
	return false
}

// LastBoxed returns the braced argument of the last \boxed{…} of s, braces
// balanced (an unclosed one is not an answer).
func LastBoxed(s string) (string, bool) {
	for end := len(s); ; {
		i := strings.LastIndex(s[:end], `\boxed`)
		if i < 0 {
			return "", false
		}
		end = i
		j := i + len(`\boxed`)
		for j < len(s) && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || s[j] != '{' {
			continue
		}
		depth := 0
		for k := j; k < len(s); k++ {
			switch s[k] {
			case '\\':
				k++ // \{ and \} are not braces of the group
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					return s[j+1 : k], true
				}
			}
		}
	}
}
