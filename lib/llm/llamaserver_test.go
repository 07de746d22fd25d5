package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llamatest"
)

// TestRealServerErrors: the error paths as a real server (llama.cpp's
// llama-server, .ci/llm-start.sh) gives them, each a *ConfigError (exit 2)
// after one request that names the setting and quotes the server: 401 with
// a wrong key, 404 for /score (llama.cpp has none), 501 for an endpoint
// the server was not started with, 500 "input too large" for a text longer
// than its physical batch (512 tokens), and vectors longer than the
// `dimensions` it ignores.
func TestRealServerErrors(t *testing.T) {
	chat, keyed := llamatest.URL(t, "chat"), llamatest.URL(t, "keyed")
	embed, rerank := llamatest.URL(t, "embed"), llamatest.URL(t, "rerank")
	t.Setenv("SABER_TEST_LLAMA_KEY", "sk-wrong-key")
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 80) // ~720 tokens
	for _, tc := range []struct {
		name, url string
		call      func(context.Context, *llm.Client) error
		status    int
		setting   string
		want      string // in the message
	}{
		{"401-wrong-key", keyed, func(ctx context.Context, c *llm.Client) error {
			_, err := c.Chat(ctx, userReq("hi"))
			return err
		}, 401, "t.api_key_env", "was refused"},
		{"404-score", rerank, func(ctx context.Context, c *llm.Client) error {
			_, err := c.Score(ctx, "", "q", []string{"a"})
			return err
		}, 404, "t.model", "404 Not Found"},
		{"501-embeddings", chat, func(ctx context.Context, c *llm.Client) error {
			_, err := c.Embed(ctx, []string{"a"})
			return err
		}, 501, "t.base_url", "does not support embeddings"},
		{"501-rerank", embed, func(ctx context.Context, c *llm.Client) error {
			_, err := c.Rerank(ctx, "", "q", []string{"a"})
			return err
		}, 501, "t.base_url", "does not support reranking"},
		{"500-too-large", embed, func(ctx context.Context, c *llm.Client) error {
			_, err := c.Embed(ctx, []string{long})
			return err
		}, 500, "t.max_input", "too large to process"},
		{"dimensions-ignored", embed, func(ctx context.Context, c *llm.Client) error {
			_, err := c.EmbedWith(ctx, []string{"a"}, llm.EmbedOptions{Dimensions: 8})
			return err
		}, 0, "t.dimensions", "vectors of 64 dimensions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := llm.New(llm.Config{BaseURL: tc.url, Model: "any", APIKeyEnv: "SABER_TEST_LLAMA_KEY", MaxAttempts: 4, Settings: "t"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(context.Background(), c)
			var ce *llm.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v; want a ConfigError", err)
			}
			s := c.Stats()
			if ce.Status != tc.status || ce.Setting != tc.setting || ce.ExitCode() != 2 || s.Retries != 0 {
				t.Errorf("%+v after %d retries; want status %d, setting %s, exit 2, no retry", ce, s.Retries, tc.status, tc.setting)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestRealServerInfo: llama-server's model list gives the model file's id
// and its size (n_params, bytes), and its chat answers a
// system_fingerprint, whatever model name the client sent.
func TestRealServerInfo(t *testing.T) {
	c, err := llm.New(llm.Config{BaseURL: llamatest.URL(t, "judge"), Model: "gpt-oss-120b", MaxTokens: 8, Temperature: f64(0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Chat(ctx, userReq("Which is better? Answer \\boxed{1} or \\boxed{2}.")); err != nil {
		t.Fatal(err)
	}
	info := c.ServerInfo(ctx)
	if len(info.Models) != 1 || !strings.Contains(info.Models[0].ID, "chat") || info.Models[0].Meta["n_params"] <= 0 || info.ModelsError != "" {
		t.Errorf("models %+v (%s); want the one chat model with its size", info.Models, info.ModelsError)
	}
	if len(info.Fingerprints) != 1 {
		t.Errorf("fingerprints %v; want the server's one", info.Fingerprints)
	}
}

// TestRealServerPromptCache: a real llama-server reports its prefix cache
// on every answer, and a second request that starts like the first is
// mostly served from it: the two parts add up to the prompt, and the
// client's stats add them up. The tag server: its grammar keeps the
// random model's answer to valid UTF-8 (the chat server's may not be).
func TestRealServerPromptCache(t *testing.T) {
	c, err := llm.New(llm.Config{BaseURL: llamatest.URL(t, "tag"), Model: "tiny", MaxTokens: 4, APIKeyEnv: "SABER_TEST_UNSET_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	shared := strings.Repeat("A long shared instruction that every request of this test starts with. ", 20)
	ctx := context.Background()
	var sum llm.PromptCache
	for i, tail := range []string{"First question: what is 1+1?", "Second question: what is 2+2?"} {
		r, err := c.Chat(ctx, llm.Request{PromptVersion: "t.v1", Messages: []llm.Message{{Role: llm.RoleUser, Content: shared + tail}}})
		if err != nil {
			t.Fatal(err)
		}
		pc := r.PromptCache
		if !pc.Reported || pc.Evaluated+pc.Cached != r.PromptTokens {
			t.Errorf("request %d: %+v for %d prompt tokens", i, pc, r.PromptTokens)
		}
		if i == 1 && pc.Cached < r.PromptTokens/2 {
			t.Errorf("the second request, sharing its start with the first, had %d of %d prompt tokens from the server's cache", pc.Cached, r.PromptTokens)
		}
		t.Logf("request %d: %d evaluated, %d from the server's cache", i, pc.Evaluated, pc.Cached)
		sum.Evaluated += pc.Evaluated
		sum.Cached += pc.Cached
	}
	if st := c.Stats(); st.PromptEvaluated != int64(sum.Evaluated) || st.PromptCached != int64(sum.Cached) || st.PromptCacheReports != 2 {
		t.Errorf("stats %+v, want the answers' sums %+v", st, sum)
	}
}
