package text

import (
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The Math tokeniser (SPEC §3 "Lexical baselines (C.4)") is our own design.
// A text is split into text parts and math parts; both yield tokens, and
// every token is one of these kinds, which cannot collide with each other:
//
//   - word: a maximal run of letters and decimal digits (unicode.IsLetter,
//     unicode.IsDigit) of a text part, lower-cased rune by rune with
//     unicode.ToLower: "Triangle" → "triangle", "2x" → "2x".
//   - command: a LaTeX control word with its backslash: "\frac", "\sqrt",
//     "\Delta". A backslash never occurs in a word, so "\sin" cannot meet the
//     word "sin". Case is kept (\Delta and \delta differ). A few spellings
//     are merged (\dfrac, \tfrac, \cfrac → \frac; \dbinom, \tbinom →
//     \binom; \le, \leqslant → \leq; \ge, \geqslant → \geq; \ne → \neq;
//     \to → \rightarrow; \gets → \leftarrow; \ldots, \cdots, \dotsc, \dotsb,
//     \dotsm → \dots; \pmod, \bmod → \mod; \land → \wedge; \lor → \vee;
//     \lnot → \neg), \operatorname{lcm} is the command "\lcm", and an
//     environment opened inside math is the command "\begin{pmatrix}" (its
//     \end is dropped).
//   - identifier: one letter of a math part, case kept: "$xy$" → "x", "y".
//     Identifiers and words share a spelling on purpose, so that "$x$" in
//     one problem matches "x" in another's prose.
//   - number: a run of decimal digits with at most one decimal point
//     followed by digits: "12", "3.14". Numbers and words also share a
//     spelling on purpose.
//   - operator: a name after "op:", which no word, command or number
//     contains: + op:plus, - op:minus, = op:eq, < op:lt, > op:gt,
//     ^ op:sup, _ op:sub, * op:ast, / op:slash, ( op:lparen, ) op:rparen,
//     [ op:lbrack, ] op:rbrack, | op:vert, ! op:bang, ' op:prime,
//     , op:comma, : op:colon, ; op:semicolon, % op:pct; the control
//     symbols \{ op:lbrace, \} op:rbrace, \| op:dvert, \% op:pct,
//     \$ op:dollar, \# op:hash, \& op:amp, \_ op:underscore; \lt, \gt,
//     \vert, \lvert, \rvert, \Vert, \lVert, \rVert, \lbrace, \rbrace,
//     \lbrack, \rbrack and \colon map to the same names; a non-ASCII
//     symbol or punctuation rune r (≤, °, …) is "op:" + r.
//   - pair: two consecutive tokens of one math part joined by one space,
//     "x op:sup", "op:sup 2". No other token contains white space, so a
//     pair never equals another token and splits back uniquely.
//
// In a math part, white space, the TeX grouping braces { }, the alignment
// tab &, the tie ~, a "." that is not inside a number, the spacing and
// sizing commands (\, \; \: \! \quad \qquad \left \right \big … \middle
// \displaystyle \limits …), \\ with its optional [length], \label{…},
// \tag{…}, \hspace{…}, \vspace{…} and the accents \' \" \^ \~ \= \. are
// dropped: they are layout, not content. The argument of \text, \textrm,
// \textbf, \textit, \textsf, \texttt, \textnormal, \mbox and \hbox is prose
// and yields words, in the math part's sequence (so they also form pairs).
//
// Math parts are delimited by $…$, $$…$$, \(…\), \[…\] and, as an extension
// of the SPEC's list because MATH writes a fifth of its solutions that way,
// the display environments \begin{E}…\end{E} for E in equation, align,
// alignat, gather, multline, flalign, eqnarray, displaymath, math (each also
// starred). A delimiter is looked for only in text, where \$ (an escaped
// dollar) and \\ never open math. A part ends at the first matching closer;
// inside it, \$ and every other backslash pair are skipped, so "\$" never
// closes "$…". As in TeX, math cannot span a blank line: an opener whose
// closer is missing, or comes only after a blank line, is unbalanced, and
// is then read as text (its delimiter characters are dropped, its content
// yields words) and scanning goes on after it. Unbalanced input therefore
// never loses its words, and the tokeniser never panics on any input.
//
// Output order: all single tokens in order of appearance, then all pairs in
// order of appearance.

type mathTokenizer struct{}

func (mathTokenizer) Name() string { return "math" }

func (mathTokenizer) Append(dst []string, s string) []string {
	st := mathPool.Get().(*mathState)
	st.reset(s)
	st.run()
	dst = st.emit(dst)
	st.s = ""
	mathPool.Put(st)
	return dst
}

var mathPool = sync.Pool{New: func() any { return new(mathState) }}

// failure remembers that no closer was found from pos up to until, so that
// a later opener of the same kind in that range fails at once and
// pathological input (thousands of unclosed openers) stays linear.
type failure struct {
	closer     string
	pos, until int
}

type mathState struct {
	s     string
	arena []byte // bytes of the tokens that are not substrings of s
	// toks holds the single tokens, in order, as bounds in one space: token
	// k is s[toks[2k]:toks[2k+1]] when 0 ≤ toks[2k] < len(s), the arena's
	// bytes at those offsets less len(s) when toks[2k] ≥ len(s), and a
	// constant token (an operator, an alias) of mathConsts at those
	// offsets plus len(mathConsts) when toks[2k] < 0; a token is never
	// empty. It is the layout of Spans less len(mathConsts), which Spans
	// adds as it narrows the bounds to int32.
	toks   []int
	pairs  []int    // k: tokens k and k+1 form a pair
	bounds []int32  // asciiWords' scratch
	masks  []uint64 // asciiWords' scratch
	marks  []uint64 // bit i: s[i] is $, \ or newline
	fails  []failure
	// parts, when set, records the text and math parts run finds (Parts).
	parts *[]Part
}

func (st *mathState) reset(s string) {
	st.s = s
	st.arena = st.arena[:0]
	st.toks = st.toks[:0]
	st.pairs = st.pairs[:0]
	st.fails = st.fails[:0]
}

// emit materialises the tokens with one allocation for the whole arena.
func (st *mathState) emit(dst []string) []string {
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
		switch lo, hi := st.toks[k], st.toks[k+1]; {
		case lo >= n:
			dst = append(dst, arena[lo-n:hi-n])
		case lo >= 0:
			dst = append(dst, st.s[lo:hi])
		default:
			dst = append(dst, mathConsts[lo+len(mathConsts):hi+len(mathConsts)])
		}
	}
	return dst
}

