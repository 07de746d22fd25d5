package study

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/readers"
)

func TestParseOrdinalAndConfidence(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{`Final Score: \boxed{73}`, 73, true},
		{`\boxed{{100}}`, 100, true},
		{`first \boxed{20}, on reflection \boxed{ 35 }`, 35, true},
		{`\boxed{0}`, 0, true},
		{`\boxed{101}`, 101, false},
		{`Final Score: 73`, 0, false},
	} {
		if got, ok := ParseOrdinal(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ParseOrdinal(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"Confidence: 85\n$\\boxed{1}$", 85, true},
		{"**Confidence:** 60", 60, true},
		{"confidence: 55 ... Confidence: 90", 90, true},
		{"Confidence: high", 0, false},
		{"no line", 0, false},
	} {
		if got, ok := ParseConfidence(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ParseConfidence(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// scripted answers by target: the pairwise judge's answer by vote, the
// ordinal scores by document, the confident verdict and confidence.
type scripted struct {
	pairwise  func(target, s1, s2 string, vote int) int
	ordinal   map[string]float64 // doc → score; missing: no usable answer
	winner    int
	confident float64
}

func (s *scripted) Describe() string { return "scripted" }
func (s *scripted) Pairwise(_ context.Context, t, s1, s2 *readers.Doc, vote int) (int, error) {
	return s.pairwise(t.ID, s1.ID, s2.ID, vote), nil
}
func (s *scripted) Ordinal(_ context.Context, _, d *readers.Doc) (float64, bool, error) {
	v, ok := s.ordinal[d.ID]
	return v, ok, nil
}
func (s *scripted) Confident(context.Context, *readers.Doc, *readers.Doc, *readers.Doc) (int, float64, error) {
	return s.winner, s.confident, nil
}

func TestAltSystems(t *testing.T) {
	ctx := context.Background()
	texts := map[string]*readers.Doc{}
	for _, id := range []string{"q", "a", "b", "c"} {
		texts[id] = &readers.Doc{ID: id}
	}
	it := Item{Target: "q", A: "a", B: "b"}
	// votesFor returns a judge giving A the first na of the 5 votes.
	votesFor := func(na int) func(string, string, string, int) int {
		return func(_, s1, _ string, vote int) int {
			if (vote <= na) == (s1 == "a") {
				return 1
			}
			return 2
		}
	}
	c := DefaultAltConfig
	tests := []struct {
		name, kind string
		b          *scripted
		items      []Item
		cfg        func(*AltConfig)
		want       Verdict
		ok         bool
		why        string
	}{
		{"majority 5–0", AltMajority, &scripted{pairwise: votesFor(5)}, nil, nil, "a", true, ""},
		{"majority 4–1", AltMajority, &scripted{pairwise: votesFor(4)}, nil, nil, "a", true, ""},
		{"majority 3–2 is a tie", AltMajority, &scripted{pairwise: votesFor(3)}, nil, nil, Tie, true, ""},
		{"majority 1–4", AltMajority, &scripted{pairwise: votesFor(1)}, nil, nil, "b", true, ""},
		// Votes alternate the order: a judge that always answers Sample 1
		// gives A votes 1, 3, 5 and B votes 2, 4 — a tie, not a win.
		{"majority of a position-biased judge", AltMajority, &scripted{pairwise: func(string, string, string, int) int { return 1 }}, nil, nil, Tie, true, ""},
		{"majority 3–2 at margin 0", AltMajority, &scripted{pairwise: votesFor(3)}, nil, func(c *AltConfig) { c.VoteTieMargin = 0 }, "a", true, ""},
		{"majority, no usable vote", AltMajority, &scripted{pairwise: func(string, string, string, int) int { return 0 }}, nil, nil, Tie, false, ReasonInvalid},
		{"ordinal", AltOrdinal, &scripted{ordinal: map[string]float64{"a": 40, "b": 70}}, nil, nil, "b", true, ""},
		{"ordinal equal scores", AltOrdinal, &scripted{ordinal: map[string]float64{"a": 70, "b": 70}}, nil, nil, Tie, true, ""},
		{"ordinal within the margin", AltOrdinal, &scripted{ordinal: map[string]float64{"a": 74, "b": 70}}, nil, func(c *AltConfig) { c.OrdinalMargin = 5 }, Tie, true, ""},
		{"ordinal without a score", AltOrdinal, &scripted{ordinal: map[string]float64{"a": 74}}, nil, nil, Tie, false, ReasonInvalid},
		{"confidence above", AltConfidence, &scripted{winner: 2, confident: 90}, nil, nil, "b", true, ""},
		{"confidence below", AltConfidence, &scripted{winner: 2, confident: 60}, nil, nil, Tie, true, ""},
		{"confidence at the threshold", AltConfidence, &scripted{winner: 1, confident: 70}, nil, nil, "a", true, ""},
		{"document not in the corpus", AltOrdinal, &scripted{}, []Item{{Target: "q", A: "a", B: "zz"}}, nil, Tie, false, ReasonNoText},
	}
	for _, tt := range tests {
		cfg := c
		if tt.cfg != nil {
			tt.cfg(&cfg)
		}
		items := tt.items
		if items == nil {
			items = []Item{it}
		}
		sys, err := AltSystem(ctx, tt.name, tt.kind, items, texts, tt.b, cfg)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		v, ok, why := sys.Answer(items[0].Target, items[0].B, items[0].A) // either order
		if v != tt.want || ok != tt.ok || why != tt.why {
			t.Errorf("%s: answer %q, %v, %q; want %q, %v, %q", tt.name, v, ok, why, tt.want, tt.ok, tt.why)
		}
	}
}

// TestAltJudgesFeedTable6: the offline backend runs each alternative judge
// over the labelled items, and each is a Table 6 row with its n, Wilson
// interval and p-value.
func TestAltJudgesFeedTable6(t *testing.T) {
	ctx := context.Background()
	texts := map[string]*readers.Doc{
		"q": {ID: "q", Statement: "Find all primes p such that p^2 + 2 is prime, using residues modulo 3."},
		"a": {ID: "a", Statement: "Find all primes p such that p^2 + 8 is prime, using residues modulo 3."},
		"b": {ID: "b", Statement: "Compute the area of a triangle with sides 3, 4 and 5."},
		"c": {ID: "c", Statement: "Show that p^2 - 1 is divisible by 24 for every prime p > 3, using residues."},
	}
	labels := []Label{
		{Target: "q", Candidate1: "a", Candidate2: "b", Label: "1", Annotator: "x", Line: 2},
		{Target: "q", Candidate1: "c", Candidate2: "b", Label: "1", Annotator: "x", Line: 3},
		{Target: "q", Candidate1: "a", Candidate2: "c", Label: "tie", Annotator: "x", Line: 4},
		{Target: "q", Candidate1: "a", Candidate2: "zz", Label: "1", Annotator: "x", Line: 5},
	}
	items, err := Items(labels)
	if err != nil {
		t.Fatal(err)
	}
	var systems []System
	for _, kind := range []string{AltOrdinal, AltMajority, AltConfidence} {
		sys, err := AltSystem(ctx, kind, kind, items, texts, &LexicalAlt{Seed: 1, Noise: 0.02}, DefaultAltConfig)
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, sys)
	}
	res, err := Agreements(labels, systems, AgreementConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Systems {
		if a.N != 3 || a.Excluded[ReasonNoText] != 1 || math.IsNaN(a.Lo) || !(a.Lo <= a.Mean && a.Mean <= a.Hi) || math.IsNaN(a.P) {
			t.Errorf("%s: %+v; want 3 items scored, 1 excluded for its missing text, a Wilson interval and p", a.Name, a)
		}
	}
	md := res.Markdown()
	for _, name := range []string{"| ordinal |", "| majority |", "| confidence |"} {
		if !strings.Contains(md, name) {
			t.Errorf("Table 6 lacks %s:\n%s", name, md)
		}
	}
}
