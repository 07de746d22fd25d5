package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
)

// Section is tag's part of the run config, `tag:`. The ontology is shared
// with pairs, calibrate and select: benchmark.ontology.
var Section = config.SectionOf[Config]{Name: "tag"}

// Config configures topic assignment (SPEC §3 "Topic assignment").
type Config struct {
	// Options: shards, backend, parse_retries, max_invalid_share, workers
	// and llm. Backend is lexical (offline keyword overlap, the default),
	// llm (prompt F.1) or synthetic (labels drawn, not read: benchmarks
	// only; see BackendSynthetic). A document is rejected when its answers
	// stay unparseable after the re-asks, the model refuses it or it
	// exhausts max_calls; max_invalid_share bounds their share.
	llmstage.Options `yaml:",inline"`
	// Tau keeps children whose normalised score reaches it (paper: 0.85).
	Tau float64 `yaml:"tau" json:"tau"`
	// MaxCalls bounds scorer calls per document.
	MaxCalls int `yaml:"max_calls" json:"max_calls"`
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
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	c.SetDefaults("lexical")
	if c.Tau == 0 {
		c.Tau = 0.85
	}
	if c.MaxCalls == 0 {
		c.MaxCalls = 200
	}
}

// Validate implements config.Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	c.Check(core, Section.Name, []string{"lexical", llmstage.BackendLLM, BackendSynthetic}, bad)
	if c.Tau <= 0 || c.Tau > 1 {
		bad("tag.tau: %v must be in (0, 1]", c.Tau)
	}
	if c.MaxCalls < 1 {
		bad("tag.max_calls: %d must be ≥ 1", c.MaxCalls)
	}
	if !(c.MaxTopicShare >= 0 && c.MaxTopicShare <= 1) {
		bad("tag.max_topic_share: %v must be in [0, 1] (0: from the ontology's size)", c.MaxTopicShare)
	}
}