// appendTok appends the bytes of token k to b.
func (st *mathState) appendTok(b []byte, k int) []byte {
	n := len(st.s)
	switch lo, hi := st.toks[2*k], st.toks[2*k+1]; {
	case lo >= n:
		// b may be st.arena itself; the token lies before its end, so
		// append copies from memory that stays valid (append reallocates
		// by copying).
		return append(b, b[lo-n:hi-n]...)
	case lo >= 0:
		return append(b, st.s[lo:hi]...)
	default:
		return append(b, mathConsts[lo+len(mathConsts):hi+len(mathConsts)]...)
	}
}

func (st *mathState) sub(lo, hi int) { st.toks = append(st.toks, lo, hi) }

// arenaTok appends the token arena[lo:] (to its end).
func (st *mathState) arenaTok(lo int) {
	n := len(st.s)
	st.toks = append(st.toks, n+lo, n+len(st.arena))
}

// lit appends the token made of parts, copied into the arena.
func (st *mathState) lit(parts ...string) {
	lo := len(st.arena)
	for _, p := range parts {
		st.arena = append(st.arena, p...)
	}
	st.arenaTok(lo)
}

// konst appends the constant token k (an operator or an alias), a span of
// mathConsts, below 0 in toks' space: copying every operator's bytes into
// the arena, as lit does, cost more than finding them, and so did a copy
// of mathConsts per text.
func (st *mathState) konst(k constTok) {
	lo := int(k.off) - len(mathConsts)
	st.toks = append(st.toks, lo, lo+int(k.n))
}

