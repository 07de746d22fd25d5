package summary

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"regexp"
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

// holes finds what a removed formula or drawing leaves in a summary: white
// space before a comma or period, an empty formula, a lone comma. It is
// matched against the summary with each formula replaced by "M", so that
// two formulas side by side ("$a$ $b$") are not an empty one.
var (
	holes    = regexp.MustCompile(`\s[,.;:]|\$\s*\$|(^|\s),(\s|$)`)
	formulas = regexp.MustCompile(`\$[^$]*[^$\s][^$]*\$`)
)

func hasHole(s string) bool { return holes.MatchString(formulas.ReplaceAllString(s, "M")) }

// drawing finds drawing code and links that must not reach a summary.
var drawing = regexp.MustCompile(`(?i)\[/?asy\]|draw\(|tikz|unitsize|!\[|https?://`)

func TestExtractiveKeepsMaths(t *testing.T) {
	tests := []struct{ name, solution, want string }{
		{"inline maths kept",
			"The terms are $a_1 = 2$ and $a_2 = 5$. The common difference is $5 - 2 = 3$, so the tenth term follows from the usual formula.",
			"The common difference is $5 - 2 = 3$, so the tenth term follows from the usual formula."},
		{"paren maths kept, white space collapsed",
			"Multiply both sides by \\(x  +\n 1\\) and collect the remaining terms together carefully.",
			"Multiply both sides by $x + 1$ and collect the remaining terms together carefully."},
		{"display maths inline, its final period ends the sentence",
			"Squaring gives $$x^2 = 2.25 .$$ Taking square roots of both sides gives the positive solution quickly.",
			"Taking square roots of both sides gives the positive solution quickly."},
		{"trailing comma moved out of the formula",
			"Let $a = 1,$ $b = 2,$ and then add the two numbers together to get the total count.",
			"Let $a = 1$, $b = 2$, and then add the two numbers together to get the total count."},
		{"escaped dollars are money",
			"Alice pays \\$5 for apples and \\$3 for pears, spending $8$ dollars altogether at the market.",
			"Alice pays \\$5 for apples and \\$3 for pears, spending $8$ dollars altogether at the market."},
		{"drawing removed",
			"[asy]draw((0,0)--(1,1)); label(\"A\",(0,0),SW); unitsize(1cm); draw(circle((0,0),1));[/asy] Connect the centre to each vertex of the regular hexagon drawn above.",
			"Connect the centre to each vertex of the regular hexagon drawn above."},
		{"image and URL removed",
			"See ![fig](https://x.org/f.png) and https://aops.com/wiki. Reflect point $P$ across the line to find the shortest path length.",
			"Reflect point $P$ across the line to find the shortest path length."},
		{"an ellipsis ends no sentence",
			"The digit $d$ is one of 0, 1, 2, ..., 7, so the possible values form an arithmetic series with eight terms.",
			"The digit $d$ is one of 0, 1, 2, …, 7, so the possible values form an arithmetic series with eight terms."},
		{"empty formula leaves no hole",
			"Therefore the sum $ $$$, which we wanted, equals the number of ordered pairs counted twice.",
			"Therefore the sum, which we wanted, equals the number of ordered pairs counted twice."},
	}
	for _, tt := range tests {
		s := Extractive("A problem.", tt.solution)
		if s.NoCoreIdea || s.CoreIdea != tt.want {
			t.Errorf("%s: core idea %q (none: %v), want %q", tt.name, s.CoreIdea, s.NoCoreIdea, tt.want)
		}
	}
	// A formula is never cut in half at MaxWords.
	long := Extractive("x", strings.Repeat("alpha beta gamma ", 9)+"then $a + b + c + d + e$ follows.")
	if strings.Count(long.CoreIdea, "$")%2 != 0 || Words(long.CoreIdea) > MaxWords {
		t.Errorf("cut inside a formula: %q", long.CoreIdea)
	}
	// Only drawing code: no usable sentence, said so.
	if s := Extractive("x", "[asy]draw((0,0)--(1,0)--(1,1)--cycle); label(\"triangle here with sides\",(0,0));[/asy] $\\boxed{5}$"); !s.NoCoreIdea || s.CoreIdea != "" {
		t.Errorf("drawing-only solution: %+v", s)
	}
}

// TestExtractiveMATH summarises real MATH solutions (beside the repository;
// skipped when absent): none has a hole where maths was, or drawing code. It
// checks every test problem and logs ten drawn with a fixed seed.
func TestExtractiveMATH(t *testing.T) {
	f, err := os.Open("../../../shared/data/math/MATH_test.jsonl")
	if os.IsNotExist(err) {
		t.Skipf("MATH data not present: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct{ Problem, Solution string }
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	asy, none, bad := 0, 0, 0
	for _, r := range rows {
		if strings.Contains(r.Solution, "[asy]") {
			asy++
		}
		s := Extractive(r.Problem, r.Solution)
		if s.NoCoreIdea {
			none++
			continue
		}
		if hasHole(s.CoreIdea) || drawing.MatchString(s.CoreIdea) {
			if bad++; bad <= 10 {
				t.Errorf("summary %q of solution %q", s.CoreIdea, r.Solution)
			}
		}
	}
	if asy == 0 {
		t.Error("no [asy] solution in the sample: the drawing check tested nothing")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		r := rows[rng.IntN(len(rows))]
		t.Logf("%q", Extractive(r.Problem, r.Solution).CoreIdea)
	}
	t.Logf("%d solutions, %d with Asymptote, %d without a usable sentence, %d bad", len(rows), asy, none, bad)
}
