// Package decl declares the select stage: its config section and what each
// of its steps reads and writes, apart from the steps' work (package
// selection). Every stage binary links every stage's declaration — to check a
// whole run config and whether a step's inputs are current — and only its
// own stage's code.
package decl
