package synth

import "strings"

// Wording variation applied to every original statement.
//
// Two instances of one template share most of their words, and numbers alone
// do not keep them apart under word-5-gram Jaccard: a number near the end of a
// sentence, or several draws clustered in a few words, changes only a handful
// of shingles. Real corpora do not look like that, and dedup would report
// false pairs. So every statement passes through independent choice points:
// interchangeable phrases ("Find"/"Determine"/"Compute", "the smallest"/"the
// least", ...) each pick their own variant, and optional opening and closing
// sentences are added, always when a number would otherwise sit at an edge of
// the statement where it separates too few shingles.

// phraseGroups lists phrases that can replace each other wherever any of
// them occurs in a statement (outside math). Matching is case-insensitive
// and keeps the capitalisation of the first letter; capOnly groups match
// only a capitalised occurrence (a sentence start).
var phraseGroups = []struct {
	alts    []string
	capOnly bool
}{
	{[]string{"find", "determine", "compute", "calculate", "work out"}, false},
	{[]string{"what is", "what's"}, false},
	{[]string{"the number of", "the count of", "the total number of"}, false},
	{[]string{"the smallest number", "the least number", "the minimum number"}, false},
	{[]string{"the smallest", "the least"}, false},
	{[]string{"the largest", "the greatest"}, false},
	{[]string{"exactly", "precisely"}, false},
	{[]string{"distinct", "different"}, false},
	{[]string{"in total", "altogether", "in all"}, false},
	{[]string{"wants to", "would like to"}, false},
	{[]string{"if", "given that"}, true},
	{[]string{"positive integers", "positive whole numbers"}, false},
	{[]string{"positive divisors", "positive factors"}, false},
	{[]string{"divisor", "factor"}, false},
	{[]string{"divisors", "factors"}, false},
	{[]string{"the sum of", "the total of"}, false},
	{[]string{"cm", "centimeters"}, false},
	{[]string{"rolled", "thrown"}, false},
	{[]string{"without looking", "blindly"}, false},
}

// sentenceGroups are whole closing instructions with their variants.
var sentenceGroups = [][]string{
	{"Express your answer as a common fraction.", "Give your answer as a common fraction.",
		"Write the answer as a fraction in lowest terms.", "Your answer should be a reduced fraction."},
	{"Express your answer in terms of $\\pi$.", "Leave your answer in terms of $\\pi$.",
		"Give an exact answer in terms of $\\pi$.", "Write the exact value, using $\\pi$."},
	{"Express your answer in simplest radical form.", "Give the exact value in simplest radical form.",
		"Leave the answer as a simplified radical."},
}

// closings are optional final sentences; they contain no digits.
var closings = []string{
	"Show your reasoning.", "Explain your steps.", "Give an exact answer.", "Simplify your answer.",
	"Put your final answer in a box.", "Write out the solution clearly.", "A short justification is enough.",
	"Check your answer at the end.", "Think before you compute.", "Please give the exact value.",
	"Provide a brief explanation.", "Try to find a quick method.",
}

type phraseEntry struct {
	words []string // lower-case words of the phrase
	group int
}

// phraseIndex maps a phrase's first word to the phrases starting with it,
// longest first, so the scanner prefers "the smallest number" over "the
// smallest".
var phraseIndex = func() map[string][]phraseEntry {
	idx := map[string][]phraseEntry{}
	for gi, grp := range phraseGroups {
		for _, a := range grp.alts {
			w := strings.Fields(a)
			idx[w[0]] = append(idx[w[0]], phraseEntry{w, gi})
		}
	}
	for k, es := range idx {
		for i := 1; i < len(es); i++ {
			for j := i; j > 0 && len(es[j].words) > len(es[j-1].words); j-- {
				es[j], es[j-1] = es[j-1], es[j]
			}
		}
		idx[k] = es
	}
	return idx
}()

// spin resolves inline alternatives written [[a|b|c]] in a template's
// statement, each independently; [[a|]] makes "a" optional. Templates use it
// to spread choice points through a sentence, so that instances drawn with
// equal numbers still differ in several places.
func (g *gen) spin(s string) string {
	if !strings.Contains(s, "[[") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "[[")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.Index(s[i:], "]]")
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		alts := strings.Split(s[i+2:i+j], "|")
		b.WriteString(alts[g.intn(len(alts))])
		s = s[i+j+2:]
	}
	return tidy(b.String())
}

// tidy removes the doubled spaces and spaces before punctuation that an
// empty alternative leaves behind.
func tidy(s string) string {
	for strings.Contains(s, "  ") {
		s = strings.ReplaceAll(s, "  ", " ")
	}
	s = strings.ReplaceAll(s, " ,", ",")
	s = strings.ReplaceAll(s, " .", ".")
	return strings.ReplaceAll(s, " ?", "?")
}

// spinf resolves the [[...]] alternatives of format and then formats it.
// Every alternative of one choice must use the same verbs in the same order;
// %.0s consumes an argument without printing it, for alternatives that do
// not mention it. (The tests' lint catches mismatches as %! artefacts.)
func (g *gen) spinf(format string, a ...any) string { return tidy(sprintf(g.spin(format), a...)) }

// vary applies the wording choice points to a finished core statement and
// adds the optional opening and closing sentences.
func (g *gen) vary(s string) string {
	for _, grp := range sentenceGroups {
		// Draw only when the phrase occurs: the draws are part of the
		// seeded stream TestGolden pins.
		if i := strings.Index(s, grp[0]); i >= 0 {
			s = s[:i] + grp[g.intn(len(grp))] + s[i+len(grp[0]):]
		}
	}
	s = fixPunct(mapText(g.spin(s), g.swapPhrases))
	head, tail, first := edges(s)
	if isName(first) {
		head = true // a leading name separates only one shingle
	}
	if head || g.chance(0.5) {
		s = g.pick(preambles...) + " " + s
	}
	if tail || g.chance(0.4) {
		s += " " + g.pick(closings...)
	}
	return s
}

var nameSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}()

func isName(w string) bool { return nameSet[w] }

var (
	questionStarts = []string{"what", "how", "which", "where", "why", "in how", "at what", "for which",
		"for what", "is", "are", "does", "do", "can", "by how", "to what"}
	clauseQuestions = []string{"what", "how", "which"}
	commandStarts   = []string{"find", "determine", "compute", "calculate", "work out", "give", "evaluate", "solve", "show", "prove", "use"}
)

// fixPunct ends each sentence that starts like a question with "?" and each
// that starts like an instruction with ".", so that independent choices of
// verb and punctuation cannot disagree.
func fixPunct(s string) string {
	var b []byte // copy of s, made on the first change
	set := func(i int, c byte) {
		if b == nil {
			b = []byte(s)
		}
		b[i] = c
	}
	inMath := false
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '$' {
			inMath = !inMath
			continue
		}
		if inMath || (c != '.' && c != '?') || (i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\n') {
			continue
		}
		sent := strings.TrimSpace(s[start:i])
		// The main clause is the sentence, or its last clause after a
		// comma ("Given that ..., what is ...").
		last := sent
		if k := lastCommaOutsideMath(sent); k >= 0 {
			last = strings.TrimSpace(sent[k+1:])
		}
		switch {
		case c == '.' && (hasWordPrefix(sent, questionStarts) || hasWordPrefix(last, clauseQuestions)):
			set(i, '?')
		case c == '?' && (hasWordPrefix(sent, commandStarts) || hasWordPrefix(last, commandStarts)):
			set(i, '.')
		}
		start = i + 1
	}
	if b == nil {
		return s
	}
	return string(b)
}

func lastCommaOutsideMath(s string) int {
	inMath, at := false, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '$':
			inMath = !inMath
		case ',':
			if !inMath {
				at = i
			}
		}
	}
	return at
}

// hasWordPrefix reports whether s starts with one of the lower-case words,
// ignoring case, followed by a non-letter.
func hasWordPrefix(s string, words []string) bool {
	for _, w := range words {
		if len(s) >= len(w) && strings.EqualFold(s[:len(w)], w) && (len(s) == len(w) || !isASCIILetter(s[len(w)])) {
			return true
		}
	}
	return false
}

// edges reports whether a word containing a digit is among the first or
// the last four words of s (words as in normWords), and returns the first
// word in lower case. It scans bytes without allocating: it runs once per
// row.
func edges(s string) (head, tail bool, first string) {
	isWord := func(c byte) bool { return c >= 0x80 || isASCIILetter(c) || (c >= '0' && c <= '9') }
	hasDigit := func(w string) bool {
		for k := 0; k < len(w); k++ {
			if w[k] >= '0' && w[k] <= '9' {
				return true
			}
		}
		return false
	}
	n := 0
	for i := 0; i < len(s) && n < 4; {
		if !isWord(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWord(s[j]) {
			j++
		}
		if n == 0 {
			first = strings.ToLower(s[i:j])
		}
		head = head || hasDigit(s[i:j])
		n++
		i = j
	}
	n = 0
	for j := len(s); j > 0 && n < 4; {
		if !isWord(s[j-1]) {
			j--
			continue
		}
		i := j
		for i > 0 && isWord(s[i-1]) {
			i--
		}
		tail = tail || hasDigit(s[i:j])
		n++
		j = i
	}
	return head, tail, first
}

// swapPhrases rewrites one run of plain text, replacing each occurrence of a
// phrase from phraseGroups by a random member of its group.
func (g *gen) swapPhrases(t string) string {
	var b strings.Builder
	b.Grow(len(t) + 16)
	i := 0
	for i < len(t) {
		if !isASCIILetter(t[i]) || (i > 0 && isASCIILetter(t[i-1])) {
			b.WriteByte(t[i])
			i++
			continue
		}
		j := i
		for j < len(t) && isASCIILetter(t[j]) {
			j++
		}
		var buf [24]byte
		key := buf[:0]
		if j-i <= len(buf) {
			for k := i; k < j; k++ {
				c := t[k]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				key = append(key, c)
			}
		}
		matched := false
		for _, e := range phraseIndex[string(key)] {
			end, ok := matchPhrase(t, i, e.words)
			if !ok {
				continue
			}
			grp := phraseGroups[e.group]
			capital := t[i] >= 'A' && t[i] <= 'Z'
			if grp.capOnly && !capital {
				continue
			}
			rep := grp.alts[g.intn(len(grp.alts))]
			if capital {
				rep = strings.ToUpper(rep[:1]) + rep[1:]
			}
			b.WriteString(rep)
			i = end
			matched = true
			break
		}
		if !matched {
			b.WriteString(t[i:j])
			i = j
		}
	}
	return b.String()
}

// matchPhrase reports whether the words of a phrase occur at t[i:],
// separated by single spaces and ending at a word boundary.
func matchPhrase(t string, i int, words []string) (int, bool) {
	for k, w := range words {
		if k > 0 {
			if i >= len(t) || t[i] != ' ' {
				return 0, false
			}
			i++
		}
		if i+len(w) > len(t) || !strings.EqualFold(t[i:i+len(w)], w) {
			return 0, false
		}
		i += len(w)
	}
	// A phrase ends at a space, the end of the run, or punctuation; not
	// inside a unit like "cm/s" or before a formula like "cm$^3$".
	if i < len(t) && !strings.ContainsRune(" .,;:?!)", rune(t[i])) {
		return 0, false
	}
	return i, true
}
