package config

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// unknownKeys walks a YAML node against the Go type it will decode into and
// returns one message per key the type does not have, with the key's path and
// line, and the keys that are valid there.
func unknownKeys(n *yaml.Node, t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // the decoder reports type errors itself
		}
		fields := map[string]reflect.Type{}
		for _, f := range yamlFields(t) {
			fields[f.Name] = f.Field.Type
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			ft, ok := fields[k.Value]
			if !ok && moved[p] != "" {
				out = append(out, fmt.Sprintf("line %d: %s has moved to %s (shared by several stages; see docs/admin.md#a-run-config)", k.Line, p, moved[p]))
				continue
			}
			if !ok {
				valid := map[string]bool{}
				for name := range fields {
					valid[name] = true
				}
				out = append(out, fmt.Sprintf("line %d: unknown key %s (valid here: %s)",
					k.Line, p, strings.Join(sortedKeys(valid), ", ")))
				continue
			}
			out = append(out, unknownKeys(v, ft, p)...)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, v := range n.Content {
			out = append(out, unknownKeys(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, unknownKeys(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))...)
		}
	}
	return out
}

// movedOrUnknown is unknownKeys for a top-level key's value.
func movedOrUnknown(n *yaml.Node, t reflect.Type, path string) []string {
	return unknownKeys(n, t, path)
}

// moved maps keys that left a stage's section for a shared one to their
// new place, so an older config gets a message that says where to go.
var moved = map[string]string{
	"tag.ontology":        "benchmark.ontology.file",
	"tag.ontology_edges":  "benchmark.ontology.edges",
	"tag.ontology_format": "benchmark.ontology.format",
	"tag.roots":           "benchmark.ontology.roots",
	"select.k":            "benchmark.k",
	"select.domains":      "benchmark.domains",
	"pairs.topic_floor":   "benchmark.topic_floor",
	"pairs.summ_floor":    "benchmark.summ_floor",
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
