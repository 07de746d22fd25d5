// Package rewrite is the offline rewriter of the deduplication experiment
// (paper App. B.4): it restates a problem statement keeping its
// mathematical content while changing its surface form, deterministically
// from a seed, so that the experiment runs with no model. Four moves, each
// content-preserving:
//
//   - Variables: every single-letter identifier inside the maths ($…$,
//     $$…$$, \(…\), \[…\]) is renamed by one bijection drawn from the seed,
//     the same letter always to the same new letter, lower case to lower
//     case, upper to upper, never onto a letter the statement already uses
//     (so no two variables merge). Letters inside a LaTeX command (\frac)
//     and the constants e, i and π-like commands are kept.
//   - Names: a person's name from the list Names is replaced, everywhere,
//     by another drawn from the seed.
//   - Wording: common phrasings are swapped for equivalent ones (Phrases:
//     "Find" ↔ "Determine", "How many" → "What is the number of", ...).
//   - Notation: equivalent LaTeX forms are swapped (Notations: \le ↔ \leq,
//     \cdot ↔ \times, ...), the square of a single symbol becomes a
//     product (x^2 → x \cdot x) and a fraction of short parts a slash
//     (\frac{3}{m} → 3/m).
//   - Numbers: an inline maths segment that is only a whole number up to
//     20 is spelled out ($12$ → twelve).
//   - Clauses: when the statement has two or more sentences before its
//     last, the first two are exchanged (the question stays last).
//
// Rewrite is pure: the same statement and seed give the same text. It is
// not a paraphraser: it changes what lexical matching sees (identifiers,
// names, frequent words, notation) while an equivalent problem remains,
// which is what makes the experiment discriminate between retrievers.
//
// docs/algorithms.md#deduplication-retrieval-43-app-b4-d11 specifies the
// rewrite stage that runs it, and its llm backend beside it.
package rewrite

import (
	"cmp"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Names are the first names the rewriter recognises and draws from.
var Names = []string{
	"Alice", "Bob", "Carmen", "David", "Esther", "Farid", "Grace", "Hiro", "Ines", "Jamal",
	"Kira", "Liam", "Mei", "Noah", "Olga", "Pavel", "Quinn", "Rosa", "Sven", "Tara",
	"Umar", "Vera", "Wen", "Ximena", "Yusuf", "Zoe",
}

// Phrases are the wording swaps, tried in order at word boundaries
// (case-sensitive: sentence-initial forms are listed as such).
var Phrases = [][2]string{
	{"Find", "Determine"},
	{"Determine", "Find"},
	{"Compute", "Calculate"},
	{"Calculate", "Evaluate"},
	{"Evaluate", "Compute"},
	{"Prove that", "Show that"},
	{"Show that", "Prove that"},
	{"How many", "What is the number of"},
	{"What is", "Give"},
	{"What's", "Give"},
	{"positive integers", "positive whole numbers"},
	{"positive integer", "positive whole number"},
	{"real numbers", "reals"},
	{"the sum of", "the total of"},
	{"the total of", "the sum of"},
	{"the remainder", "the residue"},
	{"Suppose that", "Assume that"},
	{"Suppose", "Assume"},
	{"Let", "Take"},
	{"such that", "so that"},
	{"exactly", "precisely"},
	{"claims", "asserts"},
	{"says", "states"},
}

// Notations are the LaTeX command swaps applied inside the maths, in one
// pass (a swapped command is not swapped back).
var Notations = map[string]string{
	"leq": "le", "le": "leq", "geq": "ge", "ge": "geq",
	"cdot": "times", "times": "cdot", "dfrac": "frac", "neq": "ne",
}

// commandRE matches a command of Notations as a whole command name.
var commandRE = func() *regexp.Regexp {
	var names []string
	for n := range Notations {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return regexp.MustCompile(`\\(` + strings.Join(names, "|") + `)\b`)
}()

// Rewrite returns the rewritten statement (see the package doc).
func Rewrite(statement string, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x5ab3e4))
	segs := split(statement)
	rename := letterMap(segs, rng)
	names := nameMap(statement, rng)
	for i := range segs {
		if segs[i].math {
			segs[i].text = rewriteMath(segs[i].text, rename)
		} else {
			segs[i].text = rewriteText(segs[i].text, names)
		}
	}
	var b strings.Builder
	for _, s := range segs {
		if w, ok := numberWord(s); ok {
			// "$12$ feet" → "twelve feet": the same number, no maths token.
			b.WriteString(w)
			continue
		}
		b.WriteString(s.open + s.text + s.close)
	}
	return reorder(b.String())
}

