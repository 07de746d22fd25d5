package text

import (
	"math/bits"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// refMath is the Math tokeniser as it was before its fast path (commit
// ef5f542's math.go, the mathState methods copied and renamed): words by
// the rune loop only (no scanBounds), commands looked up in the map,
// operators and aliases copied into the arena one by one. It is the
// oracle of FuzzMathFast, which holds the fast path to it token for token.
func refMath(s string) []string {
	st := &refState{}
	st.reset(s)
	st.run()
	return st.emit(nil)
}

// failure remembers that no closer was found from pos up to until, so that
// a later opener of the same kind in that range fails at once and
// pathological input (thousands of unclosed openers) stays linear.
type refFailure struct {
	closer     string
	pos, until int
}

type refState struct {
	s     string
	arena []byte // bytes of the tokens that are not substrings of s
	// toks holds the single tokens, in order, as bounds in one space: token
	// k is s[toks[2k]:toks[2k+1]] when toks[2k] < len(s), else the arena's
	// bytes at those offsets less len(s) (a token is never empty). It is
	// the layout of Spans, which then only narrows it to int32.
	toks  []int
	pairs []int    // k: tokens k and k+1 form a pair
	marks []uint64 // bit i: s[i] is $, \ or newline
	fails []refFailure
}

func (st *refState) reset(s string) {
	st.s = s
	st.arena = st.arena[:0]
	st.toks = st.toks[:0]
	st.pairs = st.pairs[:0]
	st.fails = st.fails[:0]
}

// emit materialises the tokens with one allocation for the whole arena.
func (st *refState) emit(dst []string) []string {
	n := len(st.s)
	for _, k := range st.pairs {
		lo := len(st.arena)
		st.arena = st.appendTok(st.arena, k)
		st.arena = append(st.arena, ' ')
		st.arena = st.appendTok(st.arena, k+1)
		st.toks = append(st.toks, n+lo, n+len(st.arena))
	}
	arena := string(st.arena)
	for k := 0; k+1 < len(st.toks); k += 2 {
		if lo, hi := st.toks[k], st.toks[k+1]; lo >= n {
			dst = append(dst, arena[lo-n:hi-n])
		} else {
			dst = append(dst, st.s[lo:hi])
		}
	}
	return dst
}

// appendTok appends the bytes of token k to b.
func (st *refState) appendTok(b []byte, k int) []byte {
	n := len(st.s)
	if lo, hi := st.toks[2*k], st.toks[2*k+1]; lo >= n {
		// b may be st.arena itself; the token lies before its end, so
		// append copies from memory that stays valid (append reallocates
		// by copying).
		return append(b, b[lo-n:hi-n]...)
	} else {
		return append(b, st.s[lo:hi]...)
	}
}

func (st *refState) sub(lo, hi int) { st.toks = append(st.toks, lo, hi) }

// arenaTok appends the token arena[lo:] (to its end).
func (st *refState) arenaTok(lo int) {
	n := len(st.s)
	st.toks = append(st.toks, n+lo, n+len(st.arena))
}

// lit appends the token made of parts, copied into the arena.
func (st *refState) lit(parts ...string) {
	lo := len(st.arena)
	for _, p := range parts {
		st.arena = append(st.arena, p...)
	}
	st.arenaTok(lo)
}

// run splits st.s into text and math parts.
func (st *refState) run() {
	s := st.s
	st.marks = bitmap(st.marks, s, markScan)
	text := 0 // start of the pending text part
	for i := 0; i < len(s); {
		// To the next $ or \: the marks include newlines, for findClose.
		for i = st.nextMark(i); i < len(s) && s[i] == '\n'; i = st.nextMark(i + 1) {
		}
		if i == len(s) {
			break
		}
		c := s[i]
		var closer string
		open := 0
		if c == '$' {
			if i+1 < len(s) && s[i+1] == '$' {
				closer, open = "$$", 2
			} else {
				closer, open = "$", 1
			}
		} else {
			if i+1 < len(s) {
				switch s[i+1] {
				case '(':
					closer, open = `\)`, 2
				case '[':
					closer, open = `\]`, 2
				case 'b':
					if env, n := mathEnvAt(s, i); n > 0 {
						closer, open = env, n // closed by \end{env}
					}
				}
			}
			if open == 0 {
				// \$, \\ or any other backslash pair: never an opener, and
				// its second character is not one either.
				i += 2
				continue
			}
		}
		end, closeLen := st.findClose(i+open, closer)
		if end < 0 {
			i += open // unbalanced: the opener is text
			continue
		}
		st.words(text, i)
		st.math(i+open, end)
		i = end + closeLen
		text = i
	}
	st.words(text, len(s))
}

// nextMark returns the position of the first $, \ or newline of st.s at or
// after i, or len(st.s), from the bitmap run made of them: the scans for
// math delimiters jump from one to the next instead of testing every byte.
func (st *refState) nextMark(i int) int {
	k := i >> 6
	if k >= len(st.marks) {
		return len(st.s)
	}
	if w := st.marks[k] >> (uint(i) & 63); w != 0 {
		return i + bits.TrailingZeros64(w)
	}
	for k++; k < len(st.marks); k++ {
		if w := st.marks[k]; w != 0 {
			return k<<6 + bits.TrailingZeros64(w)
		}
	}
	return len(st.s)
}

// findClose returns the position and length of the closer of a math part
// whose content starts at from, or -1 when the text or its paragraph ends
// first. closer is "$", "$$", `\)`, `\]` or the name of an environment,
// which \end{name} closes (so that no string is built per environment).
func (st *refState) findClose(from int, closer string) (int, int) {
	for _, f := range st.fails {
		if f.closer == closer && f.pos <= from && from < f.until {
			return -1, 0
		}
	}
	s := st.s
	env := closer[0] != '$' && closer[0] != '\\'
	j := from
	for j < len(s) {
		if j = st.nextMark(j); j == len(s) {
			break
		}
		switch s[j] {
		case '\\':
			switch {
			case env:
				if n := endEnv(s, j, closer); n > 0 {
					return j, n
				}
			case closer[0] == '\\' && strings.HasPrefix(s[j:], closer):
				return j, len(closer)
			}
			j += 2
			continue
		case '$':
			if closer == "$" || closer == "$$" && j+1 < len(s) && s[j+1] == '$' {
				return j, len(closer)
			}
		case '\n':
			if blankLine(s, j) {
				st.fail(closer, from, j)
				return -1, 0
			}
		}
		j++
	}
	st.fail(closer, from, len(s))
	return -1, 0
}

func (st *refState) fail(closer string, pos, until int) {
	for k := range st.fails {
		if st.fails[k].closer == closer {
			st.fails[k] = refFailure{closer, pos, until}
			return
		}
	}
	st.fails = append(st.fails, refFailure{closer, pos, until})
}

// words appends the words of s[lo:hi].
func (st *refState) words(lo, hi int) {
	s := st.s
	for i := lo; i < hi; {
		// Skip to the next letter or digit, a byte at a time while ASCII.
		for i < hi && mathByte[s[i]]&(wordLower|wordUpper|multi) == 0 {
			i++
		}
		if i == hi {
			return
		}
		start := i
		lowered := -1 // arena offset of the word once it needs lower-casing
		done := start // then s[start:done] is in the arena, lower-cased
	scan:
		for i < hi {
			for i < hi && mathByte[s[i]]&wordLower != 0 {
				i++
			}
			if i == hi {
				break
			}
			c := s[i]
			switch {
			case mathByte[c]&wordUpper != 0:
				if lowered < 0 {
					lowered = len(st.arena)
				}
				st.arena = append(st.arena, s[done:i]...)
				st.arena = append(st.arena, c+'a'-'A')
				i++
				done = i
			case c < utf8.RuneSelf:
				break scan
			default:
				r, size := utf8.DecodeRuneInString(s[i:hi])
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break scan
				}
				if l := unicode.ToLower(r); l != r {
					if lowered < 0 {
						lowered = len(st.arena)
					}
					st.arena = append(st.arena, s[done:i]...)
					st.arena = utf8.AppendRune(st.arena, l)
					done = i + size
				}
				i += size
			}
		}
		if lowered >= 0 {
			st.arena = append(st.arena, s[done:i]...)
		}
		switch {
		case i == start:
			_, size := utf8.DecodeRuneInString(s[i:hi])
			i += size
		case lowered >= 0:
			st.arenaTok(lowered)
		default:
			st.sub(start, i)
		}
	}
}

