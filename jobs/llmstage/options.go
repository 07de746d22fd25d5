// Package llmstage is the options block that the sections of the stages
// which may ask a model (tag, summarize, rewrite, audit, judge) embed:
// shards, backend, parse_retries, max_invalid_share, workers and the llm
// override, with their defaults and checks. It is a declaration only and
// links no LLM client (it uses lib/llmconf, not lib/llm), so that
// jobs/config and the stage binaries that ask no model stay free of it;
// what those stages share at run time (the client, Ask, Reject, the
// invalid-share check) is jobs/llmcall. The stage runtime (jobs/stage)
// knows nothing of either: a stage that asks no model imports neither.
package llmstage

import (
	"slices"
	"strings"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llmconf"
)

// BackendLLM is the backend every such stage names "llm": the model the
// run's llm settings (with the stage's override) point at.
const BackendLLM = "llm"

// Options are the keys every LLM stage has in its section, embedded with
// `yaml:",inline"` so that they stay the section's own keys
// (tag.parse_retries, judge.llm.model): the same YAML, the same config
// values and hash in the manifests as when each stage declared them.
type Options struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Backend is llm or one of the stage's offline backends (the default;
	// Check lists them in the stage's order).
	Backend string `yaml:"backend" json:"backend"`
	// ParseRetries re-asks the model this often when its answer is not in
	// the format asked for (llmcall.Ask); after them the unit is kept as
	// invalid or rejected, as the stage decides.
	ParseRetries int `yaml:"parse_retries" json:"parse_retries"`
	// MaxInvalidShare is the largest share of the shard's units
	// (documents, queries, pairs, judgments) that may come back invalid
	// or rejected with the outputs still written; above it the shard fails
	// with exit 2 and writes nothing (llmcall.RecordInvalidShare): most
	// units failing is a broken backend, not odd data. Default 0.5; 1
	// never fails.
	MaxInvalidShare float64 `yaml:"max_invalid_share" json:"max_invalid_share" hash:"-"`
	// Workers is how many units are in flight (default: the LLM
	// concurrency with the llm backend, the cores otherwise).
	Workers int `yaml:"workers" json:"workers" hash:"-"`
	// LLM overrides the run's llm settings for this stage.
	LLM *llmconf.Config `yaml:"llm" json:"llm,omitempty"`
}

// DefaultParseRetries is the re-asks after an unparseable answer when
// parse_retries is unset.
const DefaultParseRetries = 2

// DefaultMaxInvalidShare is the share of a shard's units that may come
// back invalid or rejected before the shard fails instead of writing its
// manifest: a few odd documents are data, most of them a broken backend
// (a model that never answers in the format asked, a prompt it refuses).
const DefaultMaxInvalidShare = 0.5

// SetDefaults fills the unset options; backend is the stage's default
// backend (an offline one: a run needs no server unless it asks for one).
func (o *Options) SetDefaults(backend string) {
	if o.Shards == 0 {
		o.Shards = 1
	}
	if o.Backend == "" {
		o.Backend = backend
	}
	if o.ParseRetries == 0 {
		o.ParseRetries = DefaultParseRetries
	}
	if o.MaxInvalidShare == 0 {
		o.MaxInvalidShare = DefaultMaxInvalidShare
	}
}

// Check reports every problem with the options, each under its key in
// section: backends are the stage's, in the order its message lists them,
// and with BackendLLM among them the run's llm settings with the stage's
// override must be valid when the stage asks a model.
func (o *Options) Check(core *config.Config, section string, backends []string, bad func(string, ...any)) {
	if o.Shards < 1 {
		bad("%s.shards: must be ≥ 1", section)
	}
	switch {
	case !slices.Contains(backends, o.Backend):
		bad("%s.backend: %q is not one of %s", section, o.Backend, strings.Join(backends, ", "))
	case o.UsesLLM():
		if err := o.LLMConfig(core).Validate(); err != nil {
			bad("%s.llm (with llm): %v", section, err)
		}
	}
	if o.ParseRetries < 0 || o.Workers < 0 {
		bad("%s: parse_retries and workers must be ≥ 0", section)
	}
	if !(o.MaxInvalidShare > 0 && o.MaxInvalidShare <= 1) {
		bad("%s.max_invalid_share: %v must be in (0, 1]", section, o.MaxInvalidShare)
	}
}

// UsesLLM reports whether the stage asks a model.
func (o *Options) UsesLLM() bool { return o.Backend == BackendLLM }

// LLMConfig is the run's llm settings with the stage's override on top.
func (o *Options) LLMConfig(core *config.Config) llmconf.Config { return core.LLMFor(o.LLM) }

// InFlight is how many of the stage's units are in flight (Workers).
func (o *Options) InFlight(core *config.Config) int {
	var c llmconf.Config // the server's settings: read (and declared) only when the stage asks it
	if o.UsesLLM() {
		c = o.LLMConfig(core)
	}
	return Workers(o.Workers, o.UsesLLM(), c)
}

// Workers is the number of units in flight: configured when set, else,
// for a stage that asks a model, the client's concurrency (or
// llmconf.DefaultConcurrency: as many as the client lets through), else the
// cores (stage.Workers).
func Workers(configured int, backendLLM bool, c llmconf.Config) int {
	switch {
	case configured > 0 || !backendLLM:
		return stage.Workers(configured)
	case c.Concurrency > 0:
		return c.Concurrency
	}
	return llmconf.DefaultConcurrency
}
