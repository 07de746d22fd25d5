package tag

import (
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/topics"
)

// NewLLMScorer is the stage's llm scorer (prompt F.1, re-asking an
// unparseable answer retries times) for callers outside a shard: `saber
// plan --measure` sends a sample through the same prompts and parsing the
// stage uses, so that its calls per document are the stage's.
func NewLLMScorer(c *llm.Client, retries int) (topics.Scorer, error) {
	p, err := prompts.Get("topics")
	if err != nil {
		return nil, err
	}
	return &llmScorer{client: c, prompt: p, retries: retries}, nil
}