// math appends the tokens of the math part s[lo:hi] and its pairs.
func (st *refState) math(lo, hi int) {
	first := len(st.toks) / 2
	st.mathTokens(lo, hi)
	for k := first; k+1 < len(st.toks)/2; k++ {
		st.pairs = append(st.pairs, k)
	}
}

func (st *refState) mathTokens(lo, hi int) {
	s := st.s
	for i := lo; i < hi; {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:hi])
			switch {
			case r == utf8.RuneError && size == 1:
			case unicode.IsLetter(r), unicode.IsDigit(r):
				st.sub(i, i+size)
			case unicode.IsSymbol(r), unicode.IsPunct(r):
				st.lit("op:", s[i:i+size])
			}
			i += size
			continue
		}
		switch {
		case isASCIILetter(c):
			st.sub(i, i+1)
			i++
		case isDigit(c):
			j := i + 1
			for j < hi && isDigit(s[j]) {
				j++
			}
			if j+1 < hi && s[j] == '.' && isDigit(s[j+1]) {
				j += 2
				for j < hi && isDigit(s[j]) {
					j++
				}
			}
			st.sub(i, j)
			i = j
		case c == '\\':
			i = st.command(i, hi)
		default:
			if op := asciiOps[c]; op != "" {
				st.lit(op)
			}
			i++
		}
	}
}

