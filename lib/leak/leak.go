// Package leak is the offline test for duplicate leakage of the audit stage
// (paper App. A.5): does a document state a problem equivalent to a query's,
// the same mathematical content up to renaming, rewording or notation? The
// paper asks an LLM; this is a deterministic near-duplicate test of our own
// design that needs no model, for the demo, for tests and as a cheap first
// pass. It compares three features of the two problems:
//
//   - Shingles: the statement is cut into sentences (at '.', '?', '!' or ';'
//     followed by white space outside math, at a math span that ends in
//     '.', '?' or '!' before white space, and at line breaks), each
//     sentence normalised with minhash.Normalize after masking its
//     identifiers (below), and the sentence's words and word 3-grams hashed
//     (minhash.Shingles with n = 1 and n = 3; a sentence shorter than 3
//     words gives one 3-gram, itself). Score is the Jaccard similarity of
//     the two shingle sets. The words are there for short statements: in
//     "Compute $\dbinom{8}{6}$." one changed word removes every 3-gram.
//     Masking: inside math ($…$, $$…$$, \(…\), \[…\]) every letter that is
//     not part of a command is a word of its own ("ABC" → "a b c") and a
//     Greek-letter command is a letter; then every one-letter word becomes
//     the same token. So renaming x, y to a, b, or triangle ABC to PQR,
//     changes no shingle, and since no shingle spans two sentences,
//     reordering sentences changes none either.
//   - Numbers: the multiset of the numbers written in the statement:
//     integers, decimals and simple fractions (a/b, \frac{a}{b}, \dfrac,
//     \tfrac, \frac12), in text or TeX, with thousands written 1,000, 1{,}000
//     or 1\,000; leading zeros and a decimal's trailing zeros dropped, signs
//     ignored, fractions kept unreduced.
//   - Answers: the contents of the last \boxed{…} (or \fbox{…}) of each
//     solution, normalised: white space and TeX spacing (\, \; \: \!)
//     removed, \left and \right dropped, \dfrac and \tfrac written \frac, a
//     trailing period removed. None when the solution boxes nothing.
//
// The rule (Rule, with DefaultRule's thresholds): a pair is equivalent when
//
//   - both answers are present and equal, and either the shingle Jaccard is
//     ≥ Rule.Jaccard, or the numbers are equal as multisets and the Jaccard
//     is ≥ Rule.JaccardNumbers; or
//   - an answer is missing (proofs, or a solution that boxes nothing), the
//     numbers are equal and the Jaccard is ≥ Rule.Jaccard.
//
// Two present answers that differ make the pair distinct whatever the text:
// equivalent problems have equal answers.
//
// Limits, honestly. This is a test for near-copies, not for equivalence:
//
//   - The same problem with its data written otherwise (x + y = 10 and
//     xy = 21 against "x and y are the roots of t² − 10t + 21"), a story
//     retold in other words (synonyms, a different setting), or the same
//     content in other notation (½ against 0.5, "five" against 5, a sum in
//     words against Σ) keeps neither shingles nor numbers: such a duplicate
//     is MISSED. Equal answers written
//     differently (0.5 against \frac{1}{2}, "3 cm" against 3) count as
//     different answers and also make it missed.
//   - Templated problems that differ in one word that matters (maximum
//     against minimum, "at least" against "at most", positive against
//     non-negative) but share numbers and, by chance, the answer may be
//     FLAGGED, as may two problems whose statements are nearly identical
//     text with the same answer but a changed figure or diagram (Asymptote
//     code is text like the rest).
//   - Masking makes every variable alike, and shingles are sets: problems
//     that differ only in which variable a condition applies to, or in how
//     often a function is composed (f(f(x)) against f(f(f(x)))), look the
//     same (the answers must still agree).
//
// So a flag is a pair for a person to read, and no flag is not proof of
// no leak: the LLM backend (prompt a1.v1) is the audit the paper describes.
//
// Everything here is pure and deterministic: no I/O, no randomness.
//
// docs/release.md#the-audits-settings is the audit stage's page: its
// backends, their settings and what to do with a flag.
package leak

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/saber-math/saber/lib/minhash"
)

// Version names the features and the rule; it changes whenever either
// changes what Compare returns.
const Version = "leak.v1"

// shingleWords are the shingle lengths in words.
var shingleWords = []int{1, 3}

