package llmcall

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llamatest"
	"github.com/saber-math/saber/lib/prompts"
)

// TestRealServerReaskAtProxy: against a real server decoding greedily
// (llama-server's "chat" role: a random model without a grammar, so its
// answer to F.1 is never the JSON asked for), every re-ask that reaches
// the server, seen at a recording proxy, is a different body from the ask
// before it, and carries the previous answer. Byte-identical re-asks, as
// before, would get the same answer from this server every time.
func TestRealServerReaskAtProxy(t *testing.T) {
	target, err := url.Parse(llamatest.URL(t, "chat"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var bodies []string
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer hs.Close()
	temp := 0.0
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "tiny", Temperature: &temp, MaxTokens: 12}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := prompts.Get(prompts.Topics)
	var answers []string
	_, err = Ask(context.Background(), &Client{Client: c, Prompt: p, Retries: 2}, prompts.TopicsData{ProblemAndSolution: "Solve $x+1=2$. Solution: $x=1$.", Tags: "Algebra, Geometry"},
		func(raw string) (map[string]float64, error) {
			answers = append(answers, raw)
			var m map[string]float64
			return m, json.Unmarshal([]byte(raw), &m)
		})
	if err == nil {
		t.Skipf("the random model answered JSON (%q): nothing to re-ask", answers)
	}
	if len(bodies) != 3 {
		t.Fatalf("%d requests at the proxy; want 3 (an ask and 2 re-asks)", len(bodies))
	}
	for i := 1; i < len(bodies); i++ {
		if bodies[i] == bodies[i-1] {
			t.Errorf("re-ask %d is byte-identical to the request before it", i)
		}
		var req struct {
			Messages []llm.Message `json:"messages"`
		}
		if err := json.Unmarshal([]byte(bodies[i]), &req); err != nil || len(req.Messages) < 2 ||
			req.Messages[len(req.Messages)-2].Content != answers[i-1] || !strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "That answer could not be used") {
			t.Errorf("re-ask %d does not carry the previous answer %q and a correction: %s", i, answers[i-1], bodies[i])
		}
	}
	t.Logf("answers: %q", answers)
}
