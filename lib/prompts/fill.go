package prompts

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// template is a prompt text cut at its {{.Field}} placeholders, the only
// action our prompts use. It renders exactly what text/template rendered
// for them (TestFillMatchesTextTemplate), but text/template calls methods
// by name, and a binary that links it keeps every exported method of
// every type it reaches: 8 MB in each LLM stage's binary (issue 40).
type template struct {
	texts  []string // len(fields)+1 literal runs around the fields
	fields []string
}

// parseTemplate cuts src at each "{{.Name}}" (spaces inside the braces
// allowed). Any other action is an error, so a template that needs more
// than placeholders fails its tests rather than rendering its action
// literally.
func parseTemplate(src string) (*template, error) {
	t := &template{}
	for {
		i := strings.Index(src, "{{")
		if i < 0 {
			t.texts = append(t.texts, src)
			return t, nil
		}
		j := strings.Index(src[i:], "}}")
		if j < 0 {
			return nil, fmt.Errorf("unclosed action at %q", clip(src[i:]))
		}
		action := strings.TrimSpace(src[i+2 : i+j])
		name, ok := strings.CutPrefix(action, ".")
		if !ok || !isField(name) {
			return nil, fmt.Errorf("action {{%s}}: only {{.Field}} placeholders are supported", action)
		}
		t.texts = append(t.texts, src[:i])
		t.fields = append(t.fields, name)
		src = src[i+j+2:]
	}
}

// isField reports whether name is an exported Go identifier.
func isField(name string) bool {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// fill writes the template with data's fields: a struct (or pointer to
// one) by field name, or a map with string keys by key. A missing field
// or key is an error, as with text/template's missingkey=error.
func (t *template) fill(data any) (string, error) {
	v := reflect.ValueOf(data)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "", errors.New("data is nil")
		}
		v = v.Elem()
	}
	var b strings.Builder
	b.WriteString(t.texts[0])
	for i, name := range t.fields {
		s, err := field(v, name)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		b.WriteString(t.texts[i+1])
	}
	return b.String(), nil
}

func field(v reflect.Value, name string) (string, error) {
	var f reflect.Value
	switch v.Kind() {
	case reflect.Struct:
		f = v.FieldByName(name)
		if !f.IsValid() {
			return "", fmt.Errorf("field %s: not in %s", name, v.Type())
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return "", fmt.Errorf("field %s: map keys are %s, not strings", name, v.Type().Key())
		}
		f = v.MapIndex(reflect.ValueOf(name).Convert(v.Type().Key()))
		if !f.IsValid() {
			return "", fmt.Errorf("field %s: no such key in the map", name)
		}
	default:
		return "", fmt.Errorf("field %s: data is a %s, not a struct or map", name, v.Kind())
	}
	if f.Kind() == reflect.String {
		return f.String(), nil
	}
	if !f.CanInterface() {
		return "", fmt.Errorf("field %s: unexported", name)
	}
	return fmt.Sprint(f.Interface()), nil
}
