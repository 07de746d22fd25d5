package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/saber-math/saber/lib/llm"
)

// Answers as the servers send them. llamaServer* were recorded from
// .ci/llm-start.sh's llama-server (llama.cpp 80fb11a) asked the same
// prompt twice: the second found 74 of its 75 tokens in the slot's cache
// (the server evaluates at least the last one). vllm* have vLLM's shape
// with and without --enable-prompt-tokens-details.
const (
	llamaServerFirst  = `{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"{\"Algebra\": 1, \"Geometry\": 5,"}}],"created":1796531651,"model":"chat.gguf","system_fingerprint":"b1-80fb11a","object":"chat.completion","usage":{"completion_tokens":20,"prompt_tokens":75,"total_tokens":95,"prompt_tokens_details":{"cached_tokens":0}},"id":"chatcmpl-sL1M6K6ZyYQkV3CEcAKRhpZBNdYnjaT4","timings":{"cache_n":0,"prompt_n":75,"prompt_ms":18.355,"prompt_per_token_ms":0.24473333333333333,"prompt_per_second":4086.0800871697083,"predicted_n":20,"predicted_ms":53.238,"predicted_per_token_ms":2.802,"predicted_per_second":356.8879371877231}}`
	llamaServerSecond = `{"choices":[{"finish_reason":"length","index":0,"message":{"role":"assistant","content":"{\"Algebra\": 1, \"Geometry\":"}}],"created":1796531651,"model":"chat.gguf","system_fingerprint":"b1-80fb11a","object":"chat.completion","usage":{"completion_tokens":20,"prompt_tokens":75,"total_tokens":95,"prompt_tokens_details":{"cached_tokens":74}},"id":"chatcmpl-h75U2mY9CbdtttGgFc2ftQepUWp9kjCH","timings":{"cache_n":74,"prompt_n":1,"prompt_ms":2.849,"prompt_per_token_ms":2.849,"prompt_per_second":351.000351000351,"predicted_n":20,"predicted_ms":47.328,"predicted_per_token_ms":2.4909473684210526,"predicted_per_second":401.4536849222447}}`
	vllmDetails       = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"total_tokens":1210,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":1024}}}`
	vllmNoDetails     = `{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"total_tokens":1210,"completion_tokens":10,"prompt_tokens_details":null}}`
)

func TestServerPromptCache(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       llm.PromptCache
	}{
		{"llama-server first", llamaServerFirst, llm.PromptCache{Evaluated: 75, Cached: 0, Reported: true}},
		{"llama-server second", llamaServerSecond, llm.PromptCache{Evaluated: 1, Cached: 74, Reported: true}},
		{"vLLM with details", vllmDetails, llm.PromptCache{Evaluated: 176, Cached: 1024, Reported: true}},
		{"vLLM without details", vllmNoDetails, llm.PromptCache{Evaluated: 1200}},
		// timings win over usage: they are what the slot did.
		{"timings and usage disagree", `{"choices":[],"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":2}},"timings":{"prompt_n":3,"cache_n":7}}`, llm.PromptCache{Evaluated: 3, Cached: 7, Reported: true}},
		// timings without the counts (another server's object) fall back.
		{"foreign timings", `{"choices":[],"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":4}},"timings":{"total_ms":5}}`, llm.PromptCache{Evaluated: 6, Cached: 4, Reported: true}},
		{"cached above prompt", `{"choices":[],"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":40}}}`, llm.PromptCache{Evaluated: 0, Cached: 10, Reported: true}},
		{"negative timings", `{"choices":[],"timings":{"prompt_n":-3,"cache_n":-1}}`, llm.PromptCache{Reported: true}},
		{"no usage", `{"choices":[]}`, llm.PromptCache{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := llm.ServerPromptCache([]byte(tc.body)); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestChatCountsServerPromptCache: Chat puts the server's account on the
// response and adds it to the client's stats; an answer from saber's own
// cache is no server request and adds nothing.
func TestChatCountsServerPromptCache(t *testing.T) {
	bodies := []string{llamaServerFirst, llamaServerSecond, vllmDetails, vllmNoDetails}
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(bodies[int(n.Add(1)-1)%len(bodies)]))
	}))
	defer hs.Close()
	cache := newMemCache()
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", APIKeyEnv: "SABER_TEST_UNSET_KEY"}, cache)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := []llm.PromptCache{{Evaluated: 75, Reported: true}, {Evaluated: 1, Cached: 74, Reported: true}, {Evaluated: 176, Cached: 1024, Reported: true}, {Evaluated: 1200}}
	for i, w := range want {
		resp, err := c.Chat(ctx, userReq(string(rune('a'+i))))
		if err != nil {
			t.Fatal(err)
		}
		if resp.PromptCache != w {
			t.Errorf("request %d: %+v, want %+v", i, resp.PromptCache, w)
		}
	}
	hit, err := c.Chat(ctx, userReq("b"))
	if err != nil {
		t.Fatal(err)
	}
	if !hit.Cached || hit.PromptCache != (llm.PromptCache{}) {
		t.Errorf("saber cache hit: %+v", hit)
	}
	st := c.Stats()
	if st.PromptEvaluated != 75+1+176+1200 || st.PromptCached != 74+1024 || st.PromptCacheReports != 3 || n.Load() != 4 {
		t.Errorf("stats: evaluated %d cached %d reports %d after %d requests", st.PromptEvaluated, st.PromptCached, st.PromptCacheReports, n.Load())
	}
}
