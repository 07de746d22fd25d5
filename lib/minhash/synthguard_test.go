package minhash_test

import (
	"testing"

	"github.com/saber-math/saber/lib/minhash"
	"github.com/saber-math/saber/lib/synth"
)

// TestGuardKeepsPlantedCopies: every near-duplicate synth plants (case,
// punctuation, synonyms, "Problem 3." labels, appended instructions) passes
// the guard, so dedup's recall on them does not fall.
func TestGuardKeepsPlantedCopies(t *testing.T) {
	cfg := synth.Config{N: 3000, Seed: 11, DupFrac: 0.2}
	byID := map[string]synth.Problem{}
	var dups []synth.Problem
	for i := 0; i < cfg.N; i++ {
		p := synth.Generate(cfg, i)
		byID[p.ID] = p
		if p.DupOf != "" {
			dups = append(dups, p)
		}
	}
	bad := 0
	for _, d := range dups {
		if r := minhash.Guard(byID[d.DupOf].Statement, d.Statement); r != "" {
			bad++
			if bad <= 5 {
				t.Errorf("%s copy of %s kept apart: %s\n%q\n%q", d.ID, d.DupOf, r, byID[d.DupOf].Statement, d.Statement)
			}
		}
	}
	if len(dups) < 100 {
		t.Fatalf("only %d planted copies", len(dups))
	}
	if bad > 0 {
		t.Errorf("%d of %d planted copies kept apart", bad, len(dups))
	}
}
