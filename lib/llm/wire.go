package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// This file is the client's HTTP layer: the OpenAI wire format of the few
// calls saber makes (chat completions, embeddings, and the scoring and
// model-list endpoints compatible servers add), spoken with net/http and
// encoding/json. It replaced github.com/openai/openai-go, whose generated
// API surface put some 20 MB into every binary that asks a model (a stage
// binary is otherwise about 28 MB), for a handful of JSON fields; the
// retries, limits and error classes around it were already ours
// (retry.go).

// apiError is a status ≥ 400 with what the server said about it.
type apiError struct {
	Status  int
	Message string // the server's message, "" when its body had none
}

func (e *apiError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
}

// errorMessage finds the message in an error body, in the shapes servers
// send: OpenAI's and llama.cpp's {"error": {"message": …}}, {"error": "…"},
// and vLLM's and FastAPI's top-level {"message": …} or {"detail": "…"}.
func errorMessage(body []byte) string {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	var inner struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b.Error, &inner) == nil && inner.Message != "" {
		return inner.Message
	}
	for _, raw := range []json.RawMessage{b.Error, b.Message, b.Detail} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// endpoint resolves path against the base URL as a directory ("rerank" →
// <base>/rerank, "../score" → the base's parent's /score), on the base's
// host only.
func (c *Client) endpoint(path string) (string, error) {
	base := c.base
	ref, err := url.Parse(path)
	if err != nil {
		return "", fmt.Errorf("llm: path %q: %w", path, err)
	}
	u := base.ResolveReference(ref)
	if u.Host != base.Host || u.Scheme != base.Scheme {
		return "", fmt.Errorf("llm: path %q leaves the server %s: %w", path, base.Host, ErrPermanent)
	}
	return u.String(), nil
}

// call makes one request: body (nil for GET) as JSON to path, and the
// answer's body in *raw. *res is the response whatever its status, so that
// retry classifies a failure by status and headers. A status ≥ 400 is an
// *apiError; a body cut short is "error reading response body", as the
// retries name a truncated answer.
func (c *Client) call(ctx context.Context, method, path string, body any, raw *[]byte, res **http.Response) error {
	u, err := c.endpoint(path)
	if err != nil {
		return err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("llm: encoding request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	r, err := c.http.Do(req)
	if err != nil {
		return err
	}
	*res = r
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode >= 400 {
		return &apiError{Status: r.StatusCode, Message: errorMessage(b)}
	}
	if err != nil {
		return fmt.Errorf("error reading response body: %w", err)
	}
	*raw = b
	return nil
}

// postJSON posts body to path and decodes the answer into out.
func (c *Client) postJSON(ctx context.Context, path string, body, out any, res **http.Response) error {
	var raw []byte
	if err := c.call(ctx, http.MethodPost, path, body, &raw, res); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("error parsing response json: %w", err)
	}
	return nil
}

// chatRequest is the body of POST chat/completions. Optional fields are
// pointers or omitted when zero, so that an unset temperature is the
// server's default while a set 0 is sent.
type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	Temperature         *float64      `json:"temperature,omitempty"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string        `json:"reasoning_effort,omitempty"`
	Seed                *int64        `json:"seed,omitempty"`
	Logprobs            bool          `json:"logprobs,omitempty"`
	TopLogprobs         int           `json:"top_logprobs,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatResponse is what saber reads of a chat completion. The fields a
// server may get wrong without making the answer wrong (usage, the
// fingerprint) are read leniently (number).
type chatResponse struct {
	Choices []struct {
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Logprobs *struct {
			Content []wireTokenLogprob `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage struct {
		PromptTokens        number `json:"prompt_tokens"`
		CompletionTokens    number `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *number `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	SystemFingerprint json.RawMessage `json:"system_fingerprint"`
	// Timings is llama-server's account of the request (its extra field).
	Timings *llamaTimings `json:"timings"`
}

type wireTokenLogprob struct {
	Token       string  `json:"token"`
	Logprob     float64 `json:"logprob"`
	TopLogprobs []struct {
		Token   string  `json:"token"`
		Logprob float64 `json:"logprob"`
	} `json:"top_logprobs"`
}

// embeddingResponse is what saber reads of an embeddings answer.
type embeddingResponse struct {
	Data []struct {
		Index     number    `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens number `json:"prompt_tokens"`
	} `json:"usage"`
}

// number is a JSON number read leniently: anything else (a string, null,
// an object) is 0, as the statistics a server reports are not worth a
// retry.
type number int64

func (n *number) UnmarshalJSON(b []byte) error {
	if f, err := strconv.ParseFloat(string(b), 64); err == nil {
		*n = number(f)
	} else {
		*n = 0
	}
	return nil
}

// text is a JSON string, or "" for anything else.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
