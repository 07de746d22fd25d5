package config

import (
	"bytes"
	"fmt"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// yamlLine matches the location yaml.v3 puts in a syntax error.
var yamlLine = regexp.MustCompile(`^yaml: (?:line \d+: )?`)

// syntaxError says where a YAML syntax error is. yaml.v3 names the line
// a parser error's context starts on, counted from 0 — the line before
// the one at fault for `fields: {solution: solutions[0]}` — or no line at
// all when that is the first. The line named here is the first whose
// prefix of the document fails with the same message: where the
// document stops being YAML, counted from 1, with its text.
func syntaxError(data []byte, err error) string {
	msg := yamlLine.ReplaceAllString(err.Error(), "")
	lines := bytes.SplitAfter(data, []byte("\n"))
	var prefix []byte
	for i, l := range lines {
		prefix = append(prefix, l...)
		var n yaml.Node
		perr := yaml.Unmarshal(prefix, &n)
		if perr != nil && yamlLine.ReplaceAllString(perr.Error(), "") == msg {
			return fmt.Sprintf("yaml: line %d: %s: %s", i+1, msg, bytes.TrimSpace(l))
		}
	}
	return err.Error()
}
