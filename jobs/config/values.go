package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Values flattens the parts of the config named by keys into one entry per
// leaf: "dedup.threshold" → "0.8", "ingest.sources[0].paths" →
// "[\"input/a.jsonl\"]". A list of scalars is one leaf, its JSON, so that a
// change to it reads as one change (ingest.exclude: [] → ["a"]); a list
// of structs is one entry per field of each element. A key names a top-level key ("seed", "llm", a
// section) or a dotted path into one ("benchmark.k"). Fields tagged
// `hash:"-"` are operational — shard counts, parallelism, timeouts,
// endpoints: they change how a stage runs, never its bytes — and are left
// out. Values are the JSON of the leaf; an empty list or map is "[]" or
// "{}", so that emptying one is a change; an unset pointer is absent, and
// so is an empty field tagged `hash:"omitempty"`: a key added later
// (ingest.sources[].terms) that leaves every config without it hashing
// as before, so that its runs stay current.
func (c *Config) Values(keys ...string) map[string]string {
	all := map[string]string{}
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := yamlName(f)
		if name == "" || !f.IsExported() || f.Tag.Get("hash") == "-" || !wanted(name, keys) {
			continue
		}
		flatten(name, v.Field(i), all)
	}
	for _, n := range c.names {
		if wanted(n, keys) {
			flatten(n, reflect.ValueOf(c.sections[n]), all)
		}
	}
	out := map[string]string{}
	for k, val := range all {
		for _, want := range keys {
			if under(k, want) {
				out[k] = val
				break
			}
		}
	}
	return out
}

// wanted reports whether the top-level key top may hold a wanted key.
func wanted(top string, keys []string) bool {
	for _, k := range keys {
		if under(k, top) || under(top, k) {
			return true
		}
	}
	return false
}

// under reports whether key is prefix or lies below it.
func under(key, prefix string) bool {
	if !strings.HasPrefix(key, prefix) {
		return false
	}
	rest := key[len(prefix):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

func yamlName(f reflect.StructField) string {
	name := strings.Split(f.Tag.Get("yaml"), ",")[0]
	if name == "-" {
		return ""
	}
	return name
}

func flatten(path string, v reflect.Value, out map[string]string) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range yamlFields(v.Type()) {
			if f.Field.Tag.Get("hash") == "-" {
				continue
			}
			fv := v.FieldByIndex(f.Index)
			if f.Field.Tag.Get("hash") == "omitempty" && fv.IsZero() {
				continue
			}
			flatten(path+"."+f.Name, fv, out)
		}
	case reflect.Map:
		if v.Len() == 0 {
			out[path] = "{}"
			return
		}
		keys := make([]string, 0, v.Len())
		byName := map[string]reflect.Value{}
		for _, k := range v.MapKeys() {
			s := fmt.Sprint(k.Interface())
			keys = append(keys, s)
			byName[s] = v.MapIndex(k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(path+mapKey(k), byName[k], out)
		}
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			out[path] = "[]"
			return
		}
		if scalar(v.Type().Elem()) {
			b, err := json.Marshal(v.Interface())
			if err != nil { // only NaN or Inf floats, which validation rejects
				b = []byte(fmt.Sprintf("%q", fmt.Sprint(v.Interface())))
			}
			out[path] = string(b)
			return
		}
		for i := 0; i < v.Len(); i++ {
			flatten(fmt.Sprintf("%s[%d]", path, i), v.Index(i), out)
		}
	default:
		b, err := json.Marshal(v.Interface())
		if err != nil { // only NaN or Inf floats, which validation rejects
			b = []byte(fmt.Sprintf("%q", fmt.Sprint(v.Interface())))
		}
		out[path] = string(b)
	}
}

// scalar reports whether values of t are leaves: no struct, map or list
// inside (after pointers).
func scalar(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface:
		return false
	}
	return true
}

// MapKey is the path of a map entry, as Values writes it: prefix.name, or
// prefix["a.b"] when the name has characters that would make it ambiguous.
func MapKey(prefix, name string) string { return prefix + mapKey(name) }

// mapKey renders a map key in a path: .name, or ["a.b"] when the name has
// characters that would make the path ambiguous.
func mapKey(k string) string {
	if k != "" && !strings.ContainsAny(k, ".[]\" \t\n") {
		return "." + k
	}
	b, _ := json.Marshal(k)
	return "[" + string(b) + "]"
}

// HashValues is the SHA-256 of flattened values, over their canonical JSON
// (keys sorted).
func HashValues(values map[string]string) string {
	b, err := json.Marshal(values) // encoding/json sorts map keys
	if err != nil {
		panic("config: marshal values: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Change is one key whose value differs between two flattenings; Old or
// New is "" where the key is absent on that side.
type Change struct {
	Key, Old, New string
}

func (c Change) String() string {
	show := func(v string) string {
		if v == "" {
			return "(unset)"
		}
		return v
	}
	return fmt.Sprintf("%s: %s → %s", c.Key, show(c.Old), show(c.New))
}

// Diff lists the keys whose values differ, sorted.
func Diff(old, new map[string]string) []Change {
	var out []Change
	for k, o := range old {
		if n := new[k]; n != o {
			out = append(out, Change{Key: k, Old: o, New: n})
		}
	}
	for k, n := range new {
		if _, ok := old[k]; !ok {
			out = append(out, Change{Key: k, New: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
