package audit

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/leak"
	"github.com/saber-math/saber/lib/llm"
)

// Section is audit's part of the run config, `audit:`.
var Section = config.SectionOf[Config]{Name: "audit"}

// Config configures the duplicate-leakage audit (paper App. A.5).
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Backend is lexical (offline: lib/leak's near-duplicate test, the
	// default) or llm (prompt A.1).
	Backend string `yaml:"backend" json:"backend"`
	// Top is how many of each query's documents are audited, by rating
	// (paper: 50); a query with fewer rated documents has all of them
	// audited.
	Top int `yaml:"top" json:"top"`
	// ParseRetries re-asks the model when its answer has no
	// \boxed{equivalent} or \boxed{distinct}; after them the pair is kept
	// as invalid, never flagged.
	ParseRetries int `yaml:"parse_retries" json:"parse_retries"`
	// MaxInvalidShare is the largest share of the shard's pairs that may
	// have an invalid answer (no verdict after the re-asks, refusals) with
	// the outputs still written; above it the shard fails with exit 2 and
	// writes nothing. Default 0.5; 1 never fails.
	MaxInvalidShare float64 `yaml:"max_invalid_share" json:"max_invalid_share" hash:"-"`
	// Workers is the pairs in flight (default: the LLM concurrency with
	// the llm backend, the cores otherwise).
	Workers int         `yaml:"workers" json:"workers" hash:"-"`
	LLM     *llm.Config `yaml:"llm" json:"llm,omitempty"`
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
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.Backend == "" {
		c.Backend = "lexical"
	}
	if c.Top == 0 {
		c.Top = 50
	}
	if c.ParseRetries == 0 {
		c.ParseRetries = 2
	}
	if c.MaxInvalidShare == 0 {
		c.MaxInvalidShare = stage.DefaultMaxInvalidShare
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
	if c.Shards < 1 {
		bad("audit.shards: must be ≥ 1")
	}
	switch c.Backend {
	case "lexical":
	case "llm":
		if err := core.LLMFor(c.LLM).Validate(); err != nil {
			bad("audit.llm (with llm): %v", err)
		}
	default:
		bad("audit.backend: %q is not one of lexical, llm", c.Backend)
	}
	if c.Top < 1 {
		bad("audit.top: %d must be ≥ 1", c.Top)
	}
	if c.ParseRetries < 0 || c.Workers < 0 {
		bad("audit: parse_retries and workers must be ≥ 0")
	}
	if err := c.Lexical.Rule().Validate(); err != nil {
		bad("audit.lexical: jaccard %v and jaccard_numbers %v must satisfy 0 < jaccard_numbers ≤ jaccard ≤ 1", c.Lexical.Jaccard, c.Lexical.JaccardNumbers)
	}
	if !(c.MaxInvalidShare > 0 && c.MaxInvalidShare <= 1) {
		bad("audit.max_invalid_share: %v must be in (0, 1]", c.MaxInvalidShare)
	}
}
