package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/saber-math/saber/lib/llm"
)

// TestRepeatingServerErrorsStopAtOnce: a 501 (an endpoint the server was
// not started with) and a 500 whose message says the input is too large
// (llama.cpp's physical batch) repeat on every attempt, so they end the
// call after one request with a *ConfigError (exit 2) that quotes the
// server's message and names the setting; any other 500 is still retried.
// The bodies are llama-server's own.
func TestRepeatingServerErrorsStopAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, op string
		code     int
		body     string
		setting  string // "" for a 500 that is retried
		want     []string
	}{
		{"501-embed", "embed", 501, `{"error":{"code":501,"message":"This server does not support embeddings. Start it with ` + "`--embeddings`" + `","type":"not_supported_error"}}`,
			"retrievers.e5.base_url", []string{"does not serve the embed endpoint", "501", "--embeddings", "does not support embeddings"}},
		{"501-rerank", "rerank", 501, `{"error":{"code":501,"message":"This server does not support reranking. Start it with ` + "`--reranking`" + `","type":"not_supported_error"}}`,
			"retrievers.e5.base_url", []string{"rerank endpoint", "does not support reranking"}},
		{"500-too-large-embed", "embed", 500, `{"error":{"code":500,"message":"input (525 tokens) is too large to process. increase the physical batch size (current batch size: 512)","type":"server_error"}}`,
			"retrievers.e5.max_input", []string{"too large to process", "retrievers.e5.max_input", "525 tokens"}},
		{"500-too-large-rerank", "rerank", 500, `{"error":{"code":500,"message":"input (900 tokens) is too large to process. increase the physical batch size","type":"server_error"}}`,
			"retrievers.e5.max_input", []string{"900 tokens"}},
		{"500-too-large-chat", "chat", 500, `{"error":{"code":500,"message":"the request exceeds the available context size, input is too large to process","type":"server_error"}}`,
			"", []string{"shorten the inputs", "llama-server -b/-ub/-c"}},
		{"500-other", "embed", 500, `{"error":{"code":500,"message":"boom","type":"server_error"}}`, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.code)
				io.WriteString(w, tc.body)
			}))
			defer hs.Close()
			c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", MaxAttempts: 3, Settings: "retrievers.e5"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			llm.SetBackoff(c, 0, 0)
			ctx := context.Background()
			switch tc.op {
			case "embed":
				_, err = c.Embed(ctx, []string{"a"})
			case "rerank":
				_, err = c.Rerank(ctx, "", "q", []string{"a"})
			default:
				_, err = c.Chat(ctx, userReq("hi"))
			}
			var ce *llm.ConfigError
			permanent := tc.want != nil
			if !permanent {
				if !errors.Is(err, llm.ErrExhausted) || n.Load() != 3 {
					t.Fatalf("err = %v after %d requests; want exhausted after 3", err, n.Load())
				}
				return
			}
			if !errors.As(err, &ce) || errors.Is(err, llm.ErrExhausted) || n.Load() != 1 {
				t.Fatalf("err = %v after %d requests; want a ConfigError after 1", err, n.Load())
			}
			if ce.ExitCode() != 2 || ce.Setting != tc.setting || ce.Status != tc.code {
				t.Errorf("ConfigError %+v; want setting %q, status %d, exit 2", ce, tc.setting, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestEmbedDimensionsChecked: a server that ignores `dimensions` (llama.cpp,
// TEI) returns full-size vectors; the client fails with a ConfigError that
// names the setting and both lengths instead of comparing them as
// truncated ones, and sends nothing more. Without dimensions any length
// is the model's.
func TestEmbedDimensionsChecked(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","model":"m","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3,0.4]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`)
	}))
	defer hs.Close()
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m", Settings: "retrievers.e5"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if v, err := c.EmbedWith(ctx, []string{"a"}, llm.EmbedOptions{}); err != nil || len(v[0]) != 4 {
		t.Fatalf("without dimensions: %v, %v", v, err)
	}
	if v, err := c.EmbedWith(ctx, []string{"a"}, llm.EmbedOptions{Dimensions: 4}); err != nil || len(v[0]) != 4 {
		t.Fatalf("dimensions 4: %v, %v", v, err)
	}
	_, err = c.EmbedWith(ctx, []string{"a"}, llm.EmbedOptions{Dimensions: 2})
	var ce *llm.ConfigError
	if !errors.As(err, &ce) || ce.Setting != "retrievers.e5.dimensions" || ce.ExitCode() != 2 {
		t.Fatalf("dimensions 2 answered with 4: err = %v; want a ConfigError naming retrievers.e5.dimensions", err)
	}
	for _, w := range []string{"is 2", "vectors of 4 dimensions", "set retrievers.e5.dimensions to 4"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// TestServerInfo: the model list (llama.cpp's answer shape: id and a meta
// object with sizes; vLLM's max_model_len) and the chat answers'
// system_fingerprint are what ServerInfo gives, fetched once; a client
// that sent nothing asks nothing.
func TestServerInfo(t *testing.T) {
	var models atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			models.Add(1)
			io.WriteString(w, `{"object":"list","data":[{"id":"chat.gguf","object":"model","created":1764612000,"owned_by":"llamacpp","max_model_len":2048,"meta":{"vocab_type":1,"n_vocab":32000,"n_ctx_train":2048,"n_embd":64,"n_params":4326464,"size":17305856}}]}`)
			return
		}
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"m","system_fingerprint":"b0-80fb11ac","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	defer hs.Close()
	ctx := context.Background()
	idle, _ := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m"}, nil)
	if info := idle.ServerInfo(ctx); len(info.Models) != 0 || models.Load() != 0 {
		t.Fatalf("a client that sent nothing: %+v after %d GETs", info, models.Load())
	}
	c, _ := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "any-name"}, nil)
	if _, err := c.Chat(ctx, userReq("hi")); err != nil {
		t.Fatal(err)
	}
	c.ServerInfo(ctx)
	info := c.ServerInfo(ctx)
	if models.Load() != 1 {
		t.Errorf("%d GET /models; want 1", models.Load())
	}
	if len(info.Models) != 1 || info.Models[0].ID != "chat.gguf" || info.Models[0].Meta["n_params"] != 4326464 ||
		info.Models[0].Meta["size"] != 17305856 || info.Models[0].Meta["max_model_len"] != 2048 || info.Models[0].Meta["created"] != 0 {
		t.Errorf("models %+v", info.Models)
	}
	if fmt.Sprint(info.Fingerprints) != "[b0-80fb11ac]" || info.ModelsError != "" {
		t.Errorf("fingerprints %v, models error %q", info.Fingerprints, info.ModelsError)
	}
}
