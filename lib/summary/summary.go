// Package summary holds solution summaries (prompt F.2, SPEC §3): parsing
// and validating an LLM's JSON answer, and an offline extractive backend
// for runs without a model.
package summary

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/saber-math/saber/lib/llmjson"
	"github.com/saber-math/saber/lib/text"
)

// MaxWords is the paper's limit on a core idea.
const MaxWords = 30

// Summary is one solution's core idea.
type Summary struct {
	NoCoreIdea bool
	// NoCoreIdeaReason says why, when NoCoreIdea: one of the Reason
	// constants (or a backend's own), counted by summarize.
	NoCoreIdeaReason string
	CoreIdea         string
	// Cut says CoreIdea was cut at MaxWords (and ends in "…"): nothing
	// whole fitted.
	Cut             bool
	SupportingIdeas []string
	Keywords        []string
	Confidence      float64
}

// Words counts white-space separated words.
func Words(s string) int { return len(strings.Fields(s)) }

// TooLong reports a core idea that is not whole within MaxWords: cut to
// the limit (extractive), or over it (a model's, kept as answered). It is
// the too_long column, so it is true whenever the stored text was cut.
func (s Summary) TooLong() bool { return s.Cut || Words(s.CoreIdea) > MaxWords }

// Parse reads and validates an F.2 answer: noCoreIdea a boolean; coreIdea a
// string (empty or null only when noCoreIdea); supportingIdeas and keywords
// lists of strings (absent means empty); confidence a number in [0, 1].
func Parse(raw string) (Summary, error) {
	m, err := llmjson.Object(raw)
	if err != nil {
		return Summary{}, err
	}
	var s Summary
	if v, ok := m["noCoreIdea"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &s.NoCoreIdea); err != nil {
			return Summary{}, fmt.Errorf("noCoreIdea: want true or false, got %s", v)
		}
	}
	if v, ok := m["coreIdea"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &s.CoreIdea); err != nil {
			return Summary{}, fmt.Errorf("coreIdea: want a string, got %s", v)
		}
	}
	s.CoreIdea = strings.TrimSpace(s.CoreIdea)
	if s.NoCoreIdea {
		s.CoreIdea = "" // SPEC §3: noCoreIdea ⇒ no summary
		s.NoCoreIdeaReason = ReasonModel
	} else if !strings.ContainsFunc(s.CoreIdea, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		// "", "." or "…" would be stored as a core idea with no words:
		// re-asked, like any answer that is not what F.2 asks.
		return Summary{}, fmt.Errorf("coreIdea: %q has no words while noCoreIdea is false", s.CoreIdea)
	}
	for name, dst := range map[string]*[]string{"supportingIdeas": &s.SupportingIdeas, "keywords": &s.Keywords} {
		if v, ok := m[name]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, dst); err != nil {
				return Summary{}, fmt.Errorf("%s: want a list of strings, got %s", name, v)
			}
		}
	}
	v, ok := m["confidence"]
	if !ok {
		return Summary{}, fmt.Errorf("confidence: missing")
	}
	c, ok := llmjson.Number(v)
	if !ok || c < 0 || c > 1 {
		return Summary{}, fmt.Errorf("confidence: want a number in [0, 1], got %s", v)
	}
	s.Confidence = c
	return s, nil
}

var (
	// reMath finds the maths of a solution: $…$, $$…$$, \(…\), \[…\] and
	// the display environments MATH writes outside dollars. An escaped
	// dollar (\$5, money) is masked before, so it opens nothing.
	reMath = regexp.MustCompile(`(?s)\$\$[^$]*\$\$|\$[^$]*\$|\\\[.*?\\\]|\\\(.*?\\\)|` +
		`\\begin\{(?:align|equation|eqnarray|gather|multline)\*?\}.*?\\end\{(?:align|equation|eqnarray|gather|multline)\*?\}`)
	reWord = regexp.MustCompile(`[A-Za-z][A-Za-z'-]*`)
	// reMathSpace is white space inside maths, collapsed to one space.
	reMathSpace = regexp.MustCompile(`\s+`)
	// reSpacePunct is white space before punctuation, where a removed
	// drawing or an empty formula leaves a hole ("see , so").
	reSpacePunct = regexp.MustCompile(`\s+([,.;:!?])`)
)