// numberWords are the words of the numbers numberWord spells out.
var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// numberWord spells out an inline maths segment that is only a whole
// number from 0 to 20 ($12$ → twelve): the same content, another surface.
func numberWord(s segment) (string, bool) {
	if !s.math || s.open != "$" {
		return "", false
	}
	t := strings.TrimSpace(s.text)
	n := 0
	for _, c := range t {
		if c < '0' || c > '9' {
			return "", false
		}
		n = 10*n + int(c-'0')
		if n > 20 {
			return "", false
		}
	}
	if t == "" || len(t) > 1 && t[0] == '0' {
		return "", false
	}
	return numberWords[n], true
}

// segment is a run of text or of maths with its delimiters.
type segment struct {
	open, text, close string
	math              bool
}

var delims = [][2]string{{"$$", "$$"}, {`\[`, `\]`}, {`\(`, `\)`}, {"$", "$"}}

// split cuts s at the maths delimiters; an unclosed one is text.
func split(s string) []segment {
	var out []segment
	start := 0
	for i := 0; i < len(s); {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] != '[' && s[i+1] != '(' {
			i += 2 // an escaped character (\$) is text
			continue
		}
		found := false
		for _, d := range delims {
			if !strings.HasPrefix(s[i:], d[0]) {
				continue
			}
			end := strings.Index(s[i+len(d[0]):], d[1])
			if end < 0 {
				break
			}
			if i > start {
				out = append(out, segment{text: s[start:i]})
			}
			body := s[i+len(d[0]) : i+len(d[0])+end]
			out = append(out, segment{open: d[0], text: body, close: d[1], math: true})
			i += len(d[0]) + end + len(d[1])
			start = i
			found = true
			break
		}
		if !found {
			i++
		}
	}
	if start < len(s) {
		out = append(out, segment{text: s[start:]})
	}
	return out
}

// keptLetters are single letters that are constants, not variables.
const keptLetters = "ei"

