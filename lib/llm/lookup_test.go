package llm_test

import (
	"context"
	"testing"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// TestLookup: Lookup finds, with no client and no server, exactly what a
// client of the same generation settings cached, whatever server and key
// that client used, and misses for anything the model would see or decode
// differently, and for requests that are never cached.
func TestLookup(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.NewServer(t, llmtest.Echo)
	t.Setenv("SABER_TEST_LLM_KEY", "sk-test")
	seed := int64(3)
	cfg := llm.Config{BaseURL: srv.URL, Model: "m", APIKeyEnv: "SABER_TEST_LLM_KEY", Seed: &seed}
	cache := newMemCache()
	c, err := llm.New(cfg, cache)
	if err != nil {
		t.Fatal(err)
	}
	req := llm.Request{PromptVersion: "f2.v1", Messages: []llm.Message{{Role: llm.RoleUser, Content: "sum 1 and 2"}}}
	want, err := c.Chat(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	temp := 0.5
	for _, tc := range []struct {
		name string
		cfg  func(llm.Config) llm.Config
		req  func(llm.Request) llm.Request
		hit  bool
	}{
		{"same settings", nil, nil, true},
		{"another server and key variable", func(c llm.Config) llm.Config { c.BaseURL, c.APIKeyEnv = "http://elsewhere:1/v1", "NONE"; return c }, nil, true},
		{"another model", func(c llm.Config) llm.Config { c.Model = "n"; return c }, nil, false},
		{"another temperature", func(c llm.Config) llm.Config { c.Temperature = &temp; return c }, nil, false},
		{"no seed", func(c llm.Config) llm.Config { c.Seed = nil; return c }, nil, false},
		{"another prompt version", nil, func(r llm.Request) llm.Request { r.PromptVersion = "f2.v2"; return r }, false},
		{"another message", nil, func(r llm.Request) llm.Request {
			r.Messages = []llm.Message{{Role: llm.RoleUser, Content: "sum 1 and 3"}}
			return r
		}, false},
		{"NoCache", nil, func(r llm.Request) llm.Request { r.NoCache = true; return r }, false},
	} {
		cfg2, req2 := cfg, req
		if tc.cfg != nil {
			cfg2 = tc.cfg(cfg2)
		}
		if tc.req != nil {
			req2 = tc.req(req2)
		}
		before := srv.Requests()
		got, ok, err := llm.Lookup(ctx, cfg2, cache, req2)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if srv.Requests() != before {
			t.Errorf("%s: Lookup reached the server", tc.name)
		}
		if ok != tc.hit || ok && (got.Content != want.Content || !got.Cached || got.CompletionTokens != want.CompletionTokens) {
			t.Errorf("%s: Lookup = %+v, %v; want hit %v of %+v", tc.name, got, ok, tc.hit, want)
		}
	}
}
