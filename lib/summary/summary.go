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

	"github.com/saber-math/saber/lib/llmjson"
	"github.com/saber-math/saber/lib/text"
)

// MaxWords is the paper's limit on a core idea.
const MaxWords = 30

// Summary is one solution's core idea.
type Summary struct {
	NoCoreIdea      bool
	CoreIdea        string
	SupportingIdeas []string
	Keywords        []string
	Confidence      float64
}

// Words counts white-space separated words.
func Words(s string) int { return len(strings.Fields(s)) }

// TooLong reports a core idea over MaxWords: kept, flagged and counted.
func (s Summary) TooLong() bool { return Words(s.CoreIdea) > MaxWords }

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
	} else if s.CoreIdea == "" {
		return Summary{}, fmt.Errorf("coreIdea: empty while noCoreIdea is false")
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
	reSentence = regexp.MustCompile(`[^.!?\n]+[.!?]?`)
	reWord     = regexp.MustCompile(`[A-Za-z][A-Za-z'-]*`)
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
// (environments as written), white space collapsed. An empty formula is
// dropped.
func maskMath(s string) (string, []string) {
	s = strings.ReplaceAll(s, `\$`, dollarMark)
	var maths []string
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
		return mathMark + strconv.Itoa(len(maths)-1) + mathMark + punct
	})
	return masked, maths
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

// Extractive is the offline backend: the solution sentence with the most
// prose words as the core idea, its maths kept as text, cut to MaxWords; the
// most frequent content words of statement and solution as keywords.
// Drawing code, images and URLs are removed first (text.Clean), so they are
// neither chosen nor scored. A solution with no sentence of at least four
// prose words (maths and stop words not counted) has no core idea:
// NoCoreIdea, which summarize counts as no_core_idea. It is deterministic,
// so the demo's summaries reproduce byte for byte.
func Extractive(statement, solution string) Summary {
	prose, maths := maskMath(text.Clean(solution))
	// An ellipsis in prose ("0, 1, 2, ..., 7") ends no sentence.
	prose = strings.ReplaceAll(prose, "...", "…")
	best, bestN := "", 0
	for _, sent := range reSentence.FindAllString(prose, -1) {
		n := 0
		for _, w := range reWord.FindAllString(sent, -1) {
			if !stop[strings.ToLower(w)] {
				n++
			}
		}
		if n > bestN {
			best, bestN = sent, n
		}
	}
	s := Summary{Confidence: 0.5, Keywords: keywords(text.Clean(statement)+" "+prose, 5)}
	if bestN < 4 {
		s.NoCoreIdea = true
		return s
	}
	// Cut at whole words of the summary as it reads, a formula being one
	// unit: a formula that would cross MaxWords is left out with the rest,
	// never cut in half.
	var words []string
	// A sentence after a formula can open with the formula's comma.
	best = strings.TrimLeft(reSpacePunct.ReplaceAllString(best, "$1"), " \t,;:")
	for _, w := range strings.Fields(best) {
		ws := strings.Fields(unmask(w, maths))
		if len(words)+len(ws) > MaxWords {
			break
		}
		words = append(words, ws...)
	}
	s.CoreIdea = strings.Join(words, " ")
	return s
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
