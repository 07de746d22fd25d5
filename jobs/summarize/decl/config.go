package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
)

// Section is summarize's part of the run config, `summarize:`.
var Section = config.SectionOf[Config]{Name: "summarize"}

// Config configures solution summaries (prompt F.2).
type Config struct {
	// Options: shards, backend, parse_retries, max_invalid_share, workers
	// and llm. Backend is extractive (offline, the default), llm or
	// synthetic (core ideas drawn, not read: benchmarks only; see
	// BackendSynthetic). A document is rejected when its answer stays
	// unparseable after the re-asks or the model refuses it;
	// max_invalid_share bounds their share.
	llmstage.Options `yaml:",inline"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) { c.SetDefaults("extractive") }

// Validate implements config.Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	c.Check(core, Section.Name, []string{"extractive", llmstage.BackendLLM, BackendSynthetic}, bad)
}
