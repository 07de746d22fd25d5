package analyze

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/saber-math/saber/lib/llm/llmtest"
)

// With the llm backend each statement goes to the model with prompt F.5
// and the last \boxed{…} of its answer is split: the model may delimit
// maths the rules leave as words (q2's numbers), and a statement whose
// answers have no \boxed{…} after the re-asks is dropped and counted.
func TestAnalyzeLLMNormaliser(t *testing.T) {
	var calls atomic.Int32
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
		calls.Add(1)
		// The first user turn: a re-ask adds the bad answer and a
		// correction after it.
		p := req.Messages[len(req.Messages)-1].Content
		for _, m := range req.Messages {
			if m.Role == "user" {
				p = m.Content
				break
			}
		}
		if !strings.Contains(p, "UNIVERSAL MATH TAGGING") {
			t.Errorf("the prompt is not F.5: %.200s", p)
		}
		switch {
		case strings.Contains(p, "Input: Let $x$"):
			return `Here it is: \boxed{Let $x$ and $y$ be positive integers with $x + y = 10$. Find the largest value of $xy$.}`
		case strings.Contains(p, "Input: How many"):
			return `\boxed{How many ways can a committee of $3$ be chosen from a club of $7$ people?}`
		}
		return "I cannot format this."
	})
	cfg, root := setup(t, fmt.Sprintf("llm: {base_url: %q, model: fake-formatter, timeout_seconds: 5}\nanalyze: {backend: llm, parse_retries: 1}", srv.URL))
	rows := runStage(t, cfg, root)
	var got []string
	for _, r := range rows {
		got = append(got, r.Retriever+"/"+r.Query)
	}
	if want := []string{"bm25/q1", "bm25/q2", "jaccard/q1", "jaccard/q2"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	md := string(reportFile(t, cfg, root, ReportMathText+".md"))
	for _, want := range []string{`2 of 3 queries kept; 1 dropped: 1 normaliser answer without \boxed{…} (q3)`, "prompt F.5 (f5.v1) with fake-formatter"} {
		if !strings.Contains(md, want) {
			t.Errorf("mathtext.md lacks %q:\n%s", want, md)
		}
	}
	if calls.Load() != 4 { // q1, q2, and q3 asked twice (one re-ask)
		t.Errorf("%d calls, want 4", calls.Load())
	}
}
