// Package domains decides which domains a benchmark has and the order they
// are shown in, for every stage and report that lists domains (calibrate,
// select, report, the release card): the configured list
// (benchmark.domains) in its order, else the ontology's top-level labels in
// the ontology's order. Labels are matched case-insensitively (and with
// white space collapsed), so "number theory" in a config or in a query's
// domain is the ontology's "Number Theory", shown as the ontology spells it.
package domains

import (
	"fmt"
	"slices"
	"strings"
)

// Key is the form labels are compared in: lower case, white space
// collapsed to single spaces and trimmed.
func Key(label string) string { return strings.ToLower(strings.Join(strings.Fields(label), " ")) }

// Resolve returns the domains in order: configured, when not empty, with
// each entry replaced by the ontology label it matches (case-insensitively)
// and in the configured order; else the ontology's labels as given. A
// configured entry that matches no ontology label, or matches one another
// entry matched already, is an error naming it and the labels it could be.
func Resolve(ontology, configured []string) ([]string, error) {
	if len(configured) == 0 {
		return dedupe(ontology), nil
	}
	byKey := map[string]string{}
	for _, l := range ontology {
		if _, ok := byKey[Key(l)]; !ok {
			byKey[Key(l)] = l
		}
	}
	out := make([]string, 0, len(configured))
	seen := map[string]int{}
	for i, c := range configured {
		l, ok := byKey[Key(c)]
		if !ok {
			return nil, fmt.Errorf("%q is not a top-level domain of the ontology (%s; matched case-insensitively)", c, strings.Join(dedupe(ontology), ", "))
		}
		if j, dup := seen[Key(c)]; dup {
			return nil, fmt.Errorf("%q (entry %d) names the same domain as %q (entry %d)", c, i, configured[j], j)
		}
		seen[Key(c)] = i
		out = append(out, l)
	}
	return out, nil
}

// dedupe keeps the first of labels that are the same case-insensitively.
func dedupe(labels []string) []string {
	out := make([]string, 0, len(labels))
	seen := map[string]bool{}
	for _, l := range labels {
		if !seen[Key(l)] {
			seen[Key(l)] = true
			out = append(out, l)
		}
	}
	return out
}

// Matched is Match's answer.
type Matched struct {
	// Order lists the domains the labels fell in: those of the order that
	// some label matched, in that order, then the labels that matched none,
	// alphabetically (each in its first spelling).
	Order []string
	// Of maps every label given to its entry of Order.
	Of map[string]string
	// Unmatched are the labels, of those given, that matched no domain of
	// the order, sorted: the caller warns about them.
	Unmatched []string
}

// Match places labels found in the data (queries' domains) in order (from
// Resolve), case-insensitively. A label that matches no domain is kept, as
// its own domain after the known ones, so that no query drops out of a
// table; the caller says so.
func Match(order, labels []string) Matched {
	byKey := map[string]int{}
	for i, d := range order {
		if _, ok := byKey[Key(d)]; !ok {
			byKey[Key(d)] = i
		}
	}
	m := Matched{Of: map[string]string{}}
	used := make([]bool, len(order))
	other := map[string]string{} // key → first spelling seen
	for _, l := range labels {
		if i, ok := byKey[Key(l)]; ok {
			used[i] = true
			m.Of[l] = order[i]
			continue
		}
		if _, ok := other[Key(l)]; !ok {
			other[Key(l)] = l
		}
		m.Of[l] = other[Key(l)]
	}
	for i, d := range order {
		if used[i] {
			m.Order = append(m.Order, d)
		}
	}
	rest := make([]string, 0, len(other))
	for _, l := range other {
		rest = append(rest, l)
	}
	slices.Sort(rest)
	m.Order = append(m.Order, rest...)
	for l := range m.Of {
		if _, ok := byKey[Key(l)]; !ok {
			m.Unmatched = append(m.Unmatched, l)
		}
	}
	slices.Sort(m.Unmatched)
	return m
}
