package llm

import "github.com/saber-math/saber/lib/llmconf"

// Config is the client's configuration. It lives in lib/llmconf so that a
// run config can hold and check it without linking this client.
type Config = llmconf.Config

// Defaults and limits of Config, from lib/llmconf.
const (
	DefaultAPIKeyEnv             = llmconf.DefaultAPIKeyEnv
	DefaultTimeoutSeconds        = llmconf.DefaultTimeoutSeconds
	DefaultMaxAttempts           = llmconf.DefaultMaxAttempts
	DefaultConcurrency           = llmconf.DefaultConcurrency
	DefaultMaxConsecutiveRejects = llmconf.DefaultMaxConsecutiveRejects
	BaseURLEnv                   = llmconf.BaseURLEnv
	// MaxTopLogprobs is the largest Request.TopLogprobs.
	MaxTopLogprobs = llmconf.MaxTopLogprobs
)
