package llmcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
)

// greedyServer is what a server decoding greedily or with a fixed seed
// is: its answer is a function of the request body alone. It answers a
// body whose last message is a re-ask's correction with valid JSON and
// anything else with the same unparseable text, and records every body.
func greedyServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var bodies []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		var req struct {
			Messages []llm.Message `json:"messages"`
		}
		_ = json.Unmarshal(b, &req)
		answer := "Algebra: high"
		if last := req.Messages[len(req.Messages)-1]; strings.HasPrefix(last.Content, "That answer could not be used") {
			answer = `{"Algebra": 3}`
		}
		content, _ := json.Marshal(answer)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, content)
	}))
	t.Cleanup(hs.Close)
	return hs, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), bodies...) }
}

type mapCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *mapCache) Get(_ context.Context, k string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok, nil
}

func (c *mapCache) Put(_ context.Context, k string, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
	return nil
}

// TestReaskChangesTheRequest: after an unparseable answer the re-ask is a
// different request body (the bad answer as the assistant's turn, then a
// correction naming what was wrong), so a deterministic server can answer
// it differently; the re-ask has its own cache entry, and a rerun is
// served from the cache without a request. Sending the first body again,
// as before, would get the same bad answer every time.
func TestReaskChangesTheRequest(t *testing.T) {
	hs, bodies := greedyServer(t)
	cache := &mapCache{m: map[string][]byte{}}
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m"}, cache)
	if err != nil {
		t.Fatal(err)
	}
	p, err := prompts.Get(prompts.Topics)
	if err != nil {
		t.Fatal(err)
	}
	data := prompts.TopicsData{ProblemAndSolution: "Solve x+1=2.", Tags: "Algebra, Geometry"}
	parse := func(raw string) (map[string]float64, error) {
		var m map[string]float64
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			return nil, errors.New("not a JSON object")
		}
		return m, nil
	}
	ctx := context.Background()
	got, err := Ask(ctx, &Client{Client: c, Prompt: p, Retries: 2}, data, parse)
	if err != nil || got["Algebra"] != 3 {
		t.Fatalf("Ask = %v, %v; want the re-ask's answer", got, err)
	}
	b := bodies()
	if len(b) != 2 || b[0] == b[1] {
		t.Fatalf("%d requests, identical: %v; want 2 that differ", len(b), len(b) == 2 && b[0] == b[1])
	}
	var first, second struct {
		Messages []llm.Message `json:"messages"`
	}
	_ = json.Unmarshal([]byte(b[0]), &first)
	_ = json.Unmarshal([]byte(b[1]), &second)
	n := len(first.Messages)
	if len(second.Messages) != n+2 || second.Messages[n].Role != llm.RoleAssistant || second.Messages[n].Content != "Algebra: high" ||
		second.Messages[n+1].Role != llm.RoleUser || !strings.Contains(second.Messages[n+1].Content, "not a JSON object") {
		t.Errorf("re-ask messages %+v; want the first ask's, the bad answer, and a correction naming the error", second.Messages)
	}
	if len(cache.m) != 2 {
		t.Errorf("%d cache entries; want 2 (the ask and the re-ask)", len(cache.m))
	}
	if _, err := Ask(ctx, &Client{Client: c, Prompt: p, Retries: 2}, data, parse); err != nil || len(bodies()) != 2 {
		t.Errorf("rerun: %v after %d requests; want the cache's answers and no request", err, len(bodies())-2)
	}
}

// TestReaskBoundsTheQuotedAnswer: a long bad answer is quoted back cut at
// a rune boundary, not whole.
func TestReaskBoundsTheQuotedAnswer(t *testing.T) {
	raw := strings.Repeat("é", maxReaskAnswer)
	msgs := Reask([]llm.Message{{Role: llm.RoleUser, Content: "q"}}, raw, errors.New("bad"))
	if got := msgs[1].Content; len(got) > maxReaskAnswer || !strings.HasPrefix(raw, got) || len(got) < maxReaskAnswer-1 {
		t.Errorf("quoted %d bytes of %d", len(got), len(raw))
	}
}

// TestReasksAccumulate: a server that keeps giving the same bad answer (a
// greedy one) gets three different bodies, the second re-ask carrying the
// whole conversation: two identical re-asks would waste the second.
func TestReasksAccumulate(t *testing.T) {
	var bodies []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Algebra: high"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer hs.Close()
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := prompts.Get(prompts.Topics)
	_, err = Ask(context.Background(), &Client{Client: c, Prompt: p, Retries: 2}, prompts.TopicsData{ProblemAndSolution: "Solve x+1=2.", Tags: "Algebra"},
		func(raw string) (int, error) { return 0, errors.New("not a JSON object") })
	var ue *UnparseableError
	if !errors.As(err, &ue) || len(bodies) != 3 {
		t.Fatalf("Ask: %v after %d requests; want unparseable after 3", err, len(bodies))
	}
	var n []int
	for i, b := range bodies {
		var req struct {
			Messages []llm.Message `json:"messages"`
		}
		if err := json.Unmarshal([]byte(b), &req); err != nil {
			t.Fatal(err)
		}
		n = append(n, len(req.Messages))
		if i > 0 && b == bodies[i-1] {
			t.Errorf("request %d repeats request %d", i, i-1)
		}
	}
	if n[1] != n[0]+2 || n[2] != n[0]+4 {
		t.Errorf("messages per request %v; want each re-ask two turns longer", n)
	}
}