// Placeholders of the masked text: mathMark+index+mathMark stands for one
// formula, dollarMark for an escaped dollar. Neither is a letter, so they
// count as no prose word, and neither occurs in real text.
const (
	mathMark   = "\x00"
	dollarMark = "\x01"
)

// maskMath replaces every formula of s by a placeholder and returns the
// formulas as they will read in a summary: inline, delimited by dollars
// (environments as written), white space collapsed; and which of them were
// displayed ($$…$$, \[…\], environments). An empty formula is dropped.
func maskMath(s string) (string, []string, []bool) {
	s = strings.ReplaceAll(s, `\$`, dollarMark)
	var (
		maths   []string
		display []bool
	)
	masked := reMath.ReplaceAllStringFunc(s, func(m string) string {
		inner := m
		switch {
		case len(m) >= 4 && (strings.HasPrefix(m, "$$") || strings.HasPrefix(m, `\[`) || strings.HasPrefix(m, `\(`)):
			inner = m[2 : len(m)-2]
		case strings.HasPrefix(m, "$"):
			inner = m[1 : len(m)-1]
		}
		inner = reSpacePunct.ReplaceAllString(strings.TrimSpace(reMathSpace.ReplaceAllString(inner, " ")), "$1")
		// Punctuation closing a formula ("$b,$", "$$x=2.$$") belongs to
		// the sentence: moved out, a final period ends it.
		punct := ""
		if env := strings.HasPrefix(m, `\begin`); !env {
			if n := len(inner); n > 1 && strings.ContainsAny(inner[n-1:], ",.;:") {
				inner, punct = strings.TrimSpace(inner[:n-1]), inner[n-1:]
			}
		}
		if inner == "" {
			return " " + punct
		}
		if !strings.HasPrefix(m, `\begin`) {
			inner = "$" + inner + "$"
		}
		maths = append(maths, strings.ReplaceAll(inner, dollarMark, `\$`))
		display = append(display, strings.HasPrefix(m, "$$") || strings.HasPrefix(m, `\[`) || strings.HasPrefix(m, `\begin`))
		return mathMark + strconv.Itoa(len(maths)-1) + mathMark + punct
	})
	return masked, maths, display
}

// unmask puts the formulas back into one masked word.
func unmask(w string, maths []string) string {
	w = strings.ReplaceAll(w, dollarMark, `\$`)
	for {
		i := strings.Index(w, mathMark)
		if i < 0 {
			return w
		}
		j := strings.Index(w[i+1:], mathMark)
		if j < 0 {
			return w
		}
		k, err := strconv.Atoi(w[i+1 : i+1+j])
		if err != nil || k >= len(maths) {
			return w
		}
		w = w[:i] + maths[k] + w[i+1+j+1:]
	}
}

// Reasons a summary has no core idea, counted by summarize as
// no_core_idea_<reason>.
const (
	// ReasonModel: the model answered noCoreIdea.
	ReasonModel = "model"
	// ReasonNoProse: no sentence of the solution has minProse prose words.
	ReasonNoProse = "no_prose_sentence"
	// ReasonNothingFits: sentences with prose exist, but none of their
	// clauses, whole or cut at MaxWords without cutting a formula, keeps
	// minProse prose words (a formula of more than MaxWords words leads).
	ReasonNothingFits = "nothing_fits"
	// ReasonEmpty: a backend gave an empty core idea without saying
	// noCoreIdea (summarize's guard; a flagged core idea is never empty).
	ReasonEmpty = "empty"
)

// minProse is the fewest prose words (maths and stop words not counted) a
// core idea of the extractive backend has.
const minProse = 4

// cutMark ends a core idea that was cut at MaxWords, so the cut shows.
const cutMark = "…"

