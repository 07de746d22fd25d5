package tag

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
)

// Section is tag's part of the run config, `tag:`. The ontology is shared
// with pairs, calibrate and select: benchmark.ontology.
var Section = config.SectionOf[Config]{Name: "tag"}

// Config configures topic assignment (SPEC §3 "Topic assignment").
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Backend is lexical (offline keyword overlap, the default), llm
	// (prompt F.1) or synthetic (labels drawn, not read: benchmarks only;
	// see BackendSynthetic).
	Backend string `yaml:"backend" json:"backend"`
	// Tau keeps children whose normalised score reaches it (paper: 0.85).
	Tau float64 `yaml:"tau" json:"tau"`
	// MaxCalls bounds scorer calls per document.
	MaxCalls int `yaml:"max_calls" json:"max_calls"`
	// ParseRetries re-asks the model this often when its answer is not JSON.
	ParseRetries int `yaml:"parse_retries" json:"parse_retries"`
	// MaxInvalidShare is the largest share of the shard's documents that
	// may be rejected (answers unparseable after the re-asks, refusals, an
	// exhausted max_calls) with the outputs still written; above it the
	// shard fails with exit 2 and writes nothing: most documents failing is
	// a broken backend, not odd data. Default 0.5; 1 never fails.
	MaxInvalidShare float64 `yaml:"max_invalid_share" json:"max_invalid_share" hash:"-"`
	// MaxTopicShare is the largest share of a shard's tagged documents one
	// topic below the domains may hold before the shard warns (the topics
	// are kept; the warning reaches `saber run`'s summary): a topic on
	// much of a corpus is a scorer matching words every text has. Default
	// 0: what the ontology's size makes plausible, topics.PlausibleShare
	// over the topics at the topic's depth (10.7% for one of 6,608
	// leaves, 26% for one of 20); a value in (0, 1] is a fixed share
	// instead, 1 never warns. A topic on fewer than MinConcentrationDocs
	// documents never warns.
	MaxTopicShare float64 `yaml:"max_topic_share" json:"max_topic_share" hash:"-"`
	// AllowLabelOnly lets the lexical backend tag with an ontology whose
	// topics mostly lack keywords (fewer than topics.MinKeywordShare of
	// those below the domains have any, as with MSC2020): without it the
	// stage stops before tagging with exit 2, since labels alone put a
	// problem in the right domain little more than half the time on MATH
	// (lib/topics/agreement_test.go). For smoke tests of such an ontology;
	// real labels need tag.backend: llm or keywords in the ontology.
	AllowLabelOnly bool `yaml:"allow_label_only" json:"allow_label_only" hash:"-"`
	// Workers is how many documents are in flight (default: the LLM
	// concurrency with the llm backend, the cores otherwise).
	Workers int `yaml:"workers" json:"workers" hash:"-"`
	// LLM overrides the run's llm settings for this stage.
	LLM *llm.Config `yaml:"llm" json:"llm,omitempty"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.Backend == "" {
		c.Backend = "lexical"
	}
	if c.Tau == 0 {
		c.Tau = 0.85
	}
	if c.MaxCalls == 0 {
		c.MaxCalls = 200
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
		bad("tag.shards: must be ≥ 1")
	}
	switch c.Backend {
	case "lexical", BackendSynthetic:
	case "llm":
		if err := core.LLMFor(c.LLM).Validate(); err != nil {
			bad("tag.llm (with llm): %v", err)
		}
	default:
		bad("tag.backend: %q is not one of lexical, llm, synthetic", c.Backend)
	}
	if c.Tau <= 0 || c.Tau > 1 {
		bad("tag.tau: %v must be in (0, 1]", c.Tau)
	}
	if c.MaxCalls < 1 || c.ParseRetries < 0 || c.Workers < 0 {
		bad("tag: max_calls must be ≥ 1, parse_retries and workers ≥ 0")
	}
	if !(c.MaxTopicShare >= 0 && c.MaxTopicShare <= 1) {
		bad("tag.max_topic_share: %v must be in [0, 1] (0: from the ontology's size)", c.MaxTopicShare)
	}
	if !(c.MaxInvalidShare > 0 && c.MaxInvalidShare <= 1) {
		bad("tag.max_invalid_share: %v must be in (0, 1]", c.MaxInvalidShare)
	}
}