// run splits st.s into text and math parts.
func (st *mathState) run() {
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
		if st.parts != nil {
			st.recordPart(false, text, i, 0)
			st.recordPart(true, i+open, end, open)
		}
		st.words(text, i)
		st.math(i+open, end)
		i = end + closeLen
		text = i
	}
	if st.parts != nil {
		st.recordPart(false, text, len(s), 0)
	}
	st.words(text, len(s))
}

var mathEnvs = map[string]bool{}

func init() {
	for _, e := range []string{"equation", "align", "alignat", "gather", "multline", "flalign", "eqnarray", "displaymath", "math"} {
		mathEnvs[e] = true
		mathEnvs[e+"*"] = true
	}
}

// mathEnvAt reports whether s[i:] starts with \begin{E} for a display-math
// environment E, returning E and the length of the opener.
func mathEnvAt(s string, i int) (string, int) {
	const begin = `\begin{`
	if !strings.HasPrefix(s[i:], begin) {
		return "", 0
	}
	j := i + len(begin)
	k := j
	for k < len(s) && (isASCIILetter(s[k]) || s[k] == '*') {
		k++
	}
	if k >= len(s) || s[k] != '}' || !mathEnvs[s[j:k]] {
		return "", 0
	}
	return s[j:k], k + 1 - i
}

