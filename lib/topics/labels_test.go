package topics

import (
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