// Extractive is the offline backend. Its core idea is made of whole
// sentences or clauses within MaxWords (SPEC §3): the sentence, or run of
// consecutive clauses of one sentence, that fits and has the most prose
// words, its maths kept as text. Clauses end at ';' and before ", so",
// ", then", "which" and like connectives; formulas are masked first, so no
// split and no cut falls inside one. Only when nothing whole with minProse
// prose words fits is the rest of a sentence from a clause on cut at whole
// words, a formula being one unit, marked with "…" and flagged Cut (too_long). Keywords are the most
// frequent content words of statement and solution. Drawing code, images
// and URLs are removed first (text.Clean), so they are neither chosen nor
// scored. A solution with no sentence of minProse prose words has no core
// idea (NoCoreIdea with a reason, which summarize counts). It is
// deterministic, so the demo's summaries reproduce byte for byte.
func Extractive(statement, solution string) Summary {
	prose, maths, display := maskMath(text.Clean(solution))
	// An ellipsis in prose ("0, 1, 2, ..., 7") ends no sentence.
	prose = strings.ReplaceAll(prose, "...", "…")
	s := Summary{Confidence: 0.5, Keywords: keywords(text.Clean(statement)+" "+prose, 5)}
	var (
		best, cut   []string // unmasked words: the best whole run, the best cut one
		bestN, cutN int
		anyProse    bool
	)
	for _, sent := range sentences(prose) {
		if proseWords(sent) < minProse {
			continue
		}
		anyProse = true
		cl := clauses(sent, display)
		// Longest runs first, so a whole sentence wins over its own
		// clauses when they tie.
		for n := len(cl); n >= 1; n-- {
			for i := 0; i+n <= len(cl); i++ {
				fields := runFields(cl[i:i+n], i > 0, i+n < len(cl))
				ws := unmaskFields(fields, maths)
				if len(ws) > MaxWords {
					continue
				}
				if p := proseWords(strings.Join(fields, " ")); p > bestN {
					best, bestN = ws, p
				}
			}
		}
		// Should nothing whole fit: the sentence from each clause on, cut.
		// (From a clause on, not the clause alone: clauses that each fit
		// but hold too little prose may make a sentence that does not.)
		for i := range cl {
			fields := runFields(cl[i:], i > 0, false)
			if len(unmaskFields(fields, maths)) <= MaxWords {
				continue
			}
			// Cut at whole words as it reads, a formula being one unit:
			// one that would cross MaxWords goes with the rest.
			var kept []string
			n := 0
			for _, f := range fields {
				k := len(strings.Fields(unmask(f, maths)))
				if n+k > MaxWords {
					break
				}
				kept, n = append(kept, f), n+k
			}
			if p := proseWords(strings.Join(kept, " ")); p > cutN {
				cut, cutN = unmaskFields(kept, maths), p
			}
		}
	}
	switch {
	case bestN >= minProse:
		s.CoreIdea = strings.Join(best, " ")
	case cutN >= minProse:
		cut[len(cut)-1] = strings.TrimRight(cut[len(cut)-1], ",;:") + cutMark
		s.CoreIdea, s.Cut = strings.Join(cut, " "), true
	case anyProse:
		s.NoCoreIdea, s.NoCoreIdeaReason = true, ReasonNothingFits
	default:
		s.NoCoreIdea, s.NoCoreIdeaReason = true, ReasonNoProse
	}
	return s
}

// proseWords counts the prose words of masked text, stop words not
// counted (formulas are placeholders, no word).
func proseWords(masked string) int {
	n := 0
	for _, w := range reWord.FindAllString(masked, -1) {
		if !stop[strings.ToLower(w)] {
			n++
		}
	}
	return n
}

