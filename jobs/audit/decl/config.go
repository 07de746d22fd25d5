package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/lib/leak"
)

// Section is audit's part of the run config, `audit:`.
var Section = config.SectionOf[Config]{Name: "audit"}

// Config configures the duplicate-leakage audit (paper App. A.5).
type Config struct {
	// Options: shards, backend, parse_retries, max_invalid_share, workers
	// (the pairs in flight) and llm. Backend is lexical (offline:
	// lib/leak's near-duplicate test, the default) or llm (prompt A.1). An
	// answer with no \boxed{equivalent} or \boxed{distinct} after the
	// re-asks, or a refusal, keeps the pair as invalid, never flagged;
	// max_invalid_share bounds their share.
	llmstage.Options `yaml:",inline"`
	// Top is how many of each query's documents are audited, by rating
	// (paper: 50); a query with fewer rated documents has all of them
	// audited.
	Top int `yaml:"top" json:"top"`
	// Lexical holds the offline rule's thresholds (lexical backend).
	Lexical Lexical `yaml:"lexical" json:"lexical"`
}

// Lexical are the thresholds of the offline rule on the Jaccard similarity
// of the statements' shingles (lib/leak: leak.Rule; defaults
// leak.DefaultRule, chosen on MATH).
type Lexical struct {
	// Jaccard flags a pair whose final answers are equal (or, when an
	// answer is missing, whose numbers are equal) at a similarity ≥ it
	// (default 0.8).
	Jaccard float64 `yaml:"jaccard" json:"jaccard"`
	// JaccardNumbers flags a pair whose answers and statement numbers are
	// equal at a similarity ≥ it (default 0.4; at most jaccard).
	JaccardNumbers float64 `yaml:"jaccard_numbers" json:"jaccard_numbers"`
}

// Rule is the offline rule these thresholds make.
func (l Lexical) Rule() leak.Rule {
	return leak.Rule{Jaccard: l.Jaccard, JaccardNumbers: l.JaccardNumbers}
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	c.SetDefaults("lexical")
	if c.Top == 0 {
		c.Top = 50
	}
	if c.Lexical.Jaccard == 0 {
		c.Lexical.Jaccard = leak.DefaultRule.Jaccard
	}
	if c.Lexical.JaccardNumbers == 0 {
		c.Lexical.JaccardNumbers = leak.DefaultRule.JaccardNumbers
	}
}

// Validate implements config.Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	c.Check(core, Section.Name, []string{"lexical", llmstage.BackendLLM}, bad)
	if c.Top < 1 {
		bad("audit.top: %d must be ≥ 1", c.Top)
	}
	if err := c.Lexical.Rule().Validate(); err != nil {
		bad("audit.lexical: jaccard %v and jaccard_numbers %v must satisfy 0 < jaccard_numbers ≤ jaccard ≤ 1", c.Lexical.Jaccard, c.Lexical.JaccardNumbers)
	}
}
