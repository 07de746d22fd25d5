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
// Tokens are substrings of the input or of one string allocated per call, so
// a token keeps its source text alive; callers that keep tokens long after
// the text should clone them.
package text

import (
	"fmt"
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
	start := -1 // start of the current token, -1 between tokens
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		var space bool
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			space = IsSpace(r)
		}
		if space {
			if start >= 0 {
				dst = append(dst, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

type sklearnTokenizer struct{}

func (sklearnTokenizer) Name() string { return "sklearn" }

// Append returns the matches of (?u)\b\w\w+\b in Lower(s), which are exactly
// the maximal runs of IsWord runes that are at least two runes long.
func (sklearnTokenizer) Append(dst []string, s string) []string {
	s = Lower(s)
	for i := 0; i < len(s); {
		start, n := i, 0
		for i < len(s) {
			c := s[i]
			if c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				i++
			} else {
				r, size := utf8.DecodeRuneInString(s[i:])
				if !IsWord(r) {
					break
				}
				i += size
			}
			n++
		}
		if n >= 2 {
			dst = append(dst, s[start:i])
		}
		if n == 0 {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
	}
	return dst
}

var asciiWord, asciiSpace [utf8.RuneSelf]bool

func init() {
	for c := 0; c < utf8.RuneSelf; c++ {
		asciiWord[c] = c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		asciiSpace[c] = '\t' <= c && c <= '\r' || 0x1c <= c && c <= ' '
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
	i := firstUpper(s)
	if i == len(s) {
		return s
	}
	b := make([]byte, i, len(s)+8)
	copy(b, s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, c)
		case r == '\u0130':
			b = append(b, "i\u0307"...)
		case r == '\u03a3':
			if finalSigma(s, i, i+size) {
				b = utf8.AppendRune(b, 'ς')
			} else {
				b = utf8.AppendRune(b, 'σ')
			}
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		i += size
	}
	return string(b)
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
