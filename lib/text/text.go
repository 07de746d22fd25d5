// Package text holds the tokenisers of the lexical baselines (SPEC §3
// "Lexical baselines (C.4)", paper App. C.4):
//
//   - Plain ("plain"): Python's s.lower().split() — lower-case, then split on
//     Unicode white space. The "-no-tok" BM25 and Jaccard use it.
//   - Sklearn ("sklearn"): scikit-learn's default analyzer,
//     re.findall(r"(?u)\b\w\w+\b", s.lower()). The "-no-tok" TF-IDF uses it.
//   - Math ("math"): a math-aware tokeniser of our own design, used by the
//     main BM25, TF-IDF and Jaccard; see math.go.
//
// Plain and Sklearn reproduce Python exactly, and testdata/gen.sh checks it:
// Lower is Python's str.lower (full case mapping: U+0130 becomes "i" +
// U+0307, and a capital sigma becomes final "ς" in Python's Final_Sigma
// context), IsWord is the \w of Python's re on str patterns (letters, digits
// and numerics of every script, and "_"; not combining marks), and IsSpace is
// Python's str.isspace, which unlike unicode.IsSpace includes the four
// information separators U+001C–U+001F. The only possible differences come
// from the Unicode versions: Python 3.11 uses Unicode 14.0, Go 1.26 15.0, so
// characters first assigned in 15.0 may differ.
//
// Append's tokens are substrings of the input or of one string allocated
// per call, so a token keeps its source text alive; callers that keep
// tokens long after the text should clone them. Spans holds the same
// tokens as spans of one reused buffer, allocating nothing, for the
// lexical scorers' hot path.
package text

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Tokenizer splits a text into tokens. Implementations are stateless and
// safe for concurrent use.
type Tokenizer interface {
	// Name is the name Lookup knows it by.
	Name() string
	// Append appends the tokens of s to dst, in a deterministic order, and
	// returns the extended slice. Taking dst lets a caller that tokenises
	// many texts reuse one slice.
	Append(dst []string, s string) []string
}

// Tokens returns the tokens of s (nil when there are none).
func Tokens(t Tokenizer, s string) []string { return t.Append(nil, s) }

// The tokenisers. They are values of unexported types so that the set of
// names Lookup knows is fixed.
var (
	Plain   Tokenizer = plainTokenizer{}
	Sklearn Tokenizer = sklearnTokenizer{}
	Math    Tokenizer = mathTokenizer{}
)

var byName = map[string]Tokenizer{
	Plain.Name():   Plain,
	Sklearn.Name(): Sklearn,
	Math.Name():    Math,
}

// Names lists the names Lookup knows, sorted.
func Names() []string { return []string{"math", "plain", "sklearn"} }

