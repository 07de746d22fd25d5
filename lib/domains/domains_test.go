package domains

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

var mathworld = []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}

func TestResolve(t *testing.T) {
	msc := []string{"General and overarching topics", "Number theory", "Combinatorics", "Geometry"}
	cases := []struct {
		name             string
		ontology, config []string
		want             []string
		err              string // substring of the error; "" for none
	}{
		{name: "default: the ontology's order", ontology: mathworld, want: mathworld},
		{name: "an ontology not in SPEC's order keeps its own", ontology: msc, want: msc},
		{name: "configured order, the ontology's spelling", ontology: mathworld,
			config: []string{"number theory", "ALGEBRA", " calculus  and analysis "},
			want:   []string{"Number Theory", "Algebra", "Calculus and Analysis"}},
		{name: "MSC labels, configured", ontology: msc, config: []string{"combinatorics", "Number Theory"},
			want: []string{"Combinatorics", "Number theory"}},
		{name: "unknown configured domain", ontology: mathworld, config: []string{"Algebra", "Topology"},
			err: `"Topology" is not a top-level domain of the ontology (Algebra, Geometry`},
		{name: "the same domain twice, by case", ontology: mathworld, config: []string{"Algebra", "algebra"},
			err: `"algebra" (entry 1) names the same domain as "Algebra" (entry 0)`},
		{name: "ontology labels equal but for case count once", ontology: []string{"Algebra", "algebra", "Geometry"},
			want: []string{"Algebra", "Geometry"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.ontology, c.config)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("Resolve = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		name          string
		order, labels []string
		want          []string
		of            map[string]string
		unmatched     []string
	}{
		{name: "known labels in the order, absent domains left out", order: mathworld,
			labels: []string{"Combinatorics", "Algebra", "Combinatorics"},
			want:   []string{"Algebra", "Combinatorics"},
			of:     map[string]string{"Combinatorics": "Combinatorics", "Algebra": "Algebra"}},
		{name: "case-insensitive, shown as the order spells it, one domain for both spellings", order: mathworld,
			labels: []string{"number theory", "Number Theory", "GEOMETRY"},
			want:   []string{"Geometry", "Number Theory"},
			of:     map[string]string{"number theory": "Number Theory", "Number Theory": "Number Theory", "GEOMETRY": "Geometry"}},
		{name: "unknown labels after the known, alphabetically, and reported", order: mathworld,
			labels:    []string{"Topology", "Algebra", "Logic", "topology"},
			want:      []string{"Algebra", "Logic", "Topology"},
			of:        map[string]string{"Topology": "Topology", "topology": "Topology", "Algebra": "Algebra", "Logic": "Logic"},
			unmatched: []string{"Logic", "Topology", "topology"}},
		{name: "a non-MathWorld order", order: []string{"Number theory", "Combinatorics"},
			labels: []string{"combinatorics", "Number Theory"},
			want:   []string{"Number theory", "Combinatorics"},
			of:     map[string]string{"combinatorics": "Combinatorics", "Number Theory": "Number theory"}},
		{name: "no order: everything alphabetical", labels: []string{"b", "a"},
			want: []string{"a", "b"}, of: map[string]string{"a": "a", "b": "b"}, unmatched: []string{"a", "b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Match(c.order, c.labels)
			if !slices.Equal(m.Order, c.want) {
				t.Errorf("Order = %q, want %q", m.Order, c.want)
			}
			if !maps.Equal(m.Of, c.of) {
				t.Errorf("Of = %q, want %q", m.Of, c.of)
			}
			if !slices.Equal(m.Unmatched, c.unmatched) {
				t.Errorf("Unmatched = %q, want %q", m.Unmatched, c.unmatched)
			}
		})
	}
}
