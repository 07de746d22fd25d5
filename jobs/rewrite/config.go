package rewrite

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
)

// Section is rewrite's part of the run config, `rewrite:`.
var Section = config.SectionOf[Config]{Name: "rewrite"}

// Config configures the query rewrites of the deduplication experiment
// (paper App. B.4).
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Backend is offline (lib/rewrite's deterministic rewriter, the
	// default) or llm (prompt B.4; the paper used GPT-OSS-120B).
	Backend string `yaml:"backend" json:"backend"`
	// MinRatio and MaxRatio bound a valid rewrite's length in runes as a
	// multiple of the original's (defaults 0.5 and 2).
	MinRatio float64 `yaml:"min_ratio" json:"min_ratio"`
	MaxRatio float64 `yaml:"max_ratio" json:"max_ratio"`
	// ParseRetries re-asks the model when its answer has no
	// <rewrite>…</rewrite>; after them the rewrite is kept as invalid.
	ParseRetries int `yaml:"parse_retries" json:"parse_retries"`
	// MaxInvalidShare is the largest share of the shard's queries whose
	// rewrite may be invalid with the outputs still written; above it the
	// shard fails with exit 2. Default 0.5; 1 never fails.
	MaxInvalidShare float64     `yaml:"max_invalid_share" json:"max_invalid_share" hash:"-"`
	Workers         int         `yaml:"workers" json:"workers" hash:"-"`
	LLM             *llm.Config `yaml:"llm" json:"llm,omitempty"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.Backend == "" {
		c.Backend = "offline"
	}
	if c.MinRatio == 0 {
		c.MinRatio = 0.5
	}
	if c.MaxRatio == 0 {
		c.MaxRatio = 2
	}
	if c.ParseRetries == 0 {
		c.ParseRetries = 2
	}
	if c.MaxInvalidShare == 0 {
		c.MaxInvalidShare = stage.DefaultMaxInvalidShare
	}
}

// Validate implements config.Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 {
		bad("rewrite.shards: must be ≥ 1")
	}
	switch c.Backend {
	case "offline":
	case "llm":
		if err := core.LLMFor(c.LLM).Validate(); err != nil {
			bad("rewrite.llm (with llm): %v", err)
		}
	default:
		bad("rewrite.backend: %q is not one of offline, llm", c.Backend)
	}
	if !(c.MinRatio > 0 && c.MinRatio <= 1 && c.MaxRatio >= 1) {
		bad("rewrite: min_ratio %v and max_ratio %v must satisfy 0 < min_ratio ≤ 1 ≤ max_ratio", c.MinRatio, c.MaxRatio)
	}
	if c.ParseRetries < 0 || c.Workers < 0 {
		bad("rewrite: parse_retries and workers must be ≥ 0")
	}
	if !(c.MaxInvalidShare > 0 && c.MaxInvalidShare <= 1) {
		bad("rewrite.max_invalid_share: %v must be in (0, 1]", c.MaxInvalidShare)
	}
}
