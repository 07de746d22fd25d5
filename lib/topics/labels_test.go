package topics

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestOwnPhrasesLabelOnly checks the phrases of a node without keywords,
// the case of real ontologies (MSC, SKOS schemes): no single letter,
// abbreviation or English stop word becomes a phrase, and a label of stop
// words only gives none, since it would match nearly every text.
func TestOwnPhrasesLabelOnly(t *testing.T) {
	tests := []struct {
		label string
		want  []string
	}{
		{"Functions of a complex variable", []string{"complex", "function of a complex variable", "variable"}},
		{"None of the above, but in this section", nil},
		{"Other", nil},
		{"Sequences, i.e. ordered lists, etc.", []string{"list", "ordered", "sequence", "sequence ordered list"}},
		{"Series (e.g. power series) and products", []string{"serie", "serie power serie and product"}},
		{"Properties of the function f", []string{"propertie", "propertie of the function f"}},
		{"Those which does not converge", []string{"converge", "those which doe not converge"}},
		// Ordinals and quantifiers open the steps of most solutions.
		{"General first-order partial differential equations", []string{"differential", "general first order partial differential equation", "partial"}},
		{"Representations of solutions to partial differential equations", []string{"differential", "partial", "representation", "representation of solution to partial differential equation"}},
		{"Several complex variables and analytic spaces", []string{"analytic", "complex", "several complex variable and analytic space", "variable"}},
	}
	for _, tt := range tests {
		var got []string
		ownPhrases(tt.label, nil, func(toks []string) int32 {
			got = append(got, strings.Join(toks, " "))
			return int32(len(got) - 1)
		})
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("ownPhrases(%q) = %q, want %q", tt.label, got, tt.want)
		}
	}
}

// TestLexicalIgnoresDrawings checks that Asymptote code, image links and
// URLs in a solution change no topic score: their words (draw, circle,
// label, png) would otherwise match geometry labels in every such solution.
func TestLexicalIgnoresDrawings(t *testing.T) {
	tr, lex := lexTree()
	tags := make([]Tag, 0, tr.Len()-1)
	for i := 1; i < tr.Len(); i++ {
		tags = append(tags, Tag{Node: i, Label: tr.Label(i), Keywords: tr.Keywords(i)})
	}
	stmt := "What is the sum of the roots of $x^2 - 5x + 6 = 0$?"
	sol := "By Vieta's formulas the sum of the roots is $5$."
	want, err := lex.Score(context.Background(), Text{stmt, sol}, tags)
	if err != nil {
		t.Fatal(err)
	}
	drawn := sol + "\n[asy]\nunitsize(1cm); draw(circle((0,0),1)); label(\"triangle polygon\", (0,0), dir(30));\n[/asy]\n" +
		"![a circle inscribed in a triangle](https://example.org/circle.png) www.example.org/polygon"
	got, err := lex.Score(context.Background(), Text{stmt, drawn}, tags)
	if err != nil {
		t.Fatal(err)
	}
	for k := range tags {
		if got[k] != want[k] {
			t.Errorf("topic %q: score %g with drawing code, %g without", tags[k].Label, got[k], want[k])
		}
	}
}