// Lookup returns the tokeniser called name ("plain", "sklearn" or "math").
func Lookup(name string) (Tokenizer, error) {
	if t, ok := byName[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("text: unknown tokenizer %q (known: %s)", name, strings.Join(Names(), ", "))
}

type plainTokenizer struct{}

func (plainTokenizer) Name() string { return "plain" }

// Append splits Lower(s) at runs of IsSpace runes, as Python's
// s.lower().split() does.
func (plainTokenizer) Append(dst []string, s string) []string {
	s = Lower(s)
	spaceSpans(s, func(lo, hi int) { dst = append(dst, s[lo:hi]) })
	return dst
}

// spaceSpans calls emit with the bounds of every maximal run of non-IsSpace
// runes of s.
func spaceSpans[S string | []byte](s S, emit func(lo, hi int)) {
	for i := 0; i < len(s); {
		// Skip separators.
		if c := s[i]; c < utf8.RuneSelf {
			if plainClass[c] == clsSep {
				i++
				continue
			}
		} else if r, size := decodeRune(s, i); IsSpace(r) {
			i += size
			continue
		}
		start := i
		for i < len(s) {
			for i < len(s) && plainClass[s[i]] == clsTok {
				i++
			}
			if i == len(s) || plainClass[s[i]] == clsSep {
				break
			}
			r, size := decodeRune(s, i)
			if IsSpace(r) {
				break
			}
			i += size
		}
		emit(start, i)
	}
}

// decodeRune decodes the rune at s[i:] of a string or byte slice. Its
// string conversion of at most 4 bytes does not escape, so it does not
// allocate.
func decodeRune[S string | []byte](s S, i int) (rune, int) {
	return utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
}

type sklearnTokenizer struct{}

func (sklearnTokenizer) Name() string { return "sklearn" }

// Append returns the matches of (?u)\b\w\w+\b in Lower(s), which are exactly
// the maximal runs of IsWord runes that are at least two runes long.
func (sklearnTokenizer) Append(dst []string, s string) []string {
	s = Lower(s)
	wordSpans(s, func(lo, hi int) { dst = append(dst, s[lo:hi]) })
	return dst
}

// wordSpans calls emit with the bounds of every maximal run of at least two
// IsWord runes of s.
func wordSpans[S string | []byte](s S, emit func(lo, hi int)) {
	for i := 0; i < len(s); {
		start, n := i, 0 // n counts runes
		for i < len(s) {
			j := i
			for j < len(s) && wordClass[s[j]] == clsTok {
				j++
			}
			n += j - i
			i = j
			if i == len(s) || wordClass[s[i]] == clsSep {
				break
			}
			r, size := decodeRune(s, i)
			if !IsWord(r) {
				break
			}
			i += size
			n++
		}
		if n >= 2 {
			emit(start, i)
		}
		if n == 0 {
			_, size := decodeRune(s, i)
			i += size
		}
	}
}

// Byte classes for the scanners' inner loops: a token byte, a separator,
// or the first or a later byte of a non-ASCII rune, which needs decoding.
const (
	clsTok uint8 = iota
	clsSep
	clsMulti
)

var plainClass, wordClass [256]uint8

// asciiLower maps every ASCII byte to its lower case.
var asciiLower [utf8.RuneSelf]byte

var asciiWord, asciiSpace [utf8.RuneSelf]bool

func init() {
	for c := 0; c < utf8.RuneSelf; c++ {
		asciiWord[c] = c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		asciiSpace[c] = '\t' <= c && c <= '\r' || 0x1c <= c && c <= ' '
		asciiLower[c] = byte(unicode.ToLower(rune(c)))
		plainClass[c], wordClass[c] = clsTok, clsTok
		if asciiSpace[c] {
			plainClass[c] = clsSep
		}
		if !asciiWord[c] {
			wordClass[c] = clsSep
		}
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		plainClass[c], wordClass[c] = clsMulti, clsMulti
	}
}

// IsWord reports whether Python's re matches r with \w in a str pattern:
// "_" or a rune that str.isalnum() accepts (Unicode letters, Lu Ll Lt Lm Lo,
// and numbers, Nd Nl No). Combining marks are not word runes, so a letter
// followed by a combining accent ends a word there, as in Python.
func IsWord(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// IsSpace reports whether Python's str.isspace is true for r, i.e. whether
// str.split() splits there: unicode.IsSpace plus U+001C–U+001F.
func IsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

// Lower returns s lower-cased as Python's str.lower does it: every rune by
// its Unicode lower-case mapping, except U+0130 (İ), which becomes "i" +
// U+0307 (COMBINING DOT ABOVE), and U+03A3 (Σ), which becomes "ς" where it
// ends a word (Final_Sigma: a cased letter before it, skipping
// case-ignorable runes, and none after it) and "σ" elsewhere. Bytes of
// invalid UTF-8 are copied unchanged. When s has nothing to lower-case, s
// itself is returned without allocating.
func Lower(s string) string {
	if firstUpper(s) == len(s) {
		return s
	}
	return string(appendLower(make([]byte, 0, len(s)+8), s))
}

// appendLower appends Lower(s) to dst.
func appendLower(dst []byte, s string) []byte {
	// ASCII, by far the most common case, is lower-cased in place, a byte
	// at a time without branches.
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)]
	b := dst[n:]
	i := 0
	for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
		b[i] = asciiLower[s[i]]
	}
	dst = dst[:n+i]
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, asciiLower[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, c)
		case r == '\u0130':
			dst = append(dst, "i\u0307"...)
		case r == '\u03a3':
			if finalSigma(s, i, i+size) {
				dst = utf8.AppendRune(dst, 'ς')
			} else {
				dst = utf8.AppendRune(dst, 'σ')
			}
		default:
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += size
	}
	return dst
}

// firstUpper returns the offset of the first rune of s that Lower changes,
// or len(s).
func firstUpper(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.ToLower(r) != r || r == '\u0130' {
			return i
		}
		i += size
	}
	return len(s)
}

// finalSigma reports whether the capital sigma at s[i:j] is in the
// Final_Sigma context, as CPython's handle_capital_sigma decides it: the
// nearest rune before it that is not case-ignorable exists and is cased, and
// the nearest rune after it that is not case-ignorable does not exist or is
// not cased.
func finalSigma(s string, i, j int) bool {
	before := false
	for k := i; k > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:k])
		k -= size
		if !caseIgnorable(r) {
			before = cased(r)
			break
		}
	}
	if !before {
		return false
	}
	for k := j; k < len(s); {
		r, size := utf8.DecodeRuneInString(s[k:])
		k += size
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// cased is Unicode's Cased property: Lu, Ll, Lt, Other_Lowercase and
// Other_Uppercase.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk and
// the runes whose Word_Break is MidLetter, MidNumLet or Single_Quote (listed
// here from Unicode's WordBreakProperty.txt, which the unicode package does
// not carry).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
