package config

import (
	"strings"
	"testing"
)

func TestKeyOfCheck(t *testing.T) {
	type sec struct {
		A string  `yaml:"a"`
		B float64 `yaml:"b"`
		C []int   `yaml:"c"`
	}
	s := SectionOf[sec]{Name: "s"}
	for _, tc := range []struct {
		name    string
		err     string
		checked error
	}{
		{"right", "", KeyOf[sec, string]{Section: s, Name: "a", Field: func(c *sec) string { return c.A }}.check()},
		{"slice", "", KeyOf[sec, []int]{Section: s, Name: "c", Field: func(c *sec) []int { return c.C }}.check()},
		{"no such key", `has no key "x"`, KeyOf[sec, string]{Section: s, Name: "x", Field: func(c *sec) string { return c.A }}.check()},
		{"another field", "does not read", KeyOf[sec, float64]{Section: s, Name: "b", Field: func(c *sec) float64 { return 0 }}.check()},
	} {
		if tc.err == "" && tc.checked != nil || tc.err != "" && (tc.checked == nil || !strings.Contains(tc.checked.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, tc.checked, tc.err)
		}
	}
}
