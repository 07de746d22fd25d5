package ontology

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// concept is one entry of a published concept scheme (JSKOS, SKOS) before it
// becomes a Node: its URI, the id the DAG will know it by, and the URIs of
// its broader and narrower concepts.
type concept struct {
	uri, id, label    string
	broader, narrower []string
	line              int
}

// conceptsToDAG turns concepts into a DAG. A concept's id is its notation
// (an MSC code such as 11A41) when it has one, else its URI; its label is
// its preferred label, else its id. Edges come from broader, and from
// narrower where the narrower concept does not list the broader one itself,
// each once, in input order. A broader or narrower URI that names no
// concept of the input is an error: the scheme is incomplete, and the DAG
// would have a dangling edge.
func conceptsToDAG(what string, cs []concept) (*DAG, error) {
	if len(cs) == 0 {
		return nil, fmt.Errorf("ontology: %s: no concepts", what)
	}
	idOf := make(map[string]string, len(cs))
	seenID := make(map[string]int, len(cs))
	for _, c := range cs {
		if _, dup := idOf[c.uri]; dup {
			return nil, fmt.Errorf("ontology: %s line %d: concept %s appears twice", what, c.line, c.uri)
		}
		if l, dup := seenID[c.id]; dup {
			return nil, fmt.Errorf("ontology: %s line %d: concept %s has the id %q of line %d's concept", what, c.line, c.uri, c.id, l)
		}
		idOf[c.uri] = c.id
		seenID[c.id] = c.line
	}
	d := &DAG{Nodes: make([]Node, 0, len(cs))}
	type pair struct{ p, c string }
	seen := map[pair]bool{}
	add := func(line int, parent, child string) error {
		p, ok := idOf[parent]
		if !ok {
			return fmt.Errorf("ontology: %s line %d: broader concept %s of %s is not in the file", what, line, parent, child)
		}
		c, ok := idOf[child]
		if !ok {
			return fmt.Errorf("ontology: %s line %d: narrower concept %s of %s is not in the file", what, line, child, parent)
		}
		if !seen[pair{p, c}] {
			seen[pair{p, c}] = true
			d.Edges = append(d.Edges, Edge{Parent: p, Child: c})
		}
		return nil
	}
	for _, c := range cs {
		label := c.label
		if label == "" {
			label = c.id
		}
		d.Nodes = append(d.Nodes, Node{ID: c.id, Label: label})
		for _, b := range c.broader {
			if err := add(c.line, b, c.uri); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range cs {
		for _, n := range c.narrower {
			if err := add(c.line, c.uri, n); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// pickLabel chooses from a language map the English label, else the
// label of the alphabetically first language, so the choice does not
// depend on map order.
func pickLabel(m map[string]string) string {
	if l := strings.TrimSpace(m["en"]); l != "" {
		return l
	}
	langs := make([]string, 0, len(m))
	for k := range m {
		langs = append(langs, k)
	}
	slices.Sort(langs)
	for _, k := range langs {
		if l := strings.TrimSpace(m[k]); l != "" {
			return l
		}
	}
	return ""
}

type jskosRef struct {
	URI string `json:"uri"`
}

type jskosConcept struct {
	URI       string            `json:"uri"`
	Type      []string          `json:"type"`
	Notation  []string          `json:"notation"`
	PrefLabel map[string]string `json:"prefLabel"`
	Broader   []jskosRef        `json:"broader"`
	Narrower  []jskosRef        `json:"narrower"`
}

// ReadJSKOS reads a concept scheme published in JSKOS
// (https://gbv.github.io/jskos/), newline-delimited — the form in which
// the Mathematics Subject Classification (MSC2020) is distributed:
//
//	{"uri": "http://msc2010.org/resources/MSC/2020/11A41", "notation": ["11A41"],
//	 "prefLabel": {"en": "Primes"}, "broader": [{"uri": "http://msc2010.org/resources/MSC/2020/11Axx"}]}
//
// A node's id is the first notation (else the URI), its label the English
// prefLabel (else the first language's, else the id); edges come from
// broader and narrower. Concepts without broader are the roots
// (topConceptOf is implied by that and not read). A line whose type names
// a ConceptScheme (the scheme's own record) is skipped, as are blank lines.
// Other fields are ignored. The DAG is not validated.
func ReadJSKOS(r io.Reader) (*DAG, error) {
	var cs []concept
	err := readLines(r, func(line int, b []byte) error {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			return nil
		}
		var c jskosConcept
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("ontology: JSKOS line %d: %w", line, err)
		}
		for _, t := range c.Type {
			if strings.HasSuffix(t, "ConceptScheme") {
				return nil
			}
		}
		if c.URI == "" {
			return fmt.Errorf("ontology: JSKOS line %d: concept without uri", line)
		}
		k := concept{uri: c.URI, id: c.URI, label: pickLabel(c.PrefLabel), line: line}
		if len(c.Notation) > 0 && strings.TrimSpace(c.Notation[0]) != "" {
			k.id = strings.TrimSpace(c.Notation[0])
		}
		for _, b := range c.Broader {
			k.broader = append(k.broader, b.URI)
		}
		for _, n := range c.Narrower {
			k.narrower = append(k.narrower, n.URI)
		}
		cs = append(cs, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return conceptsToDAG("JSKOS", cs)
}
