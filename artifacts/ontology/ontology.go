// Package ontology ships SABER-Math's default topic ontology, a DAG of a few
// hundred high-school and olympiad topics under the five domains Algebra,
// Geometry, Number Theory, Combinatorics, and Calculus and Analysis, embedded
// from default.json (the format of lib/ontology.ReadJSON).
//
// It is written by the saber authors, not derived from MathWorld or MSC (see
// LICENSE.md). Topics that belong to several areas have several parents — for
// example Pascal's triangle sits under Combinatorics › Binomial Coefficients
// and Number Theory › Special Numbers, the AM-GM family under Algebra ›
// Inequalities and Calculus and Analysis › Real Analysis, lattice points under
// Geometry › Coordinate Geometry and Number Theory › Diophantine Equations —
// so the tree built from it (lib/ontology.BuildTree) holds such a topic once
// per context. Every topic path of the synthetic corpus (lib/synth), read as
// labels, names a node of that tree. Keywords are lower-case words and short
// phrases, LaTeX command names without the backslash among them, as used by
// the lexical topic scorer (lib/topics).
//
// docs/corpus.md#ontologies says how a run names another ontology and in
// which formats it may be written.
package ontology

import (
	"bytes"
	_ "embed"

	"github.com/saber-math/saber/lib/ontology"
)

//go:embed default.json
var defaultJSON []byte

// JSON returns a copy of the embedded default.json.
func JSON() []byte { return bytes.Clone(defaultJSON) }

// Default parses and validates the default ontology. Each call returns a
// fresh DAG that the caller may modify.
func Default() (*ontology.DAG, error) {
	d, err := ontology.ReadJSON(bytes.NewReader(defaultJSON))
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// DefaultTree returns the default ontology unfolded into a tree
// (lib/ontology.BuildTree).
func DefaultTree() (*ontology.Tree, error) {
	d, err := Default()
	if err != nil {
		return nil, err
	}
	return ontology.BuildTree(d)
}
