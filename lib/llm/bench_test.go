package llm_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// BenchmarkChat measures the client's hot path: concurrency 16, no cache,
// against a zero-latency fake on the same machine (which shares the CPUs).
// The target is ≥ 2,000 req/s on 2 cores: go test -bench Chat -cpu 2.
func BenchmarkChat(b *testing.B) {
	srv := llmtest.NewServer(b, func(llmtest.ChatRequest) string { return `{"algebra": 1.0, "geometry": 0.2}` })
	c := newClient(b, srv, nil, func(cfg *llm.Config) { cfg.Concurrency = 16; cfg.Seed = i64(1); cfg.Temperature = f64(0) })
	req := llm.Request{PromptVersion: "f1.v1", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are an Expert Mathematical Annotator."},
		{Role: llm.RoleUser, Content: "# Mathematical Text:\nFind all real x with x^2 = 4.\n\nWith respect to the above text, assign relevance scores to the following tags and return the results in JSON:\nalgebra, geometry"},
	}}
	ctx := context.Background()
	if _, err := c.Chat(ctx, req); err != nil { // warm the connection pool
		b.Fatal(err)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if _, err := c.Chat(ctx, req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}