// command reads the control sequence at s[i] ('\\') within a math part
// ending at hi, appends its tokens and returns the position after it.
func (st *refState) command(i, hi int) int {
	s := st.s
	if i+1 >= hi {
		return hi
	}
	if c := s[i+1]; !isASCIILetter(c) {
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i+1 : hi])
			return i + 1 + size
		}
		if tok := controlSymbols[c]; tok != "" {
			st.lit(tok)
		}
		if c == '\\' {
			return skipOptional(s, i+2, hi)
		}
		return i + 2
	}
	j := i + 1
	for j < hi && isASCIILetter(s[j]) {
		j++
	}
	info, ok := commands[s[i:j]]
	if !ok {
		st.sub(i, j)
		return j
	}
	switch info.kind {
	case cmdDrop:
		return j
	case cmdDropArg:
		if j < hi && s[j] == '*' {
			j++
		}
		_, _, end := braced(s, j, hi)
		return end
	case cmdText:
		if lo, h, end := braced(s, j, hi); end > j {
			st.words(lo, h)
			return end
		}
		return j
	case cmdOperatorname:
		if j < hi && s[j] == '*' {
			j++
		}
		lo, h, end := braced(s, j, hi)
		if end == j {
			return j
		}
		if w := strings.TrimSpace(s[lo:h]); w != "" && allLetters(w) {
			st.lit(`\`, w)
		} else {
			st.mathTokens(lo, h)
		}
		return end
	case cmdBegin:
		lo, h, end := braced(s, j, hi)
		env := s[lo:h]
		if end == j || env == "" || !allLetters(strings.TrimSuffix(env, "*")) {
			st.sub(i, j) // not a well-formed \begin{name}: the group is read as math
			return j
		}
		st.lit(`\begin{`, env, `}`)
		switch env {
		case "array", "tabular", "alignat", "alignat*", "alignedat":
			// The column specification ({cc|c}) or column count is layout.
			_, _, end = braced(s, end, hi)
		}
		return end
	case cmdEnd:
		_, _, end := braced(s, j, hi)
		return end
	}
	st.lit(info.alias)
	return j
}

// FuzzMathFast holds the Math tokeniser, by Append and by Spans, to
// refMath on every input. The seeds are MATH-like: fractions, powers,
// every delimiter, operators and aliases, commands that are layout or
// prose, unicode, and malformed LaTeX.
func FuzzMathFast(f *testing.F) {
	for _, s := range []string{
		"", "$x$", `$\frac{a}{b}$`, "$x^2+3x$", `Solve $x^2+3x-4=0$ for $x$.`,
		`$$\sum_{k=1}^{n} k = \frac{n(n+1)}{2}$$`, `\(a\le b\ge c\ne d\)`, `\[\dfrac{1}{2}\cdot\tfrac34\]`,
		`\begin{align*} y &= 2x \\ z &= 3 \end{align*}`, `$\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}$`,
		`$\begin{array}{cc|c} a & b \end{array}$`, `$\operatorname{lcm}(4,6)$`, `$\operatorname*{arg\,max}$`,
		`$\text{if } x \textbf{ Is} \mbox{Big}$`, `$\left( \big[ x \right) \Bigr]$`, `$\{1, 2\}\lbrace\rbrace$`,
		`$a\,\;\!\quad\qquad b\\[2pt] c$`, `$\label{eq:1} \tag*{A} \hspace{1cm} x$`, `$\lt\gt\vert\lVert\colon$`,
		`$\ldots\cdots\dotsc\pmod{5}\bmod\land\lor\lnot\to\gets$`, `$3.14 + .5 - 2. + 1.2.3$`,
		"$∠A = 90°$", "Naïve ΣΟΦΊΑ $x ≤ y$", "$a\xffb$", "$\u00e9\u0301$", `$\é$`,
		`$\frac{`, `$\frac{a}{b`, `$\text{a {b} c`, `$\operatorname{`, `$\begin{`, `$\begin{array}`,
		`\begin{equation}E=mc^2\end{equation}`, `\begin{tabular} x \end{tabular}`, "\\", "$", `\$`, `$\$5$`,
		"a\n\nb$", "$a\n\nb$", "$a\n \t\nb$", `a \\[2pt] b`, "$a$$b$", "$$ $$ x", `$a\`, `$\`,
		`$x_{n+1}^{2^k}!'|,:;%*/$`, `$\#\&\_\%\|\$$`, `$\scriptscriptstyle x \displaystyle y \nonumber$`,
		`$\Delta\delta\ALPHA\alpha1$`, `$\frac12\sqrt[3]{27}$`, "$x$ and $y$ $$z$$ \\(w\\) \\[v\\]",
	} {
		f.Add(s)
	}
	// Prose parts of 63, 64 and 65 bytes that end in a word, before math
	// and at the end (asciiWordsShort reads 64 bytes from a part's start),
	// and a short part followed, within those 64 bytes, by non-ASCII.
	for _, n := range []int{63, 64, 65} {
		word := strings.Repeat("Ab ", n)[:n-1] + "Z"
		f.Add(word + "$x$" + strings.Repeat(" pad", 20))
		f.Add("$x$" + word + "$y+1$ " + word)
		f.Add(word)
	}
	f.Add("Let $a$ be the Root of $x ≤ y$, and Naïve $b$.")
	f.Fuzz(func(t *testing.T, s string) {
		want := refMath(s)
		if got := Tokens(Math, s); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("Math(%q)\n got %q\nwant %q (refMath)", s, got, want)
		}
		if got := spanned(Math, s); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("Spans of Math(%q)\n got %q\nwant %q (refMath)", s, got, want)
		}
		// A reused Spans keeps mathConsts between math texts, and must
		// drop them after another tokeniser wrote over its bytes.
		var sp Spans
		for _, prev := range []Tokenizer{Math, Plain, Sklearn} {
			sp.Tokenize(Math, `$x^2 + \frac{1}{2} \le 3$`)
			sp.Tokenize(prev, "AN UPPER-CASE TEXT, longer than mathConsts "+strings.Repeat("Padding words ", 40))
			sp.Tokenize(Math, s)
			if got := sp.strings(); !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("Spans of Math(%q) after %s\n got %q\nwant %q (refMath)", s, prev.Name(), got, want)
			}
		}
	})
}

// TestMathFastOnMATH holds the Math tokeniser to refMath on the whole MATH
// test split, through one reused Spans, as the scorers use it.
func TestMathFastOnMATH(t *testing.T) {
	var sp Spans
	for _, d := range readMATH(t, mathDataPath(t)) {
		want := refMath(d)
		sp.Tokenize(Math, d)
		if got := sp.strings(); !slices.Equal(got, want) {
			t.Fatalf("Spans of Math differ from refMath on %.80q", d)
		}
		if got := Tokens(Math, d); !slices.Equal(got, want) {
			t.Fatalf("Math differs from refMath on %.80q", d)
		}
	}
}