// Rule is the decision rule's thresholds on the shingle Jaccard.
type Rule struct {
	// Jaccard flags a pair with equal answers, or with equal numbers when an
	// answer is missing, whose shingle Jaccard reaches it.
	Jaccard float64
	// JaccardNumbers flags a pair with equal answers and equal numbers
	// whose shingle Jaccard reaches it; it is at most Jaccard.
	JaccardNumbers float64
}

// DefaultRule holds the default thresholds, chosen on MATH (12,500
// problems; see math_test.go): every problem against a copy with its
// variables renamed and its sentences reordered is flagged, and all but 2
// when one word is also changed; of the 12.4 million pairs of distinct
// problems of the same MATH type it flags 50, of which 21 are MATH's own
// reworded duplicates and 28 false positives (0.00023% of the pairs,
// 0.006% of each problem's 50 lexically nearest neighbours): templated
// problems with equal answers.
var DefaultRule = Rule{Jaccard: 0.8, JaccardNumbers: 0.4}

// Validate reports thresholds out of range.
func (r Rule) Validate() error {
	if !(r.Jaccard > 0 && r.Jaccard <= 1) || !(r.JaccardNumbers > 0 && r.JaccardNumbers <= r.Jaccard) {
		return fmt.Errorf("leak: thresholds jaccard %v and jaccard_numbers %v must satisfy 0 < jaccard_numbers ≤ jaccard ≤ 1", r.Jaccard, r.JaccardNumbers)
	}
	return nil
}

// Features are what Compare compares of one problem.
type Features struct {
	// Shingles are the statement's shingle hashes, sorted and distinct.
	Shingles []uint64
	// Numbers is the statement's numbers, normalised, sorted.
	Numbers []string
	// Answer is the solution's last boxed answer, normalised; HasAnswer
	// is false when there is none.
	Answer    string
	HasAnswer bool
}

// Extract computes a problem's features.
func Extract(statement, solution string) Features {
	f := Features{Shingles: Shingles(statement), Numbers: Numbers(statement)}
	f.Answer, f.HasAnswer = Answer(solution)
	return f
}

// Result is a comparison's outcome.
type Result struct {
	Equivalent bool
	// Score is the shingle Jaccard in [0, 1].
	Score float64
	// Reason says in a few words why.
	Reason string
	// Evidence lists every feature the decision used, one per line: what
	// the audit hashes as the offline backend's answer.
	Evidence string
}

// Compare decides whether query and doc state equivalent problems.
func (r Rule) Compare(query, doc Features) Result {
	j := minhash.Jaccard(query.Shingles, doc.Shingles)
	sameNumbers := slices.Equal(query.Numbers, doc.Numbers)
	res := Result{Score: j}
	switch {
	case query.HasAnswer && doc.HasAnswer && query.Answer != doc.Answer:
		res.Reason = "different answers"
	case query.HasAnswer && doc.HasAnswer && j >= r.Jaccard:
		res.Equivalent = true
		res.Reason = fmt.Sprintf("same answer, shingles %.2f ≥ %.2f", j, r.Jaccard)
	case query.HasAnswer && doc.HasAnswer && sameNumbers && j >= r.JaccardNumbers:
		res.Equivalent = true
		res.Reason = fmt.Sprintf("same answer and numbers, shingles %.2f ≥ %.2f", j, r.JaccardNumbers)
	case query.HasAnswer && doc.HasAnswer:
		res.Reason = fmt.Sprintf("same answer, shingles %.2f", j)
		if !sameNumbers {
			res.Reason = fmt.Sprintf("same answer, other numbers, shingles %.2f", j)
		}
	case sameNumbers && j >= r.Jaccard:
		res.Equivalent = true
		res.Reason = fmt.Sprintf("no answer to compare; same numbers, shingles %.2f ≥ %.2f", j, r.Jaccard)
	default:
		res.Reason = fmt.Sprintf("no answer to compare; shingles %.2f", j)
		if !sameNumbers {
			res.Reason = fmt.Sprintf("no answer to compare; other numbers, shingles %.2f", j)
		}
	}
	verdict := "distinct"
	if res.Equivalent {
		verdict = "equivalent"
	}
	answer := func(f Features) string {
		if !f.HasAnswer {
			return "(none)"
		}
		return strconv.Quote(f.Answer)
	}
	res.Evidence = fmt.Sprintf("%s jaccard>=%g numbers+jaccard>=%g\nshingles query %d doc %d jaccard %s\nnumbers query %s\nnumbers doc %s\nanswer query %s\nanswer doc %s\n%s: %s\n",
		Version, r.Jaccard, r.JaccardNumbers, len(query.Shingles), len(doc.Shingles), strconv.FormatFloat(j, 'g', -1, 64),
		strings.Join(query.Numbers, " "), strings.Join(doc.Numbers, " "), answer(query), answer(doc), verdict, res.Reason)
	return res
}

