package ontology

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// skosNS is the SKOS namespace; JSON-LD keys and types may be written
// with it in full, with the skos: prefix, or bare (through an @context).
const skosNS = "http://www.w3.org/2004/02/skos/core#"

// skosTerm reduces a JSON-LD key or type to its SKOS local name ("Concept",
// "prefLabel"), or "" when it is in another vocabulary.
func skosTerm(k string) string {
	switch {
	case strings.HasPrefix(k, skosNS):
		return k[len(skosNS):]
	case strings.HasPrefix(k, "skos:"):
		return k[len("skos:"):]
	case strings.Contains(k, ":"), strings.HasPrefix(k, "@"):
		return ""
	}
	return k
}

// ReadSKOS reads a SKOS concept scheme in compact JSON-LD: an object with
// an @graph array (or a bare array) of nodes, of which those typed
// skos:Concept become the DAG's nodes:
//
//	{"@context": {"skos": "http://www.w3.org/2004/02/skos/core#"},
//	 "@graph": [{"@id": "ex:11A41", "@type": "skos:Concept", "skos:notation": "11A41",
//	             "skos:prefLabel": {"@language": "en", "@value": "Primes"},
//	             "skos:broader": {"@id": "ex:11Axx"}}]}
//
// Keys may be written skos:prefLabel, with the full SKOS URI, or bare
// (prefLabel) as an @context allows. A value may be one item or an array;
// a label a string, a {"@value", "@language"} object, or a language map;
// a reference an {"@id"} object or a string. Ids, labels and edges follow
// ReadJSKOS: notation, else @id; the English label, else the first
// language's; broader and narrower. Prefixed @ids are compared as written
// (they are not expanded against the @context). The DAG is not validated.
func ReadSKOS(r io.Reader) (*DAG, error) {
	var top any
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("ontology: SKOS JSON-LD: %w", err)
	}
	var graph []any
	switch t := top.(type) {
	case []any:
		graph = t
	case map[string]any:
		g, ok := t["@graph"].([]any)
		if !ok {
			graph = []any{t} // a single node
		} else {
			graph = g
		}
	default:
		return nil, fmt.Errorf("ontology: SKOS JSON-LD: top level is neither an object nor an array")
	}
	var cs []concept
	for i, item := range graph {
		obj, ok := item.(map[string]any)
		if !ok {
			continue
		}
		isConcept := false
		for _, t := range list(obj["@type"]) {
			if s, _ := t.(string); skosTerm(s) == "Concept" {
				isConcept = true
			}
		}
		if !isConcept {
			continue
		}
		id, _ := obj["@id"].(string)
		if id == "" {
			return nil, fmt.Errorf("ontology: SKOS JSON-LD: @graph[%d]: concept without @id", i)
		}
		c := concept{uri: id, id: id, line: i + 1}
		labels := map[string]string{}
		for k, v := range obj {
			switch skosTerm(k) {
			case "prefLabel":
				for _, l := range list(v) {
					addLabel(labels, l)
				}
			case "notation":
				if ns := list(v); len(ns) > 0 {
					if n := strings.TrimSpace(literal(ns[0])); n != "" {
						c.id = n
					}
				}
			case "broader":
				for _, b := range list(v) {
					if s := ref(b); s != "" {
						c.broader = append(c.broader, s)
					}
				}
			case "narrower":
				for _, n := range list(v) {
					if s := ref(n); s != "" {
						c.narrower = append(c.narrower, s)
					}
				}
			}
		}
		c.label = pickLabel(labels)
		cs = append(cs, c)
	}
	return conceptsToDAG("SKOS JSON-LD", cs)
}

// list returns v as a slice: itself when it is an array, else one item.
func list(v any) []any {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		return t
	}
	return []any{v}
}

// literal is the text of a JSON-LD literal: a string or {"@value": ...}.
func literal(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case map[string]any:
		return literal(t["@value"])
	}
	return ""
}

// ref is the @id of a JSON-LD reference: {"@id": ...} or a plain string.
func ref(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		s, _ := t["@id"].(string)
		return s
	}
	return ""
}

// addLabel adds a label value to labels by language ("" when untagged):
// a string, a {"@value", "@language"} object, or a language map.
func addLabel(labels map[string]string, v any) {
	switch t := v.(type) {
	case string:
		if labels[""] == "" {
			labels[""] = t
		}
	case map[string]any:
		if val, ok := t["@value"]; ok {
			lang, _ := t["@language"].(string)
			if labels[lang] == "" {
				labels[lang] = literal(val)
			}
			return
		}
		for lang, val := range t { // a language map
			if s, ok := val.(string); ok && labels[lang] == "" {
				labels[lang] = s
			}
		}
	}
}