// sentences splits masked prose at '.', '!', '?' and line ends. A period
// between digits (2.5 in prose) ends nothing; formulas are placeholders,
// so their periods are never seen.
func sentences(prose string) []string {
	var out []string
	add := func(t string) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	start := 0
	for i := 0; i < len(prose); i++ {
		switch c := prose[i]; c {
		case '\n':
			add(prose[start:i])
			start = i + 1
		case '.', '!', '?':
			if c == '.' && i > 0 && i+1 < len(prose) && isDigit(prose[i-1]) && isDigit(prose[i+1]) {
				continue
			}
			add(prose[start : i+1]) // the mark belongs to its sentence
			start = i + 1
		}
	}
	add(prose[start:])
	return out
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// reClause finds where a clause of a sentence ends: at a semicolon, or
// before a connective that opens the next one (group 1), which stays with
// the clause it opens. ", and so on" ends no clause, so "and so" is not
// one of them.
var reClause = regexp.MustCompile(`;\s*|,\s*((?:so|then|hence|thus|therefore|but|since|because|where|which)\s)|\s(which\s)`)

// rePlaceholder finds a formula's placeholder in masked text.
var rePlaceholder = regexp.MustCompile(mathMark + `([0-9]+)` + mathMark)

// clauses splits a masked sentence into clauses; joined, they are the
// sentence again. A display formula ($$…$$, \[…\], an environment) is a
// clause of its own: MATH writes "we find \begin{align*}…\end{align*} As
// $t$ must be positive, …" as one sentence, and the prose on either side
// of the display is whole without it.
func clauses(sent string, display []bool) []string {
	var cuts []int
	for _, m := range reClause.FindAllStringSubmatchIndex(sent, -1) {
		next := m[1] // after "; "
		switch {
		case m[2] >= 0:
			next = m[2]
		case m[4] >= 0:
			next = m[4]
		}
		cuts = append(cuts, next)
	}
	for _, m := range rePlaceholder.FindAllStringSubmatchIndex(sent, -1) {
		if k, err := strconv.Atoi(sent[m[2]:m[3]]); err == nil && k < len(display) && display[k] {
			cuts = append(cuts, m[0], m[1])
		}
	}
	sort.Ints(cuts)
	var out []string
	start := 0
	for _, c := range cuts {
		if c > start && c < len(sent) {
			out = append(out, sent[start:c])
			start = c
		}
	}
	return append(out, sent[start:])
}

// leading is a connective that opens a clause but carries nothing once the
// clause stands alone ("so the sum is even" reads as "the sum is even").
var leading = map[string]bool{"so": true, "then": true, "hence": true, "thus": true, "therefore": true}

// runFields is a run of consecutive clauses as a core idea reads, in
// masked fields: white space before punctuation closed up, a leading
// comma or an opening connective dropped where the run starts mid
// sentence, separators trimmed where it ends mid sentence.
func runFields(cl []string, midStart, midEnd bool) []string {
	t := strings.Join(cl, "")
	// A sentence after a formula can open with the formula's comma.
	t = strings.TrimLeft(reSpacePunct.ReplaceAllString(t, "$1"), " \t,;:")
	if midEnd {
		t = strings.TrimRight(t, " \t,;:")
	}
	f := strings.Fields(t)
	for midStart && len(f) > 1 && leading[strings.ToLower(f[0])] {
		f = f[1:]
	}
	return f
}

// unmaskFields puts the formulas back and splits into the words of the
// summary as it reads.
func unmaskFields(fields, maths []string) []string {
	var ws []string
	for _, f := range fields {
		ws = append(ws, strings.Fields(unmask(f, maths))...)
	}
	return ws
}

func keywords(text string, k int) []string {
	counts := map[string]int{}
	for _, w := range reWord.FindAllString(text, -1) {
		w = strings.ToLower(w)
		if len(w) > 3 && !stop[w] {
			counts[w]++
		}
	}
	ws := make([]string, 0, len(counts))
	for w := range counts {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if counts[ws[i]] != counts[ws[j]] {
			return counts[ws[i]] > counts[ws[j]]
		}
		return ws[i] < ws[j]
	})
	if len(ws) > k {
		ws = ws[:k]
	}
	return ws
}

// stop is a small English stop list for choosing sentences and keywords
// (not the Jaccard tokeniser's list, which lives with the pairs stage).
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be by for from has have if in into is it its of on or so
		that the then there these this thus to we was were which with our us let since hence therefore
		so now also can get gives give find one two three answer boxed frac text cdot times left right dfrac`) {
		m[w] = true
	}
	return m
}()
