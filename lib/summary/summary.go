// Package summary holds solution summaries (prompt F.2, SPEC §3): parsing
// and validating an LLM's JSON answer, and an offline extractive backend
// for runs without a model.
package summary

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/saber-math/saber/lib/llmjson"
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
	reMath     = regexp.MustCompile(`\$\$[^$]*\$\$|\$[^$]*\$|\\\[.*?\\\]|\\\(.*?\\\)`)
	reSentence = regexp.MustCompile(`[^.!?\n]+[.!?]?`)
	reWord     = regexp.MustCompile(`[A-Za-z][A-Za-z'-]*`)
)

// Extractive is the offline backend: the solution sentence with the most
// prose words (math stripped), cut to MaxWords, as the core idea; the most
// frequent content words of statement and solution as keywords. A solution
// with no sentence of at least four prose words has no core idea. It is
// deterministic, so the demo's summaries reproduce byte for byte.
func Extractive(statement, solution string) Summary {
	prose := reMath.ReplaceAllString(solution, " ")
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
	s := Summary{Confidence: 0.5, Keywords: keywords(statement+" "+prose, 5)}
	if bestN < 4 {
		s.NoCoreIdea = true
		return s
	}
	words := strings.Fields(best)
	if len(words) > MaxWords {
		words = words[:MaxWords]
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
