package tag

import (
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/topics"
)

// NewLLMScorer is the stage's llm scorer (prompt F.1, re-asking an
// unparseable answer retries times) for callers outside a shard: the
// forecast's tests count the prompts the stage's traversals send.
func NewLLMScorer(c *llm.Client, retries int) (topics.Scorer, error) {
	p, err := prompts.Get(prompts.Topics)
	if err != nil {
		return nil, err
	}
	return &llmScorer{client: &llmcall.Client{Client: c, Prompt: p, Retries: retries}}, nil
}
