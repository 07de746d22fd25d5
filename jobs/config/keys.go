package config

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

func reflectType(v any) reflect.Type { return reflect.TypeOf(v) }

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
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if name == "" || name == "-" {
				continue
			}
			fields[name] = f.Type
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			ft, ok := fields[k.Value]
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

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
