package config

import (
	"github.com/saber-math/saber/lib/llmconf"
)

// LLMFor is the run's llm settings with a stage's overrides on top.
func (c *Config) LLMFor(override *llmconf.Config) llmconf.Config {
	c.need("llm")
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
		if o.MaxConsecutiveRejects != 0 {
			out.MaxConsecutiveRejects = o.MaxConsecutiveRejects
		}
		if o.AllowInsecureKey {
			out.AllowInsecureKey = true
		}
	}
	return out
}