// Shingles returns the hashes of a statement's words and word 3-grams,
// sentence by sentence, over the normalised text with identifiers masked
// (see the package doc), sorted and distinct.
func Shingles(statement string) []uint64 {
	var out []uint64
	for _, s := range Sentences(statement) {
		for _, n := range shingleWords {
			out = append(out, minhash.Shingles(s, n)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Mask is the token every one-letter word becomes.
const Mask = "_"

// greek are the Greek-letter commands masked like letters.
var greek = map[string]bool{}

func init() {
	for _, g := range strings.Fields(`alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa
		lambda mu nu xi omicron pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
		Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega`) {
		greek[g] = true
	}
}

// Sentences returns a statement's sentences, each normalised
// (minhash.Normalize) with its identifiers masked; empty ones are dropped.
func Sentences(statement string) []string {
	var (
		out  []string
		cur  strings.Builder
		math string // the closing delimiter while inside math
	)
	flush := func() {
		words := strings.Fields(minhash.Normalize(cur.String()))
		cur.Reset()
		if len(words) == 0 {
			return
		}
		for i, w := range words {
			if utf8.RuneCountInString(w) == 1 {
				if r, _ := utf8.DecodeRuneInString(w); unicode.IsLetter(r) {
					words[i] = Mask
				}
			}
		}
		out = append(out, strings.Join(words, " "))
	}
	s := statement
	for i := 0; i < len(s); {
		if math == "" {
			switch {
			case strings.HasPrefix(s[i:], `\$`):
				// An escaped dollar is a currency sign, not math.
				cur.WriteByte(' ')
				i += 2
				continue
			case strings.HasPrefix(s[i:], "$$"):
				math, i = "$$", i+2
				cur.WriteByte(' ')
				continue
			case s[i] == '$':
				math, i = "$", i+1
				cur.WriteByte(' ')
				continue
			case strings.HasPrefix(s[i:], `\(`):
				math, i = `\)`, i+2
				cur.WriteByte(' ')
				continue
			case strings.HasPrefix(s[i:], `\[`):
				math, i = `\]`, i+2
				cur.WriteByte(' ')
				continue
			case s[i] == '\n':
				flush()
				i++
				continue
			case (s[i] == '.' || s[i] == '?' || s[i] == '!' || s[i] == ';') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n' || s[i+1] == '\r'):
				flush()
				i++
				continue
			}
			cur.WriteByte(s[i])
			i++
			continue
		}
		// Inside math.
		switch {
		case strings.HasPrefix(s[i:], math) && (math != "$" || !strings.HasPrefix(s[i:], "$$")):
			i += len(math)
			math = ""
			cur.WriteByte(' ')
			// "Let $f(x) = 2^x.$ Find …": the sentence ended inside math.
			if end := strings.TrimRight(cur.String(), " \t\n\r"); strings.HasSuffix(end, ".") || strings.HasSuffix(end, "?") || strings.HasSuffix(end, "!") {
				if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' {
					flush()
				}
			}
		case s[i] == '\\' && i+1 < len(s) && isASCIILetter(s[i+1]):
			j := i + 1
			for j < len(s) && isASCIILetter(s[j]) {
				j++
			}
			name := s[i+1 : j]
			if greek[name] {
				cur.WriteString(" g ") // a one-letter word, masked below
			} else {
				cur.WriteString(` \` + name + " ")
			}
			i = j
		case s[i] == '\\' && i+1 < len(s):
			cur.WriteString(s[i : i+2])
			i += 2
		case isASCIILetter(s[i]):
			cur.WriteByte(' ')
			cur.WriteByte(s[i])
			cur.WriteByte(' ')
			i++
		default:
			cur.WriteByte(s[i])
			i++
		}
	}
	flush()
	return out
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var (
	// thousands separators written in TeX: 1{,}000 and 1\,000.
	texThousands = regexp.MustCompile(`(\d)(?:\{,\}|\\,)(\d{3})`)
	texFrac      = regexp.MustCompile(`\\[dt]?frac\s*(?:\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}|(\d)\s*(\d))`)
	slashFrac    = regexp.MustCompile(`(\d+)\s*/\s*(\d+)`)
	number       = regexp.MustCompile(`\d{1,3}(?:,\d{3})+\b(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+`)
)

// Numbers returns the numbers written in a statement, normalised and
// sorted (a multiset: repeats are kept): integers ("007" → "7", "1,000" →
// "1000"), decimals ("2.50" → "2.5", "3.0" → "3", ".5" → "0.5") and simple
// fractions of integers ("a/b", from 3/4, \frac{3}{4}, \dfrac34 …, kept
// unreduced). Signs are ignored; numbers in words are not numbers.
func Numbers(statement string) []string {
	s := statement
	for {
		t := texThousands.ReplaceAllString(s, "$1$2")
		if t == s {
			break
		}
		s = t
	}
	var out []string
	// Fractions first, blanked so their digits are not read again.
	blank := func(re *regexp.Regexp, s string) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			g := re.FindStringSubmatch(m)
			a, b := g[1], g[2]
			if a == "" && len(g) > 4 {
				a, b = g[3], g[4]
			}
			out = append(out, normInt(a)+"/"+normInt(b))
			return " "
		})
	}
	s = blank(texFrac, s)
	s = blank(slashFrac, s)
	for _, m := range number.FindAllString(s, -1) {
		out = append(out, normNumber(m))
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(a, b) })
	return out
}

func normInt(s string) string {
	s = strings.TrimLeft(strings.ReplaceAll(s, ",", ""), "0")
	if s == "" {
		return "0"
	}
	return s
}

func normNumber(s string) string {
	whole, frac, ok := strings.Cut(strings.ReplaceAll(s, ",", ""), ".")
	whole = normInt(whole)
	if !ok {
		return whole
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

var (
	texSpace  = regexp.MustCompile(`\\[,;:! ]`)
	nullDelim = regexp.MustCompile(`\\(?:left|right)\.`)
	leftRight = regexp.MustCompile(`\\(?:left|right)([^a-zA-Z]|$)`)
	fracs     = regexp.MustCompile(`\\[dt]frac([^a-zA-Z]|$)`)
)

// Answer returns the contents of a solution's last \boxed{…} (or
// \fbox{…}), normalised (see the package doc), and whether there is one.
// A box that never closes is no answer.
func Answer(solution string) (string, bool) {
	raw, ok := lastBoxed(solution)
	if !ok {
		return "", false
	}
	return NormalizeAnswer(raw), true
}

// NormalizeAnswer writes an answer the one way Compare compares it: TeX
// spacing and white space removed, \left and \right dropped (with the null
// delimiter "."), \dfrac and \tfrac written \frac, trailing periods
// removed.
func NormalizeAnswer(a string) string {
	a = texSpace.ReplaceAllString(a, "")
	a = strings.Join(strings.Fields(a), "")
	a = nullDelim.ReplaceAllString(a, "")
	a = leftRight.ReplaceAllString(a, "$1")
	a = fracs.ReplaceAllString(a, `\frac$1`)
	return strings.TrimRight(a, ".")
}

// lastBoxed returns the braced argument of the last \boxed or \fbox.
func lastBoxed(s string) (string, bool) {
	best := -1
	var start int
	for _, cmd := range []string{`\boxed`, `\fbox`} {
		for from := 0; ; {
			i := strings.Index(s[from:], cmd)
			if i < 0 {
				break
			}
			i += from
			j := i + len(cmd)
			from = j
			if j < len(s) && isASCIILetter(s[j]) {
				continue // \boxedx is another command
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n') {
				j++
			}
			if j < len(s) && s[j] == '{' && i > best {
				best, start = i, j
			}
		}
	}
	if best < 0 {
		return "", false
	}
	depth := 0
	for k := start; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++ // \{ and \} are not braces
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[start+1 : k], true
			}
		}
	}
	return "", false
}
