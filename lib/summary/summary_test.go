package summary

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", 35))
	tests := []struct {
		raw     string
		wantErr string
		check   func(Summary) bool
	}{
		{`{"noCoreIdea": false, "coreIdea": "Pair terms symmetrically.", "supportingIdeas": ["symmetry"], "keywords": ["pairing"], "confidence": 0.9}`, "",
			func(s Summary) bool {
				return s.CoreIdea == "Pair terms symmetrically." && s.Confidence == 0.9 && s.Keywords[0] == "pairing"
			}},
		{"```json\n{\"noCoreIdea\": true, \"coreIdea\": null, \"confidence\": 0.2}\n```", "",
			func(s Summary) bool { return s.NoCoreIdea && s.CoreIdea == "" && len(s.Keywords) == 0 }},
		{`{"noCoreIdea": true, "coreIdea": "ignored", "confidence": 1}`, "", func(s Summary) bool { return s.CoreIdea == "" }},
		{`{"noCoreIdea": false, "coreIdea": "` + long + `", "confidence": "0.7"}`, "", func(s Summary) bool { return s.TooLong() && s.Confidence == 0.7 }},
		{`{"noCoreIdea": false, "coreIdea": "", "confidence": 0.5}`, "coreIdea: empty", nil},
		{`{"noCoreIdea": "maybe", "coreIdea": "x", "confidence": 0.5}`, "noCoreIdea", nil},
		{`{"noCoreIdea": false, "coreIdea": "x", "confidence": 1.5}`, "confidence", nil},
		{`{"noCoreIdea": false, "coreIdea": "x"}`, "confidence: missing", nil},
		{`{"noCoreIdea": false, "coreIdea": "x", "keywords": "a, b", "confidence": 0.5}`, "keywords", nil},
		{`I cannot help with that.`, "no JSON object", nil},
	}
	for _, tt := range tests {
		s, err := Parse(tt.raw)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) err = %v, want %q", tt.raw, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !tt.check(s) {
			t.Errorf("Parse(%q) = %+v, %v", tt.raw, s, err)
		}
	}
}

func TestExtractive(t *testing.T) {
	s := Extractive("How many ways can we arrange the letters of BANANA?",
		"There are $6!$ arrangements. Divide by the factorials of the repeated letters to remove duplicate orderings of identical letters. So $\\frac{6!}{3!2!} = \\boxed{60}$.")
	if s.NoCoreIdea || !strings.HasPrefix(s.CoreIdea, "Divide by the factorials") || s.TooLong() || len(s.Keywords) == 0 {
		t.Errorf("Extractive = %+v", s)
	}
	if s2 := Extractive("Compute $1+1$.", "$1+1=\\boxed{2}$"); !s2.NoCoreIdea || s2.CoreIdea != "" {
		t.Errorf("no-prose solution: %+v", s2)
	}
	long := Extractive("x", strings.Repeat("alpha beta gamma delta ", 20)+".")
	if Words(long.CoreIdea) != MaxWords {
		t.Errorf("not cut to %d words: %d", MaxWords, Words(long.CoreIdea))
	}
}
