package extread

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

//go:embed jsonld.js
var jsonldJS []byte

// JSONLDOptions are jsonld.js's expansion options that a test may set.
type JSONLDOptions struct {
	// Safe is jsonld's safe mode: expansion fails on anything it would
	// otherwise drop silently — a property that is no IRI under the
	// context, or a relative @id with no Base to resolve it against.
	Safe bool `json:"safe,omitempty"`
	// Base is the base IRI relative IRIs are resolved against.
	Base string `json:"base,omitempty"`
}

// JSONLDExpand expands the JSON-LD document in file with jsonld.js (npm
// jsonld) and returns the expanded document as encoding/json decodes it
// (numbers as float64). It never loads a document: a remote @context or
// @import fails the expansion, with the URL. It skips t when node or
// SABER_NODE_MODULES (with jsonld) is missing, and fails it under CI=true.
func JSONLDExpand(t testing.TB, file string) (any, error) {
	t.Helper()
	return JSONLDExpandWith(t, file, JSONLDOptions{})
}

// JSONLDExpandWith is JSONLDExpand with options.
func JSONLDExpandWith(t testing.TB, file string, opts JSONLDOptions) (any, error) {
	t.Helper()
	env, ok := needNode(t, "jsonld", "jsonld.js", jsonldJS)
	if !ok {
		return nil, fmt.Errorf("jsonld: not available")
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	o, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	out, err := env.run("jsonld.js", nil, file, string(o))
	if err != nil {
		return nil, fmt.Errorf("jsonld: expand %s: %w", file, err)
	}
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("jsonld: decode expansion of %s: %w", file, err)
	}
	return doc, nil
}
