package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

func TestRerankAndScore(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c := newClient(t, srv, nil, func(cfg *llm.Config) { cfg.Model = "fake-rerank" })
	docs := []string{"alpha beta", "gamma", "alpha", "delta epsilon zeta"}
	for _, call := range []struct {
		name string
		path string
		fn   func() ([]float64, error)
	}{
		// The fake answers rerank best first: the client must reorder.
		{"rerank", "/v1/rerank", func() ([]float64, error) { return c.Rerank(context.Background(), "", "alpha", docs) }},
		{"rerank at the root", "/rerank", func() ([]float64, error) { return c.Rerank(context.Background(), "../rerank", "alpha", docs) }},
		{"score", "/v1/score", func() ([]float64, error) { return c.Score(context.Background(), "", "alpha", docs) }},
		{"score at the root", "/score", func() ([]float64, error) { return c.Score(context.Background(), "../score", "alpha", docs) }},
	} {
		before := srv.RequestsTo(call.path)
		got, err := call.fn()
		if err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		for i, d := range docs {
			if want := llmtest.RelevanceScore("alpha", d); got[i] != want {
				t.Errorf("%s: doc %d: %v, want %v", call.name, i, got[i], want)
			}
		}
		if srv.RequestsTo(call.path) != before+1 {
			t.Errorf("%s: not sent to %s", call.name, call.path)
		}
	}
	if got, err := c.Rerank(context.Background(), "", "q", nil); err != nil || len(got) != 0 {
		t.Errorf("no documents: %v %v", got, err)
	}
	if st := c.Stats(); st.Calls != 5 || st.PromptTokens == 0 || st.Failures != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestRerankRetriesEveryFault: every transient fault kind on /rerank and
// /score is retried and the answer is exact.
func TestRerankRetriesEveryFault(t *testing.T) {
	for _, kind := range llmtest.AllTransient() {
		t.Run(kind.String(), func(t *testing.T) {
			srv := llmtest.NewServer(t, nil)
			srv.SetFaults(llmtest.Faults{Rate: 1, Max: 2, Kinds: []llmtest.Fault{kind}, SlowDelay: 300 * time.Millisecond})
			c := newClient(t, srv, nil, func(cfg *llm.Config) { cfg.TimeoutSeconds = 0.1 })
			got, err := c.Score(context.Background(), "", "q", []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			if got[1] != llmtest.RelevanceScore("q", "b") {
				t.Errorf("score %v", got)
			}
			if st := c.Stats(); st.Retries != 2 || st.ErrorsByKind[kindName(kind)] != 2 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func kindName(f llmtest.Fault) string {
	switch f {
	case llmtest.Fault500:
		return "http_500"
	case llmtest.Fault503:
		return "http_503"
	case llmtest.Fault429:
		return "http_429"
	case llmtest.FaultSlow:
		return "timeout"
	}
	return f.String()
}

// TestRerankRejectsIncompleteAnswers: an answer without exactly one score per
// document is retried, then fails; a 404 (no such endpoint) fails at once
// as a configuration error.
func TestRerankRejectsIncompleteAnswers(t *testing.T) {
	var body string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/rerank" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer hs.Close()
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", APIKeyEnv: "SABER_TEST_UNSET_KEY", MaxAttempts: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	llm.SetBackoff(c, time.Millisecond, time.Millisecond)
	for _, b := range []string{
		`{"results":[{"index":0,"relevance_score":0.5}]}`,
		`{"results":[{"index":0,"relevance_score":0.5},{"index":0,"relevance_score":0.1}]}`,
		`{"results":[{"index":0,"relevance_score":0.5},{"index":2,"relevance_score":0.1}]}`,
		`{"results":[{"index":0,"relevance_score":0.5},{"index":1}]}`,
	} {
		body = b
		if _, err := c.Rerank(context.Background(), "", "q", []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "giving up after 2 attempts") {
			t.Errorf("%s: %v", b, err)
		}
	}
	var ce *llm.ConfigError
	if _, err := c.Score(context.Background(), "", "q", []string{"a"}); !errors.As(err, &ce) || ce.Status != 404 || !strings.Contains(err.Error(), "score endpoint") {
		t.Errorf("404: %v; want a ConfigError naming the endpoint", err)
	}
}

func TestEmbedWithDimensionsAndExtra(t *testing.T) {
	var got map[string]any
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`)
	}))
	defer hs.Close()
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", APIKeyEnv: "SABER_TEST_UNSET_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.EmbedWith(context.Background(), []string{"x"}, llm.EmbedOptions{Dimensions: 2, Extra: map[string]any{"task_type": "RETRIEVAL_QUERY"}})
	if err != nil || len(v) != 1 || v[0][1] != 0.8 {
		t.Fatalf("%v %v", v, err)
	}
	if got["dimensions"] != 2.0 || got["task_type"] != "RETRIEVAL_QUERY" || got["model"] != "m" {
		t.Errorf("request body %v", got)
	}
	got = nil
	if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["dimensions"]; ok {
		t.Errorf("Embed sent dimensions: %v", got)
	}
}

func TestEmbedDimensionsAtTheFake(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	c := newClient(t, srv, nil, nil)
	v, err := c.EmbedWith(context.Background(), []string{"a"}, llm.EmbedOptions{Dimensions: 4})
	if err != nil || len(v[0]) != 4 {
		t.Fatalf("%v %v", v, err)
	}
	want := llmtest.Truncate(llmtest.EmbedVector("a"), 4)
	for i := range want {
		if v[0][i] != want[i] {
			t.Fatalf("%v, want %v", v[0], want)
		}
	}
}

func TestChatLogprobs(t *testing.T) {
	srv := llmtest.NewServer(t, func(llmtest.ChatRequest) string { return "yes" })
	var asked int
	srv.SetLogprobs(func(req llmtest.ChatRequest, content string) []llmtest.TokenLogprob {
		asked = req.TopLogprobs
		return []llmtest.TokenLogprob{{Token: "yes", Logprob: math.Log(0.75), Top: []llmtest.TopLogprob{{Token: "yes", Logprob: math.Log(0.75)}, {Token: "no", Logprob: math.Log(0.25)}}}}
	})
	cache := newMemCache()
	c := newClient(t, srv, cache, nil)
	req := userReq("relevant?")
	req.TopLogprobs = 5
	for k := 0; k < 2; k++ {
		resp, err := c.Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Cached || len(resp.Logprobs) != 1 || len(resp.Logprobs[0].Top) != 2 || resp.Logprobs[0].Top[1].Token != "no" ||
			math.Abs(math.Exp(resp.Logprobs[0].Top[1].Logprob)-0.25) > 1e-12 {
			t.Fatalf("response %+v", resp)
		}
	}
	if asked != 5 || srv.Requests() != 2 || cache.puts != 0 {
		t.Errorf("top_logprobs %d, %d requests, %d cache writes: logprob requests must not be cached", asked, srv.Requests(), cache.puts)
	}
	req.TopLogprobs = 21
	if _, err := c.Chat(context.Background(), req); !errors.Is(err, llm.ErrPermanent) {
		t.Errorf("top_logprobs 21: %v", err)
	}
}

func TestChatNoCache(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	cache := newMemCache()
	c := newClient(t, srv, cache, nil)
	req := userReq("hello")
	req.NoCache = true
	for k := 0; k < 2; k++ {
		if resp, err := c.Chat(context.Background(), req); err != nil || resp.Cached || resp.Content != "hello" {
			t.Fatalf("%+v %v", resp, err)
		}
	}
	if srv.Requests() != 2 || cache.puts != 0 || len(cache.m) != 0 {
		t.Errorf("%d requests, %d cache writes", srv.Requests(), cache.puts)
	}
}

// TestFakeDelay: the fake waits its delay before answering each request,
// so one request takes exactly the delay and five requests two at a time
// take ⌈5/2⌉ delays, as SetDelay promises. The clock is synctest's: the
// durations are exact however loaded the machine.
func TestFakeDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const delay = 50 * time.Millisecond
		srv := llmtest.NewPipeServer(t, nil)
		srv.SetDelay(delay)
		c := newPipeClient(t, srv, nil, func(cfg *llm.Config) { cfg.Concurrency = 2 })
		start := time.Now()
		if _, err := c.Embed(context.Background(), []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != delay {
			t.Errorf("one request took %v with a %v delay", d, delay)
		}
		start = time.Now()
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if _, err := c.Embed(context.Background(), []string{"b"}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if d := time.Since(start); d != 3*delay {
			t.Errorf("5 requests 2 at a time took %v, want ⌈5/2⌉ × %v = %v", d, delay, 3*delay)
		}
		if n := srv.MaxInFlight(); n != 2 {
			t.Errorf("%d requests in flight, want 2", n)
		}
	})
}

func TestRerankSendsTheAPIKey(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	srv.RequireAPIKey("sk-rerank-secret")
	t.Setenv("SABER_TEST_RERANK_KEY", "sk-rerank-secret")
	c := newClient(t, srv, nil, func(cfg *llm.Config) { cfg.APIKeyEnv = "SABER_TEST_RERANK_KEY" })
	if _, err := c.Rerank(context.Background(), "", "q", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Score(context.Background(), "", "q", []string{"a"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SABER_TEST_RERANK_KEY", "sk-wrong-secret")
	c = newClient(t, srv, nil, func(cfg *llm.Config) { cfg.APIKeyEnv = "SABER_TEST_RERANK_KEY" })
	_, err := c.Rerank(context.Background(), "", "q", []string{"a"})
	var ce *llm.ConfigError
	if !errors.As(err, &ce) || ce.Status != 401 || strings.Contains(err.Error(), "sk-wrong") {
		t.Errorf("wrong key: %v", err)
	}
}
