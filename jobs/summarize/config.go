package summarize

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
)

// Section is summarize's part of the run config, `summarize:`.
var Section = config.SectionOf[Config]{Name: "summarize"}

// Config configures solution summaries (prompt F.2).
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Backend is extractive (offline, the default), llm or synthetic
	// (core ideas drawn, not read: benchmarks only; see BackendSynthetic).
	Backend      string `yaml:"backend" json:"backend"`
	ParseRetries int    `yaml:"parse_retries" json:"parse_retries"`
	// MaxInvalidShare is the largest share of the shard's documents that
	// may be rejected (answers unparseable after the re-asks, refusals)
	// with the outputs still written; above it the shard fails with exit 2
	// and writes nothing. Default 0.5; 1 never fails.
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
		c.Backend = "extractive"
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
		bad("summarize.shards: must be ≥ 1")
	}
	switch c.Backend {
	case "extractive", BackendSynthetic:
	case "llm":
		if err := core.LLMFor(c.LLM).Validate(); err != nil {
			bad("summarize.llm (with llm): %v", err)
		}
	default:
		bad("summarize.backend: %q is not one of extractive, llm, synthetic", c.Backend)
	}
	if c.ParseRetries < 0 || c.Workers < 0 {
		bad("summarize: parse_retries and workers must be ≥ 0")
	}
	if !(c.MaxInvalidShare > 0 && c.MaxInvalidShare <= 1) {
		bad("summarize.max_invalid_share: %v must be in (0, 1]", c.MaxInvalidShare)
	}
}
