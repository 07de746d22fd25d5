package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
)

// Section is rewrite's part of the run config, `rewrite:`.
var Section = config.SectionOf[Config]{Name: "rewrite"}

// Config configures the query rewrites of the deduplication experiment
// (paper App. B.4).
type Config struct {
	// Options: shards, backend, parse_retries, max_invalid_share, workers
	// and llm. Backend is offline (lib/rewrite's deterministic rewriter,
	// the default) or llm (prompt B.4; the paper used GPT-OSS-120B). An
	// answer with no <rewrite>…</rewrite> after the re-asks is kept as an
	// invalid rewrite; max_invalid_share bounds the share of queries whose
	// rewrite is invalid.
	llmstage.Options `yaml:",inline"`
	// MinRatio and MaxRatio bound a valid rewrite's length in runes as a
	// multiple of the original's (defaults 0.5 and 2).
	MinRatio float64 `yaml:"min_ratio" json:"min_ratio"`
	MaxRatio float64 `yaml:"max_ratio" json:"max_ratio"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	c.SetDefaults("offline")
	if c.MinRatio == 0 {
		c.MinRatio = 0.5
	}
	if c.MaxRatio == 0 {
		c.MaxRatio = 2
	}
}

// Validate implements config.Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	c.Check(core, Section.Name, []string{"offline", llmstage.BackendLLM}, bad)
	if !(c.MinRatio > 0 && c.MinRatio <= 1 && c.MaxRatio >= 1) {
		bad("rewrite: min_ratio %v and max_ratio %v must satisfy 0 < min_ratio ≤ 1 ≤ max_ratio", c.MinRatio, c.MaxRatio)
	}
}
