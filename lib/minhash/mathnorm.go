package minhash

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalize reads a statement as datatrove does: words only. For maths
// that loses what makes two problems different: "x^8 + 98x^4 + 1" and
// "x^8 − 98x^4 + 1" both become "x 8 98x 4 1", "$\arccos(-1)$" and
// "$\arccos 1$" both "arccos 1", so a sign flip is Jaccard 1.0 and only
// the guard could keep the pair apart. NormalizeMath is the form dedup
// shingles and compares: it keeps signs and operators everywhere, and the
// structure of maths in every delimiter.

// segment is a run of a statement that is prose or maths, delimiters
// dropped.
type segment struct {
	text string
	math bool
}

// mathEnvs are the LaTeX environments whose body is maths.
var mathEnvs = map[string]bool{}

func init() {
	for _, e := range []string{"equation", "align", "aligned", "alignat", "gather", "gathered", "multline", "eqnarray", "displaymath", "math", "flalign", "split", "array", "cases", "matrix", "pmatrix", "bmatrix", "vmatrix"} {
		mathEnvs[e], mathEnvs[e+"*"] = true, true
	}
}

// splitMath cuts s into prose and maths: $…$, $$…$$, \(…\), \[…\] and
// maths environments (\begin{align}…\end{align}). "$ $" (white space
// between) opens or closes display maths as "$$" does: re-posts that space
// every "$" (" $ ") turn "$$" into it, and an empty inline span means
// nothing. An unclosed span runs to the end. "\$" is no delimiter.
func splitMath(s string) []segment {
	var out []segment
	start := 0
	inMath := false
	closer := "" // what ends the maths: $, $$, \), \] or \end{env}
	emit := func(end int) {
		if end > start {
			out = append(out, segment{text: s[start:end], math: inMath})
		}
	}
	// dollars returns the end of a "$$" (or "$ $") at i, or i+1 for "$".
	dollars := func(i int) (int, bool) {
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
			j++
		}
		if j < len(s) && s[j] == '$' {
			return j + 1, true
		}
		return i + 1, false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			n := s[i+1]
			switch {
			case !inMath && (n == '(' || n == '['):
				emit(i)
				inMath, closer = true, `\`+map[byte]string{'(': ")", '[': "]"}[n]
				i += 2
				start = i
				continue
			case inMath && (closer == `\)` && n == ')' || closer == `\]` && n == ']'):
				emit(i)
				inMath = false
				i += 2
				start = i
				continue
			case !inMath && strings.HasPrefix(s[i:], `\begin{`):
				rest := s[i+len(`\begin{`):]
				if k := strings.IndexByte(rest, '}'); k > 0 && mathEnvs[rest[:k]] {
					emit(i)
					inMath, closer = true, `\end{`+rest[:k]+`}`
					i += len(`\begin{`) + k + 1
					start = i
					continue
				}
			case inMath && strings.HasPrefix(closer, `\end{`) && strings.HasPrefix(s[i:], closer):
				emit(i)
				inMath = false
				i += len(closer)
				start = i
				continue
			}
			i += 2 // an escaped character: \$ and \\ are no delimiters
		case c == '$':
			end, double := dollars(i)
			switch {
			case !inMath:
				emit(i)
				inMath, closer = true, "$"
				if double {
					closer = "$$"
				} else {
					end = i + 1
				}
			case closer == "$$" || closer == "$":
				if closer == "$" {
					end = i + 1 // "$x$ $y$": one "$" closes inline maths
				}
				emit(i)
				inMath = false
			default: // a "$" inside \[…\] or an environment: no delimiter
				i++
				continue
			}
			i = end
			start = i
		default:
			i++
		}
	}
	emit(len(s))
	return out
}

// symbolCommands spell symbols as LaTeX commands, so that "≤" and "\le"
// give one token; decomposing "≠" (NFKD: "=" and a combining overlay,
// which Normalize drops) would make it "=".
var symbolCommands = strings.NewReplacer(
	"≠", `\ne `, "≤", `\le `, "≥", `\ge `, "±", `\pm `, "∓", `\mp `, "−", "-",
	"≮", `\nless `, "≯", `\ngtr `, "≰", `\nleq `, "≱", `\ngeq `, "×", `\times `, "÷", `\div `,
)

// commandAlias maps LaTeX commands that spell the same thing to one token;
// "" drops a command that only changes how maths looks.
var commandAlias = map[string]string{
	"dfrac": "frac", "tfrac": "frac", "leq": "le", "leqslant": "le", "geq": "ge", "geqslant": "ge",
	"neq": "ne", "lt": "<", "gt": ">", "nleq": "nle", "ngeq": "nge",
	"left": "", "right": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "", "big": "", "Big": "",
	"displaystyle": "", "textstyle": "", "scriptstyle": "", "quad": "", "qquad": "", "limits": "",
	"text": "", "textrm": "", "textnormal": "", "mathrm": "", "mbox": "", "operatorname": "",
}

// isOperator: signs and relations, a token of their own everywhere.
func isOperator(r rune) bool { return r == '+' || r == '-' || r == '=' || r == '<' || r == '>' }

// isMark: what else carries meaning in maths ("|f(x)|" is not "f(|x|)",
// "x^2" not "x_2", "[a, b)" not "(a, b)", "5!" not "5"), a token of its
// own there. In prose these are punctuation ("Q12)", "(No calculators.)")
// that re-posts change, and separate words only.
func isMark(r rune, math bool) bool {
	return math && strings.ContainsRune("()[]|^_/*!", r)
}

// appendTokens appends the tokens of one segment to out: lower-cased words
// (in prose runs of letters and digits, as Normalize reads them; in maths
// runs of letters and runs of digits apart, "2x" is "2 x", so that white
// space in maths never matters), LaTeX commands, signs and operators, and
// maths marks (isMark).
func appendTokens(out []string, text string, math bool) []string {
	var word strings.Builder
	digits := false // what word holds
	flush := func() {
		if word.Len() > 0 {
			out = append(out, word.String())
			word.Reset()
		}
	}
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r):
			// Diacritics and invisible format characters vanish.
		case r == '\\' && i+1 < len(rs) && isASCIILetter(rs[i+1]):
			flush()
			j := i + 1
			for j < len(rs) && isASCIILetter(rs[j]) {
				j++
			}
			name := string(rs[i+1 : j])
			if a, ok := commandAlias[name]; ok {
				name = a
			}
			if name != "" {
				out = append(out, name)
			}
			i = j - 1
		case r == '\\' && i+1 < len(rs):
			// \{ \} are set braces; \, \; \! \  and \\ are spacing.
			flush()
			if n := rs[i+1]; n == '{' || n == '}' || n == '|' {
				out = append(out, string(n))
			}
			i++
		case isOperator(r) || isMark(r, math):
			flush()
			out = append(out, string(r))
		case unicode.IsDigit(r) || unicode.IsLetter(r):
			if d := unicode.IsDigit(r); d != digits {
				if math {
					flush()
				}
				digits = d
			}
			word.WriteRune(unicode.ToLower(r))
		default: // white space, punctuation, other symbols: a separator
			flush()
		}
	}
	flush()
	return out
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// NormalizeMath returns the tokens of s, joined by single spaces: s after
// Unicode NFKD (compatibility forms: "ﬁ" is "fi", "²" is "2"; diacritics
// and format characters dropped), split into prose and maths in every
// delimiter (splitMath). Tokens are lower-cased words, LaTeX commands
// (\dfrac is frac, \leq le; \left, \right, \text and spacing dropped),
// signs and operators (+ - = < >, and ± ∓ ≤ ≥ ≠ as pm, mp, le, ge, ne)
// and, in maths, the marks ( ) [ ] | ^ _ / * !.
// Everything else (punctuation, braces, white space) only separates
// tokens, so LaTeX spacing, line breaks and punctuation spacing never
// change the result; a sign, an operator or a digit always does.
func NormalizeMath(s string) string {
	return strings.Join(mathTokens(s), " ")
}

func mathTokens(s string) []string {
	d := norm.NFKD.String(symbolCommands.Replace(s))
	var out []string
	for _, seg := range splitMath(d) {
		out = appendTokens(out, seg.text, seg.math)
	}
	return out
}
