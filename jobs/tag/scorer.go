package tag

import (
	"strings"

	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/topics"
)

// NewLLMScorer is the stage's llm scorer (prompt F.1, re-asking an
// unparseable answer retries times) for callers outside a shard: `saber
// plan --measure` sends a sample through the same prompts and parsing the
// stage uses, so that its calls per document are the stage's.
func NewLLMScorer(c *llm.Client, retries int) (topics.Scorer, error) {
	p, err := prompts.Get(prompts.Topics)
	if err != nil {
		return nil, err
	}
	return &llmScorer{client: &llmcall.Client{Client: c, Prompt: p, Retries: retries}}, nil
}

// PromptData is F.1's template data for a text and the labels offered:
// the stage's scorer and `saber plan`'s look-up of a rebuild's prompts in
// the run's LLM cache render the same bytes, so the plan finds what the
// stage cached.
func PromptData(text topics.Text, labels []string) map[string]string {
	return map[string]string{"ProblemAndSolution": text.Statement + "\n\n" + text.Solution, "Tags": strings.Join(labels, ", ")}
}