// letters returns the single-letter identifiers of a maths text: letters
// not inside a \command and not adjacent to another letter.
//
// rename, when not nil, is also called for each letter of a two-letter run.
func letters(m string, fn, rename func(pos int, r byte)) {
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c == '\\' {
			// Skip the command name.
			j := i + 1
			for j < len(m) && isLetter(m[j]) {
				j++
			}
			if j == i+1 && j < len(m) {
				j++ // \{ \, and the like
			}
			i = j - 1
			continue
		}
		if !isLetter(c) {
			continue
		}
		j := i
		for j < len(m) && isLetter(m[j]) {
			j++
		}
		switch {
		case j == i+1 && !strings.ContainsRune(keptLetters, rune(c)):
			fn(i, c)
		case j == i+2 && rename != nil:
			// A two-letter run is a product (xy) or a differential (dx):
			// its letters that are variables elsewhere are renamed too.
			rename(i, m[i])
			rename(i+1, m[i+1])
		}
		i = j - 1
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// letterMap draws the renaming of the statement's variables: a bijection
// from the letters used onto letters not used, of the same case (when too
// few are free, onto a shuffle of the used ones).
func letterMap(segs []segment, rng *rand.Rand) map[byte]byte {
	used := map[byte]bool{}
	var order []byte
	for _, s := range segs {
		if !s.math {
			continue
		}
		letters(s.text, func(_ int, c byte) {
			if !used[c] {
				used[c] = true
				order = append(order, c)
			}
		}, nil)
	}
	out := map[byte]byte{}
	for _, upper := range []bool{false, true} {
		var mine, free []byte
		for _, c := range order {
			if unicode.IsUpper(rune(c)) == upper {
				mine = append(mine, c)
			}
		}
		lo, hi := byte('a'), byte('z')
		if upper {
			lo, hi = 'A', 'Z'
		}
		for c := lo; c <= hi; c++ {
			if !used[c] && !strings.ContainsRune(keptLetters, rune(c)) && c != 'd' && c != 'o' && c != 'l' && c != 'O' && c != 'I' {
				free = append(free, c)
			}
		}
		if len(free) < len(mine) {
			free = slices.Clone(mine)
		}
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		for k, c := range mine {
			out[c] = free[k]
		}
	}
	return out
}

var nameRE = regexp.MustCompile(`\b(` + strings.Join(Names, "|") + `)\b`)

// nameMap maps each listed name in s to another, drawn from the seed.
func nameMap(s string, rng *rand.Rand) map[string]string {
	found := nameRE.FindAllString(s, -1)
	out := map[string]string{}
	var pool []string
	for _, n := range Names {
		if !slices.Contains(found, n) {
			pool = append(pool, n)
		}
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for _, n := range found {
		if _, ok := out[n]; !ok && len(pool) > 0 {
			out[n], pool = pool[0], pool[1:]
		}
	}
	return out
}

// phraseRE matches every phrase of Phrases at word boundaries, longest
// first, so that one pass swaps each occurrence once.
var phraseRE, phraseTo = func() (*regexp.Regexp, map[string]string) {
	to := map[string]string{}
	var keys []string
	for _, p := range Phrases {
		if _, ok := to[p[0]]; !ok {
			to[p[0]] = p[1]
			keys = append(keys, p[0])
		}
	}
	slices.SortStableFunc(keys, func(a, b string) int { return len(b) - len(a) })
	for i, k := range keys {
		keys[i] = regexp.QuoteMeta(k)
	}
	return regexp.MustCompile(`\b(` + strings.Join(keys, "|") + `)\b`), to
}()

func rewriteText(s string, names map[string]string) string {
	s = nameRE.ReplaceAllStringFunc(s, func(n string) string {
		if m, ok := names[n]; ok {
			return m
		}
		return n
	})
	return phraseRE.ReplaceAllStringFunc(s, func(p string) string { return phraseTo[p] })
}

// squareRE is a single symbol squared: x^2 or x^{2}.
var squareRE = regexp.MustCompile(`\b([A-Za-z])\^\{?2\}?`)

// fracRE is a fraction of two short plain parts: \frac{3}{m}.
var fracRE = regexp.MustCompile(`\\frac\{([A-Za-z0-9]{1,3})\}\{([A-Za-z0-9]{1,3})\}`)

func rewriteMath(m string, rename map[byte]byte) string {
	b := []byte(m)
	set := func(pos int, c byte) {
		if r, ok := rename[c]; ok {
			b[pos] = r
		}
	}
	letters(m, set, set)
	m = string(b)
	m = commandRE.ReplaceAllStringFunc(m, func(c string) string { return `\` + Notations[c[1:]] })
	m = squareRE.ReplaceAllString(m, `$1 \cdot $1`)
	return fracRE.ReplaceAllString(m, `$1/$2`)
}

// sentenceRE ends a sentence at ". ", "? " or "! " outside maths (the
// maths holds no such run in practice; a split inside it only limits the
// reordering, which then keeps the order).
var sentenceRE = regexp.MustCompile(`[.?!]\s+`)

// reorder exchanges the first two sentences when at least three there
// are, keeping the last (the question) last.
func reorder(s string) string {
	idx := sentenceRE.FindAllStringIndex(s, -1)
	if len(idx) < 2 {
		return s
	}
	var sents []string
	prev := 0
	for _, ix := range idx {
		sents = append(sents, s[prev:ix[1]])
		prev = ix[1]
	}
	if prev < len(s) {
		sents = append(sents, s[prev:])
	}
	if len(sents) < 3 || strings.Count(sents[0], "$")%2 != 0 || strings.Count(sents[1], "$")%2 != 0 {
		return s
	}
	a, b := strings.TrimRight(sents[0], " \n\t"), strings.TrimRight(sents[1], " \n\t")
	sep0 := sents[0][len(a):]
	sep1 := sents[1][len(b):]
	return b + sep0 + a + sep1 + strings.Join(sents[2:], "")
}

// Check validates a rewrite (of any backend) against its original: not
// empty, not identical (after trimming), and its length in runes within
// [minRatio, maxRatio] times the original's. It returns "" when the
// rewrite is valid, else the reason: empty, identical or length_ratio.
func Check(original, rewritten string, minRatio, maxRatio float64) string {
	o, r := strings.TrimSpace(original), strings.TrimSpace(rewritten)
	switch {
	case r == "":
		return ReasonEmpty
	case r == o:
		return ReasonIdentical
	}
	ratio := float64(len([]rune(r))) / float64(max(1, len([]rune(o))))
	if ratio < minRatio || ratio > maxRatio {
		return ReasonLengthRatio
	}
	return ""
}

// Reasons a rewrite is invalid.
const (
	ReasonEmpty       = "empty"
	ReasonIdentical   = "identical"
	ReasonLengthRatio = "length_ratio"
)
