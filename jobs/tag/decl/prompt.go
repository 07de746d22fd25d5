package decl

import (
	"fmt"
	"strings"

	"github.com/saber-math/saber/lib/llmjson"
	"github.com/saber-math/saber/lib/topics"
)

// PromptData is F.1's template data for a text and the labels offered:
// the stage's scorer and its forecast (`saber plan`'s --measure and its
// look-up of a rebuild's prompts in the run's LLM cache) render the same
// bytes, so the plan sends what the stage sends and finds what it cached.
func PromptData(text topics.Text, labels []string) map[string]string {
	return map[string]string{"ProblemAndSolution": text.Statement + "\n\n" + text.Solution, "Tags": strings.Join(labels, ", ")}
}

// ParseScores reads an F.1 answer: a JSON object from tag label to score.
func ParseScores(raw string, labels []string) ([]float64, error) {
	m, err := llmjson.Object(raw)
	if err != nil {
		return nil, err
	}
	byLabel := map[string]float64{}
	for k, v := range m {
		f, ok := llmjson.Number(v)
		if !ok {
			return nil, fmt.Errorf("score of %q is %s, not a number", k, v)
		}
		byLabel[norm(k)] = max(f, 0)
	}
	out := make([]float64, len(labels))
	found := 0
	for i, l := range labels {
		if f, ok := byLabel[norm(l)]; ok {
			out[i] = f
			found++
		}
	}
	if found == 0 && len(labels) > 0 {
		return nil, fmt.Errorf("none of the %d offered tags is in the answer", len(labels))
	}
	return out, nil
}

func norm(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
