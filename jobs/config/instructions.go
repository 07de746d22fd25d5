package config

import (
	"slices"
	"strings"

	"github.com/saber-math/saber/jobs/retrievers"
)

// The instructions study (paper App. D.9): evaluate.instructions names
// instructions (I1–I3 of App. F.6); every configured retriever whose kind
// takes one (retrievers.Kind.TakesInstruction: not the lexical baselines,
// nor plugins, which have no instruction mechanism) is evaluated once more per
// instruction, as the retriever "<name>.<instruction>" — a copy of its spec
// with the instruction set. The variants are ordinary retrievers to
// evaluate and report; report puts them side by side in Table 9.

// expandInstructions adds the variants to retrievers and
// evaluate.retrievers. It is idempotent, so a config printed with
// --print-config and loaded again expands to the same thing.
func (c *Config) expandInstructions() {
	if len(c.Evaluate.Instructions) == 0 {
		return
	}
	base := slices.Clone(c.Evaluate.Retrievers)
	for _, r := range base {
		spec, ok := c.Retrievers[r]
		if !ok || !spec.TakesInstruction() {
			continue
		}
		if _, _, variant := c.InstructionVariant(r); variant {
			continue
		}
		for _, in := range c.Evaluate.Instructions {
			name := r + "." + in
			if _, exists := c.Retrievers[name]; !exists {
				v := spec
				v.Instruction = in
				c.Retrievers[name] = v
			}
			if !slices.Contains(c.Evaluate.Retrievers, name) {
				c.Evaluate.Retrievers = append(c.Evaluate.Retrievers, name)
			}
		}
	}
}

// InstructionVariant says whether an evaluated retriever is an instructions
// study variant, and of which retriever and instruction.
func (c *Config) InstructionVariant(name string) (base, instruction string, ok bool) {
	for _, in := range c.Evaluate.Instructions {
		if b, found := strings.CutSuffix(name, "."+in); found {
			if spec, exists := c.Retrievers[b]; exists && spec.TakesInstruction() && slices.Contains(c.Evaluate.Retrievers, b) {
				return b, in, true
			}
		}
	}
	return "", "", false
}

func (c *Config) validateInstructions(bad func(string, ...any)) {
	known := retrievers.Instructions()
	for i, in := range c.Evaluate.Instructions {
		if _, ok := known[in]; !ok {
			names := make([]string, 0, len(known))
			for k := range known {
				names = append(names, k)
			}
			slices.Sort(names)
			bad("evaluate.instructions[%d]: %q is not a shipped instruction (%s)", i, in, strings.Join(names, ", "))
		}
	}
}