// nextMark returns the position of the first $, \ or newline of st.s at or
// after i, or len(st.s), from the bitmap run made of them: the scans for
// math delimiters jump from one to the next instead of testing every byte.
func (st *mathState) nextMark(i int) int {
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
func (st *mathState) findClose(from int, closer string) (int, int) {
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

// endEnv returns the length of \end{env} when s[j:] starts with it, or 0.
func endEnv(s string, j int, env string) int {
	const end = `\end{`
	k := j + len(end) + len(env)
	if k < len(s) && s[k] == '}' && strings.HasPrefix(s[j:], end) && s[j+len(end):k] == env {
		return k + 1 - j
	}
	return 0
}

func (st *mathState) fail(closer string, pos, until int) {
	for k := range st.fails {
		if st.fails[k].closer == closer {
			st.fails[k] = failure{closer, pos, until}
			return
		}
	}
	st.fails = append(st.fails, failure{closer, pos, until})
}

// blankLine reports whether the newline at s[j] starts a blank line: only
// spaces, tabs and carriage returns up to the next newline.
func blankLine(s string, j int) bool {
	for k := j + 1; k < len(s); k++ {
		switch s[k] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return false
}

// words appends the words of s[lo:hi].
func (st *mathState) words(lo, hi int) {
	if st.asciiWords(lo, hi) {
		return
	}
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

// asciiWords is words for an ASCII s[lo:hi]: it copies the text,
// lower-cased, into the arena and finds the runs of letters and digits in
// the same pass, without a branch per byte (see scanBounds). It reports
// false, having done nothing, when s[lo:hi] is not ASCII.
func (st *mathState) asciiWords(lo, hi int) bool {
	if hi-lo <= 64 && st.asciiWordsShort(lo, hi) {
		return true
	}
	s := st.s[lo:hi]
	if len(st.arena)+len(s) > math.MaxInt32 {
		return false
	}
	base := len(st.arena)
	st.arena = slices.Grow(st.arena, len(s)+72)
	// The lower-cased words go straight into the arena's spare capacity,
	// which is large enough for scanBounds to work in place.
	_, bounds, masks, ok := scanBounds(st.arena[base:base], st.bounds, st.masks, s, alnumScan)
	st.bounds, st.masks = bounds, masks
	if !ok {
		return false
	}
	st.arena = st.arena[:base+len(s)]
	off := len(st.s) + base
	for _, v := range bounds {
		st.toks = append(st.toks, off+int(v))
	}
	return true
}

// asciiWordsShort is asciiWords for a text part of at most 64 bytes that
// has 64 bytes of st.s from its start, as most have (MATH's prose between
// two math parts is 35 bytes on average): one classify of those 64 bytes
// in place, no padded copy, and the bounds taken from the bitmap's
// changes below the part's end. It reports false, having done nothing,
// where it does not apply or some byte of the 64 is not ASCII (asciiWords
// then looks at the part alone).
func (st *mathState) asciiWordsShort(lo, hi int) bool {
	n := hi - lo
	if !haveClassify || lo+64 > len(st.s) || len(st.arena)+64 > math.MaxInt32 {
		return false
	}
	if n == 0 {
		return true
	}
	base := len(st.arena)
	st.arena = slices.Grow(st.arena, 64)
	var m [1]uint64
	if !classify(st.arena[base:base+64], st.s[lo:lo+64], m[:], alnumScan) {
		return false
	}
	st.arena = st.arena[:base+n]
	// t has a bit where the part's bytes change between separator and
	// token (the byte before the part, and those after its end, are
	// separators): bit n when a token runs to the end, unless n is 64.
	w := m[0] & (^uint64(0) >> (64 - uint(n)))
	t := w ^ w<<1
	off := len(st.s) + base
	toks := st.toks
	for ; t != 0; t &= t - 1 {
		toks = append(toks, off+bits.TrailingZeros64(t))
	}
	if n == 64 && w>>63 != 0 {
		toks = append(toks, off+64)
	}
	st.toks = toks
	return true
}

// alnumClass is clsTok for ASCII letters and digits, clsSep for every
// other byte; markClass is clsTok for $, \ and newline.
var alnumClass, markClass [256]uint8

// mathByte classifies bytes for the scanners' inner loops.
var mathByte [256]uint8

const (
	wordLower uint8 = 1 << iota // a-z and 0-9
	wordUpper                   // A-Z
	multi                       // part of a non-ASCII rune
)

func init() {
	for c := range alnumClass {
		alnumClass[c], markClass[c] = clsSep, clsSep
		if c < utf8.RuneSelf && (isASCIILetter(byte(c)) || isDigit(byte(c))) {
			alnumClass[c] = clsTok
		}
	}
	markClass['$'], markClass['\\'], markClass['\n'] = clsTok, clsTok, clsTok
	for c := 'a'; c <= 'z'; c++ {
		mathByte[c] |= wordLower
		mathByte[c-'a'+'A'] |= wordUpper
	}
	for c := '0'; c <= '9'; c++ {
		mathByte[c] |= wordLower
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		mathByte[c] |= multi
	}
}

// math appends the tokens of the math part s[lo:hi] and its pairs.
func (st *mathState) math(lo, hi int) {
	first := len(st.toks) / 2
	st.mathTokens(lo, hi)
	last := len(st.toks)/2 - 1
	if last <= first {
		return
	}
	// Written through a local slice: append through st.pairs stored and
	// reloaded its header per pair.
	pairs := slices.Grow(st.pairs, last-first)
	for k := first; k < last; k++ {
		pairs = append(pairs, k)
	}
	st.pairs = pairs
}

var asciiOps = [utf8.RuneSelf]string{
	'+': "op:plus", '-': "op:minus", '=': "op:eq", '<': "op:lt", '>': "op:gt",
	'^': "op:sup", '_': "op:sub", '*': "op:ast", '/': "op:slash",
	'(': "op:lparen", ')': "op:rparen", '[': "op:lbrack", ']': "op:rbrack",
	'|': "op:vert", '!': "op:bang", '\'': "op:prime", ',': "op:comma",
	':': "op:colon", ';': "op:semicolon", '%': "op:pct",
}

// controlSymbols are the tokens of \ followed by one non-letter; the
// missing ones (\, \; \! \\ accents …) are dropped.
var controlSymbols = [utf8.RuneSelf]string{
	'{': "op:lbrace", '}': "op:rbrace", '|': "op:dvert", '%': "op:pct",
	'$': "op:dollar", '#': "op:hash", '&': "op:amp", '_': "op:underscore",
}

// mathTokens appends the tokens of the math part s[lo:hi]. A control
// sequence or a non-ASCII rune takes a branch of its own (command,
// mathRune), but
// every other byte, most of a math part, is one step without a branch on
// its class (whose mispredictions cost more than the rest of the loop):
// mathStep says whether it makes a token (a letter, an operator, a digit
// that starts a number) and where its bytes are, and a digit or "." that
// goes on a number only moves the number's end.
func (st *mathState) mathTokens(lo, hi int) {
	s := st.s
	base := -len(mathConsts) // where mathConsts is in toks' space
	// Each byte writes two bounds at n, taken only when it makes a token;
	// toks has room for a token per byte and the two scratch slots.
	toks := slices.Grow(st.toks, 2*(hi-lo)+2)
	n := len(toks)
	toks = toks[:cap(toks)]
	inNum, dotUsed := 0, 0 // 1 while s[i-1] is in a number; 1 once it has its "."
	for i := lo; i < hi; {
		c := s[i]
		e := mathStep[c]
		if e>>stepSlow&1 != 0 {
			st.toks = toks[:n]
			if c == '\\' {
				i = st.command(i, hi)
			} else {
				i = st.mathRune(i, hi)
			}
			toks = slices.Grow(st.toks, 2*(hi-i)+2)
			n = len(toks)
			toks = toks[:cap(toks)]
			inNum, dotUsed = 0, 0
			continue
		}
		d := int(e >> stepDigit & 1)
		cont := inNum & d
		if c == '.' && inNum&^dotUsed != 0 && i+1 < hi && isDigit(s[i+1]) {
			cont, dotUsed = 1, 1 // the decimal point of a number
		}
		start := d &^ inNum
		// An operator's bytes are in mathConsts, any other token's in s:
		// at is one or the other without a branch.
		op := -int(e >> stepOp & 1)
		at := i ^ (i^(base+int(e>>stepOff&0xffff)))&op
		toks[n] = at
		toks[n+1-2*cont] = at + int(e>>stepLen&0xff) // a number's end moves to i+1
		n += 2 * (int(e>>stepEmit&1) - d + start)
		inNum = start | cont
		dotUsed &= inNum
		i++
	}
	st.toks = toks[:n]
}

// mathRune appends the token of the non-ASCII rune at s[i] in a math part
// ending at hi and returns the position after it.
func (st *mathState) mathRune(i, hi int) int {
	s := st.s
	r, size := utf8.DecodeRuneInString(s[i:hi])
	switch {
	case r == utf8.RuneError && size == 1:
	case unicode.IsLetter(r), unicode.IsDigit(r):
		st.sub(i, i+size)
	case unicode.IsSymbol(r), unicode.IsPunct(r):
		st.lit("op:", s[i:i+size])
	}
	return i + size
}

// mathStep says what mathTokens does with an ASCII byte of a math part, in
// one word (a struct's fields, copied to the stack by Go, stalled every
// step on store forwarding): stepSlow, a backslash or a byte of a
// non-ASCII rune, goes through command or mathRune; otherwise stepEmit
// says whether the byte makes a single token (a letter, an operator, a
// digit, stepDigit, which makes one only when it starts a number), of
// stepLen bytes: the byte itself, or with stepOp an operator's, at stepOff
// in mathConsts.
var mathStep [256]uint64

const (
	stepSlow  = 0  // bit
	stepEmit  = 8  // bit
	stepDigit = 16 // bit
	stepOp    = 24 // bit
	stepLen   = 32 // byte
	stepOff   = 40 // 16 bits
)

// A constTok is a constant token, s[off:off+n] of mathConsts.
type constTok struct {
	off uint16
	n   uint8
}

// mathConsts holds the bytes of every operator and alias token, each once;
// constOf gives their spans, mathStep and controlSymbolTok those of the
// single characters.
var (
	mathConsts       string
	constOf          = map[string]constTok{}
	controlSymbolTok [utf8.RuneSelf]constTok
)

func addConst(tok string) constTok {
	if k, ok := constOf[tok]; ok {
		return k
	}
	if len(mathConsts)+len(tok) > math.MaxUint16 || len(tok) > math.MaxUint8 {
		panic("text: mathConsts outgrew constTok")
	}
	k := constTok{off: uint16(len(mathConsts)), n: uint8(len(tok))}
	mathConsts += tok
	constOf[tok] = k
	return k
}

func init() {
	for c := range utf8.RuneSelf {
		var e uint64
		switch {
		case isASCIILetter(byte(c)):
			e = 1<<stepEmit | 1<<stepLen
		case isDigit(byte(c)):
			e = 1<<stepEmit | 1<<stepDigit | 1<<stepLen
		case c == '.':
			e = 1 << stepLen // inside a number only
		case c == '\\':
			e = 1 << stepSlow
		case asciiOps[c] != "":
			k := addConst(asciiOps[c])
			e = 1<<stepEmit | 1<<stepOp | uint64(k.n)<<stepLen | uint64(k.off)<<stepOff
		}
		mathStep[c] = e
		if controlSymbols[c] != "" {
			controlSymbolTok[c] = addConst(controlSymbols[c])
		}
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		mathStep[c] = 1 << stepSlow
	}
}

// cmdKind says how a control word is tokenised.
type cmdKind uint8

const (
	cmdToken   cmdKind = iota // the command itself, or its alias
	cmdDrop                   // layout: nothing
	cmdDropArg                // layout with a {…} argument: nothing
	cmdText                   // prose argument: its words
	cmdOperatorname
	cmdBegin
	cmdEnd
)

type cmdInfo struct {
	kind  cmdKind
	alias string   // for cmdToken: the token when it is not the command itself
	tok   constTok // alias's span of mathConsts, which the tokeniser appends
}

// commands holds every control word that is not simply its own token. The
// tokeniser looks them up in cmdTable, made from it.
var commands = map[string]cmdInfo{
	`\operatorname`: {kind: cmdOperatorname}, `\begin`: {kind: cmdBegin}, `\end`: {kind: cmdEnd},
}

func init() {
	for _, c := range []string{
		`\left`, `\right`, `\middle`, `\big`, `\Big`, `\bigg`, `\Bigg`,
		`\bigl`, `\bigr`, `\Bigl`, `\Bigr`, `\biggl`, `\biggr`, `\Biggl`, `\Biggr`,
		`\bigm`, `\Bigm`, `\biggm`, `\Biggm`,
		`\quad`, `\qquad`, `\displaystyle`, `\textstyle`, `\scriptstyle`, `\scriptscriptstyle`,
		`\limits`, `\nolimits`, `\nonumber`, `\notag`, `\hline`, `\allowbreak`, `\nobreak`,
	} {
		commands[c] = cmdInfo{kind: cmdDrop}
	}
	for _, c := range []string{`\label`, `\tag`, `\hspace`, `\vspace`} {
		commands[c] = cmdInfo{kind: cmdDropArg}
	}
	for _, c := range []string{`\text`, `\textrm`, `\textbf`, `\textit`, `\textsf`, `\texttt`, `\textnormal`, `\mbox`, `\hbox`} {
		commands[c] = cmdInfo{kind: cmdText}
	}
	for c, alias := range map[string]string{
		`\dfrac`: `\frac`, `\tfrac`: `\frac`, `\cfrac`: `\frac`,
		`\dbinom`: `\binom`, `\tbinom`: `\binom`,
		`\le`: `\leq`, `\leqslant`: `\leq`, `\ge`: `\geq`, `\geqslant`: `\geq`, `\ne`: `\neq`,
		`\to`: `\rightarrow`, `\gets`: `\leftarrow`,
		`\ldots`: `\dots`, `\cdots`: `\dots`, `\dotsc`: `\dots`, `\dotsb`: `\dots`, `\dotsm`: `\dots`,
		`\pmod`: `\mod`, `\bmod`: `\mod`,
		`\land`: `\wedge`, `\lor`: `\vee`, `\lnot`: `\neg`,
		`\lt`: "op:lt", `\gt`: "op:gt",
		`\vert`: "op:vert", `\lvert`: "op:vert", `\rvert`: "op:vert",
		`\Vert`: "op:dvert", `\lVert`: "op:dvert", `\rVert`: "op:dvert",
		`\lbrace`: "op:lbrace", `\rbrace`: "op:rbrace",
		`\lbrack`: "op:lbrack", `\rbrack`: "op:rbrack",
		`\colon`: "op:colon",
	} {
		commands[c] = cmdInfo{kind: cmdToken, alias: alias, tok: addConst(alias)}
	}
	for name, info := range commands {
		cmdTable.put(name, info)
	}
}

// cmdTable is commands as an open-addressing table probed by a hash of a
// few bytes: most control words in MATH (\frac, \cdot, \sqrt) are in no
// table, and a Go map hashed every byte of each and cost twice as much.
var cmdTable commandTable

type commandTable struct {
	names [256]string
	infos [256]cmdInfo
}

// cmdHash hashes a control word (with its backslash, ≥ 2 bytes) by its
// length and three of its letters.
func cmdHash(w string) uint {
	n := len(w)
	h := uint(n)*0x9e37 ^ uint(w[1])<<8 ^ uint(w[n-1])<<16 ^ uint(w[n>>1])
	h *= 0x9e3779b1
	return h >> 15
}

func (t *commandTable) put(name string, info cmdInfo) {
	for i := cmdHash(name); ; i++ {
		if t.names[i&255] == "" {
			t.names[i&255], t.infos[i&255] = name, info
			return
		}
	}
}

// get is commands[w] for a control word w.
func (t *commandTable) get(w string) (cmdInfo, bool) {
	for i := cmdHash(w); ; i++ {
		name := t.names[i&255]
		if name == "" {
			return cmdInfo{}, false
		}
		if name == w {
			return t.infos[i&255], true
		}
	}
}

// command reads the control sequence at s[i] ('\\') within a math part
// ending at hi, appends its tokens and returns the position after it.
func (st *mathState) command(i, hi int) int {
	s := st.s
	if i+1 >= hi {
		return hi
	}
	if c := s[i+1]; !isASCIILetter(c) {
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i+1 : hi])
			return i + 1 + size
		}
		if k := controlSymbolTok[c]; k.n != 0 {
			st.konst(k)
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
	info, ok := cmdTable.get(s[i:j])
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
	st.konst(info.tok)
	return j
}

// braced finds a brace group at s[j:hi] after optional white space. It
// returns the bounds of its content and the position after it; end == j
// when there is no group. An unclosed group extends to hi (so its content is
// still read, and input with many unclosed groups stays linear).
func braced(s string, j, hi int) (lo, h, end int) {
	k := j
	for k < hi && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
		k++
	}
	if k >= hi || s[k] != '{' {
		return j, j, j
	}
	depth := 0
	for m := k; m < hi; m++ {
		switch s[m] {
		case '\\':
			m++ // \{ and \} do not count
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return k + 1, m, m + 1
			}
		}
	}
	return k + 1, hi, hi
}

// skipOptional skips the optional [length] after \\ (as in \\[2pt]) when it
// closes on the same line.
func skipOptional(s string, j, hi int) int {
	k := j
	for k < hi && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k >= hi || s[k] != '[' {
		return j
	}
	for m := k + 1; m < hi && s[m] != '\n'; m++ {
		if s[m] == ']' {
			return m + 1
		}
	}
	return j
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool       { return '0' <= c && c <= '9' }

func allLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isASCIILetter(w[i]) {
			return false
		}
	}
	return true
}
