package config

import (
	"github.com/saber-math/saber/lib/llm"
)

// Tag configures topic assignment (SPEC §3 "Topic assignment").
type Tag struct {
	Shards int `yaml:"shards" json:"shards"`
	// Backend is lexical (offline keyword overlap, the default) or llm (prompt F.1).
	Backend string `yaml:"backend" json:"backend"`
	// Ontology is a DAG file (JSON, CSV parent,child,label, or MathWorld
	// nodes JSONL with OntologyEdges); empty uses the built-in default.
	Ontology       string `yaml:"ontology" json:"ontology"`
	OntologyEdges  string `yaml:"ontology_edges" json:"ontology_edges"`
	OntologyFormat string `yaml:"ontology_format" json:"ontology_format"`
	// Roots restricts the ontology to these node ids (the domains).
	Roots []string `yaml:"roots" json:"roots"`
	// Tau keeps children whose normalised score reaches it (paper: 0.85).
	Tau float64 `yaml:"tau" json:"tau"`
	// MaxCalls bounds scorer calls per document.
	MaxCalls int `yaml:"max_calls" json:"max_calls"`
	// ParseRetries re-asks the model this often when its answer is not JSON.
	ParseRetries int `yaml:"parse_retries" json:"parse_retries"`
	// Workers is how many documents are in flight (default: the LLM
	// concurrency with the llm backend, the cores otherwise).
	Workers int `yaml:"workers" json:"workers"`
	// LLM overrides the run's llm settings for this stage.
	LLM *llm.Config `yaml:"llm" json:"llm,omitempty"`
}

// Summarize configures solution summaries (prompt F.2).
type Summarize struct {
	Shards int `yaml:"shards" json:"shards"`
	// Backend is extractive (offline, the default) or llm.
	Backend      string      `yaml:"backend" json:"backend"`
	ParseRetries int         `yaml:"parse_retries" json:"parse_retries"`
	Workers      int         `yaml:"workers" json:"workers"`
	LLM          *llm.Config `yaml:"llm" json:"llm,omitempty"`
}

// LLMFor is the run's llm settings with a stage's overrides on top.
func (c *Config) LLMFor(override *llm.Config) llm.Config {
	out := c.LLM
	if o := override; o != nil {
		if o.BaseURL != "" {
			out.BaseURL = o.BaseURL
		}
		if o.Model != "" {
			out.Model = o.Model
		}
		if o.APIKeyEnv != "" {
			out.APIKeyEnv = o.APIKeyEnv
		}
		if o.Temperature != nil {
			out.Temperature = o.Temperature
		}
		if o.MaxTokens != 0 {
			out.MaxTokens = o.MaxTokens
		}
		if o.ReasoningEffort != "" {
			out.ReasoningEffort = o.ReasoningEffort
		}
		if o.Seed != nil {
			out.Seed = o.Seed
		}
		if o.TimeoutSeconds != 0 {
			out.TimeoutSeconds = o.TimeoutSeconds
		}
		if o.MaxAttempts != 0 {
			out.MaxAttempts = o.MaxAttempts
		}
		if o.Concurrency != 0 {
			out.Concurrency = o.Concurrency
		}
		if o.RatePerSecond != 0 {
			out.RatePerSecond = o.RatePerSecond
		}
	}
	return out
}

func (c *Config) defaultsLLMStages() {
	if c.Tag.Shards == 0 {
		c.Tag.Shards = 1
	}
	if c.Tag.Backend == "" {
		c.Tag.Backend = "lexical"
	}
	if c.Tag.OntologyFormat == "" {
		c.Tag.OntologyFormat = "auto"
	}
	if c.Tag.Tau == 0 {
		c.Tag.Tau = 0.85
	}
	if c.Tag.MaxCalls == 0 {
		c.Tag.MaxCalls = 200
	}
	if c.Tag.ParseRetries == 0 {
		c.Tag.ParseRetries = 2
	}
	if c.Summarize.Shards == 0 {
		c.Summarize.Shards = 1
	}
	if c.Summarize.Backend == "" {
		c.Summarize.Backend = "extractive"
	}
	if c.Summarize.ParseRetries == 0 {
		c.Summarize.ParseRetries = 2
	}
}

func (c *Config) validateLLMStages(bad func(string, ...any)) {
	if c.Tag.Shards < 1 {
		bad("tag.shards: must be ≥ 1")
	}
	switch c.Tag.Backend {
	case "lexical":
	case "llm":
		if err := c.LLMFor(c.Tag.LLM).Validate(); err != nil {
			bad("tag.llm (with llm): %v", err)
		}
	default:
		bad("tag.backend: %q is not one of lexical, llm", c.Tag.Backend)
	}
	switch c.Tag.OntologyFormat {
	case "auto", "json", "csv", "mathworld":
	default:
		bad("tag.ontology_format: %q is not one of auto, json, csv, mathworld", c.Tag.OntologyFormat)
	}
	if c.Tag.OntologyEdges != "" && c.Tag.Ontology == "" {
		bad("tag.ontology_edges: set only with tag.ontology (a MathWorld nodes file)")
	}
	if c.Tag.Tau <= 0 || c.Tag.Tau > 1 {
		bad("tag.tau: %v must be in (0, 1]", c.Tag.Tau)
	}
	if c.Tag.MaxCalls < 1 || c.Tag.ParseRetries < 0 || c.Tag.Workers < 0 {
		bad("tag: max_calls must be ≥ 1, parse_retries and workers ≥ 0")
	}
	if c.Summarize.Shards < 1 {
		bad("summarize.shards: must be ≥ 1")
	}
	switch c.Summarize.Backend {
	case "extractive":
	case "llm":
		if err := c.LLMFor(c.Summarize.LLM).Validate(); err != nil {
			bad("summarize.llm (with llm): %v", err)
		}
	default:
		bad("summarize.backend: %q is not one of extractive, llm", c.Summarize.Backend)
	}
	if c.Summarize.ParseRetries < 0 || c.Summarize.Workers < 0 {
		bad("summarize: parse_retries and workers must be ≥ 0")
	}
}
