package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
)

// dupMinJaccard is the least word-5-gram Jaccard similarity a planted
// duplicate keeps to its original. At 0.8 a 14-band × 8-row MinHash LSH
// (datatrove's setting) pairs them with probability ≥ 1-(1-0.8^8)^14 ≈ 0.92,
// and most duplicates are far closer than the bound.
const dupMinJaccard = 0.8

// perturb rewrites a statement the way re-posts of a problem differ: case,
// punctuation and line breaks first (these leave the normalised words
// unchanged), then up to two word-level edits (a synonym, a "Problem 3."
// label, a "Prove your answer." tail), each kept only if the Jaccard
// similarity to the original stays at least dupMinJaccard. Edits never touch
// the LaTeX inside $...$, so the copy still says the same mathematics and the
// symbols that normalisers treat differently are left as they were.
func perturb(r *rand.Rand, orig string) string {
	base := shingles(orig)
	s := orig
	for k, n := 0, 1+r.IntN(2); k < n; k++ {
		s = formatEdits[r.IntN(len(formatEdits))](r, s)
	}
	for k, n := 0, r.IntN(3); k < n; k++ {
		cand := wordEdits[r.IntN(len(wordEdits))](r, s)
		if jaccard(base, shingles(cand)) >= dupMinJaccard {
			s = cand
		}
	}
	if s == orig {
		// Every statement has a space; doubling one keeps the words.
		s = strings.Replace(orig, " ", "  ", 1)
	}
	return s
}

// mapText applies f to the runs of s outside $...$ math.
func mapText(s string, f func(string) string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	inMath := false
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		if inMath {
			b.WriteString(s[start : i+1])
		} else {
			b.WriteString(f(s[start:i]))
			b.WriteByte('$')
		}
		inMath = !inMath
		start = i + 1
	}
	if inMath {
		b.WriteString(s[start:])
	} else {
		b.WriteString(f(s[start:]))
	}
	return b.String()
}

type edit func(r *rand.Rand, s string) string

// formatEdits change only case, punctuation and white space outside math.
var formatEdits = []edit{
	func(r *rand.Rand, s string) string { return mapText(s, strings.ToLower) },
	func(r *rand.Rand, s string) string { // shout the first word
		i := strings.IndexByte(s, ' ')
		if i <= 0 || strings.Contains(s[:i], "$") {
			return s
		}
		return strings.ToUpper(s[:i]) + s[i:]
	},
	func(r *rand.Rand, s string) string { // drop commas
		return mapText(s, func(t string) string { return strings.ReplaceAll(t, ",", "") })
	},
	func(r *rand.Rand, s string) string { // sentence breaks become line breaks
		return mapText(s, func(t string) string {
			t = strings.ReplaceAll(t, ". ", ".\n")
			return strings.ReplaceAll(t, "? ", "?\n")
		})
	},
	func(r *rand.Rand, s string) string { // change the final punctuation
		s = strings.TrimRight(s, " ")
		switch {
		case strings.HasSuffix(s, "?"):
			return []string{s + "?", s + "!", s[:len(s)-1]}[r.IntN(3)]
		case strings.HasSuffix(s, "."):
			return s[:len(s)-1] + []string{"", "!", " ."}[r.IntN(3)]
		}
		return s + "."
	},
	func(r *rand.Rand, s string) string { // double spaces after sentences
		return mapText(s, func(t string) string { return strings.ReplaceAll(t, ". ", ".  ") })
	},
}

var synonyms = map[string]string{
	"find": "determine", "determine": "find", "compute": "calculate", "calculate": "compute",
	"evaluate": "compute", "smallest": "least", "least": "smallest", "largest": "greatest",
	"greatest": "largest", "each": "every", "every": "each", "number": "count", "total": "sum",
	"exactly": "precisely", "distinct": "different", "different": "distinct", "given": "provided",
	"wants": "would like", "has": "has got", "written": "shown", "must": "has to",
}

var dupPrefixes = []string{"Problem %d.", "Question %d:", "Exercise %d.", "Task %d.", "Q%d)", "#%d", "Example %d.", "%d."}

var dupSuffixes = []string{"Prove your answer.", "Justify your answer.", "Show your work.", "Explain your reasoning.",
	"Give reasons.", "(No calculators.)", "Thanks in advance!", "Please help."}

// wordEdits change a few words; perturb keeps them only within the bound.
var wordEdits = []edit{
	func(r *rand.Rand, s string) string { // swap one word for a synonym
		return mapTextOnce(r, s)
	},
	func(r *rand.Rand, s string) string {
		p := dupPrefixes[r.IntN(len(dupPrefixes))]
		return strings.Replace(p, "%d", strconv.Itoa(1+r.IntN(40)), 1) + " " + s
	},
	func(r *rand.Rand, s string) string {
		return strings.TrimRight(s, " ") + " " + dupSuffixes[r.IntN(len(dupSuffixes))]
	},
}

// mapTextOnce replaces one randomly chosen word outside math that has a
// synonym, keeping its capitalisation.
func mapTextOnce(r *rand.Rand, s string) string {
	type span struct{ i, j int }
	var cands []span
	inMath := false
	for i := 0; i < len(s); {
		c := s[i]
		if c == '$' {
			inMath = !inMath
			i++
			continue
		}
		if inMath || !isASCIILetter(c) {
			i++
			continue
		}
		j := i
		for j < len(s) && isASCIILetter(s[j]) {
			j++
		}
		if w := strings.ToLower(s[i:j]); synonyms[w] != "" && synonyms[w] != w {
			cands = append(cands, span{i, j})
		}
		i = j
	}
	if len(cands) == 0 {
		return s
	}
	c := cands[r.IntN(len(cands))]
	word := s[c.i:c.j]
	rep := synonyms[strings.ToLower(word)]
	if unicode.IsUpper(rune(word[0])) {
		rep = strings.ToUpper(rep[:1]) + rep[1:]
	}
	return s[:c.i] + rep + s[c.j:]
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// normWords lower-cases s, turns every rune that is not a letter or digit
// into a space and splits on white space: the normalisation under which
// near-duplicates are defined.
func normWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c)
	})
}

// shingles returns the set of word 5-grams of s (the whole text if shorter).
func shingles(s string) map[string]struct{} {
	w := normWords(s)
	out := make(map[string]struct{}, len(w))
	if len(w) < 5 {
		out[strings.Join(w, " ")] = struct{}{}
		return out
	}
	for i := 0; i+5 <= len(w); i++ {
		out[strings.Join(w[i:i+5], " ")] = struct{}{}
	}
	return out
}

func jaccard(a, b map[string]struct{}) float64 {
	inter := 0
	for k := range a {
		if _, ok := b[k]; ok {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}
