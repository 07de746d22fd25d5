package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// yamlField is one key of a struct as the YAML decoder sees it.
type yamlField struct {
	Name  string
	Field reflect.StructField
	// Index is the field's index sequence in the outer struct
	// (reflect.Value.FieldByIndex), through any inlined struct.
	Index []int
}

// yamlFields lists the keys of struct type t in declaration order: each
// exported field under its yaml name, and the keys of an embedded struct
// tagged `yaml:",inline"` in its place, as the YAML decoder reads them.
// Every walk over a section's keys (unknown keys, Values, ReproduceYAML)
// goes through it, so a block several sections embed (llmstage.Options)
// has the same keys, values and hash as fields written out in each.
func yamlFields(t reflect.Type) []yamlField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []yamlField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if inlined(f) {
			for _, in := range yamlFields(f.Type) {
				in.Index = append([]int{i}, in.Index...)
				out = append(out, in)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name := yamlName(f); name != "" {
			out = append(out, yamlField{Name: name, Field: f, Index: []int{i}})
		}
	}
	return out
}

// inlined reports whether the YAML decoder reads f's keys as the outer
// struct's (`yaml:",inline"`). Only an embedded struct value may be: the
// walks read its fields without allocating it, and a pointer or map
// inlined would have keys they cannot see, so it panics (a bug in a
// section's type, found by its first test).
func inlined(f reflect.StructField) bool {
	flags := strings.Split(f.Tag.Get("yaml"), ",")
	if !slices.Contains(flags[1:], "inline") {
		return false
	}
	if !f.Anonymous || f.Type.Kind() != reflect.Struct {
		panic(fmt.Sprintf("config: field %s: only an embedded struct value may be inline", f.Name))
	}
	return true
}
