package llm

import "github.com/saber-math/saber/lib/llmconf"

// Config is the client's configuration. It lives in lib/llmconf so that a
// run config can hold and check it without linking this client.
type Config = llmconf.Config

// The defaults and limits of Config that this package and its callers use, from lib/llmconf.
const (
	DefaultConcurrency           = llmconf.DefaultConcurrency
	DefaultMaxConsecutiveRejects = llmconf.DefaultMaxConsecutiveRejects
	BaseURLEnv                   = llmconf.BaseURLEnv
	// MaxTopLogprobs is the largest Request.TopLogprobs.
	MaxTopLogprobs = llmconf.MaxTopLogprobs
)
