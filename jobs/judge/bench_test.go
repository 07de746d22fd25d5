package judge_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/lib/prompts"
)

// BenchmarkJudgeOverhead is the judge's own cost per comparison — prompt
// rendering, the HTTP round trip to a zero-latency fake,
// answer parsing — with 16 comparisons in flight, no cache (the client has none here). Against a real
// model each comparison takes seconds; this is what saber adds to it.
func BenchmarkJudgeOverhead(b *testing.B) {
	srv := llmtest.NewServer(b, func(llmtest.ChatRequest) string { return "Sample 1 is closer.\n$\\boxed{1}$" })
	b.Setenv("SABER_BENCH_KEY", "k")
	client, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake", APIKeyEnv: "SABER_BENCH_KEY", Concurrency: 16, MaxAttempts: 3, TimeoutSeconds: 10}, nil)
	if err != nil {
		b.Fatal(err)
	}
	p, err := prompts.Get(prompts.Judge)
	if err != nil {
		b.Fatal(err)
	}
	j := &judge.LLMJudge{Client: &llmcall.Client{Client: client, Prompt: p, ModelID: "fake", Retries: 2}}
	text := func(i int) *readers.Doc {
		return &readers.Doc{ID: fmt.Sprint(i), Statement: fmt.Sprintf("Find all integers n such that n^2 + %d is prime.", i),
			Solution: "Consider n modulo 3 and apply Fermat's little theorem; the only case left is checked directly."}
	}
	target := text(0)
	b.SetParallelism(8) // 8 × GOMAXPROCS goroutines ≥ 16 in flight on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			v, err := j.Compare(context.Background(), target, text(i*2+1), text(i*2+2))
			if err != nil || v.Winner != 1 {
				b.Errorf("compare: %+v, %v", v, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/comparison")
}
