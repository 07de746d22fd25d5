package decl

import (
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/llmconf"
)

// Section is analyze's part of the run config, `analyze:`.
var Section = config.SectionOf[Config]{Name: "analyze"}

// Normaliser backends.
const (
	// BackendRules is offline: the Math tokeniser's delimiter rules, with
	// bare maths in prose delimited by rule (lib/text.DelimitMath).
	BackendRules = "rules"
	// BackendLLM asks a model with prompt F.5.
	BackendLLM = "llm"
)

// Config configures the analyses.
type Config struct {
	// Backend normalises each query statement so that every expression is
	// delimited before it is split into maths and words: rules (offline,
	// the default) or llm (prompt F.5, as the paper).
	Backend string          `yaml:"backend" json:"backend"`
	LLM     *llmconf.Config `yaml:"llm" json:"llm,omitempty"`
	// ParseRetries re-asks the model when its answer has no \boxed{…};
	// after them the query is dropped and counted (llm backend).
	ParseRetries int `yaml:"parse_retries" json:"parse_retries"`
	// Retrievers are scored on the maths and words parts (default: every
	// evaluated retriever, instruction variants included, so that Table 10
	// has its columns).
	Retrievers []string `yaml:"retrievers" json:"retrievers,omitempty"`
	// Top is how many of each query's best-rated candidates each part is
	// scored against (paper: 5).
	Top int `yaml:"top" json:"top"`
	// Bins is the number of maths-token-ratio bins of the maths-vs-words
	// figure (default 10).
	Bins int `yaml:"bins" json:"bins"`
	// ExampleQuery is the query of the topic-distribution example (App.
	// A.7); empty: the first query, by id, of the first domain.
	ExampleQuery string `yaml:"example_query" json:"example_query,omitempty"`
	// ReleaseDates is the CSV `saber mteb` reads (columns retriever and
	// release_date, YYYY-MM-DD; mteb_score may be empty), for the score
	// over time (App. D.8); relative to the config file. Empty: no such
	// figure.
	ReleaseDates string `yaml:"release_dates" json:"release_dates,omitempty"`
	// Workers is the queries scored at once per retriever (default: the
	// retriever's workers for a configured one, the cores for a lexical
	// one) and the statements normalised at once with the llm backend.
	Workers int `yaml:"workers" json:"workers" hash:"-"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(core *config.Config) {
	if c.Backend == "" {
		c.Backend = BackendRules
	}
	if c.ParseRetries == 0 {
		c.ParseRetries = 2
	}
	if c.Top == 0 {
		c.Top = 5
	}
	if c.Bins == 0 {
		c.Bins = 10
	}
}

// Validate implements config.Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	switch c.Backend {
	case BackendRules:
	case BackendLLM:
		if err := core.LLMFor(c.LLM).Validate(); err != nil {
			bad("analyze.llm (with backend llm): %v", err)
		}
	default:
		bad("analyze.backend: %q is not one of %s, %s", c.Backend, BackendRules, BackendLLM)
	}
	if c.Top < 1 {
		bad("analyze.top: %d must be ≥ 1", c.Top)
	}
	if c.Bins < 1 || c.Bins > 100 {
		bad("analyze.bins: %d must be in 1…100", c.Bins)
	}
	if c.ParseRetries < 0 || c.Workers < 0 {
		bad("analyze: parse_retries and workers must be ≥ 0")
	}
	known := map[string]bool{}
	for _, r := range config.EvaluateRetrievers.Get(core) {
		known[r] = true
	}
	for _, r := range c.Retrievers {
		if !known[r] {
			bad("analyze.retrievers: %q is not in evaluate.retrievers (analyze scores only evaluated retrievers)", r)
		}
	}
}

// RetrieversOf is the configured list, or evaluate's.
func (c *Config) RetrieversOf(core *config.Config) []string {
	if len(c.Retrievers) > 0 {
		return c.Retrievers
	}
	return config.EvaluateRetrievers.Get(core)
}
