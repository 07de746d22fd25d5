package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"
)

// This file holds the scoring endpoints the OpenAI API does not have but
// vLLM, Jina, Cohere and compatible servers do, and the log-probabilities of
// chat answers. They go through the same retries, concurrency limit, rate
// limit and statistics as Chat and Embed, and are never cached.

// Default paths of the scoring endpoints, relative to the base URL: with
// base_url http://host:8000/v1 they are vLLM's /v1/rerank and /v1/score. A
// path may climb out of the base URL ("../score" is the server's /score)
// but never leave its host.
const (
	DefaultRerankPath = "rerank"
	DefaultScorePath  = "score"
)

// TokenLogprob is one generated token with its natural-log probability and
// the most likely alternatives at its position (the chosen token is usually
// among them).
type TokenLogprob struct {
	Token   string
	Logprob float64
	Top     []TopLogprob
}

// TopLogprob is one alternative at a token position.
type TopLogprob struct {
	Token   string
	Logprob float64
}

func tokenLogprobs(in []wireTokenLogprob) []TokenLogprob {
	out := make([]TokenLogprob, len(in))
	for i, t := range in {
		out[i] = TokenLogprob{Token: t.Token, Logprob: t.Logprob, Top: make([]TopLogprob, len(t.TopLogprobs))}
		for j, a := range t.TopLogprobs {
			out[i].Top[j] = TopLogprob{Token: a.Token, Logprob: a.Logprob}
		}
	}
	return out
}

// RerankRequest is the body of a /rerank call in the form vLLM, Jina and
// Cohere share.
type RerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n,omitempty"`
}

// ScoreRequest is the body of vLLM's /score call: text_1 is scored against
// every text of text_2.
type ScoreRequest struct {
	Model string   `json:"model"`
	Text1 string   `json:"text_1"`
	Text2 []string `json:"text_2"`
}

type wireUsage struct {
	PromptTokens int64 `json:"prompt_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

type rerankResponse struct {
	Results []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
	Usage wireUsage `json:"usage"`
}

type scoreResponse struct {
	Data []struct {
		Index *int     `json:"index"`
		Score *float64 `json:"score"`
	} `json:"data"`
	Usage wireUsage `json:"usage"`
}

// Rerank scores every document against query with a cross-encoder served
// at path (DefaultRerankPath when empty), in one request: body {model,
// query, documents, top_n = len(documents)}, answer results[{index,
// relevance_score}] in any order. It returns the scores in document order.
// An answer without exactly one finite score per document is retried like a
// malformed one. Callers bound the documents per request (serving parity,
// App. C.5).
func (c *Client) Rerank(ctx context.Context, path, query string, docs []string) ([]float64, error) {
	if path == "" {
		path = DefaultRerankPath
	}
	body := RerankRequest{Model: c.cfg.Model, Query: query, Documents: docs, TopN: len(docs)}
	return c.scoreCall(ctx, "rerank", path, body, len(docs), func(raw []byte) ([]int, []float64, int64, error) {
		var r rerankResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, nil, 0, err
		}
		idx, sc := make([]int, len(r.Results)), make([]float64, len(r.Results))
		for i, x := range r.Results {
			if x.Index == nil || x.RelevanceScore == nil {
				return nil, nil, 0, fmt.Errorf("llm: rerank result %d lacks index or relevance_score: %w", i, errEmptyChoices)
			}
			idx[i], sc[i] = *x.Index, *x.RelevanceScore
		}
		return idx, sc, max(r.Usage.PromptTokens, r.Usage.TotalTokens), nil
	})
}

// Score scores every text of text2 against text1 with vLLM's score API at
// path (DefaultScorePath when empty): body {model, text_1, text_2}, answer
// data[{index, score}]. It returns the scores in the order of text2.
func (c *Client) Score(ctx context.Context, path, text1 string, text2 []string) ([]float64, error) {
	if path == "" {
		path = DefaultScorePath
	}
	body := ScoreRequest{Model: c.cfg.Model, Text1: text1, Text2: text2}
	return c.scoreCall(ctx, "score", path, body, len(text2), func(raw []byte) ([]int, []float64, int64, error) {
		var r scoreResponse
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, nil, 0, err
		}
		idx, sc := make([]int, len(r.Data)), make([]float64, len(r.Data))
		for i, x := range r.Data {
			if x.Index == nil || x.Score == nil {
				return nil, nil, 0, fmt.Errorf("llm: score item %d lacks index or score: %w", i, errEmptyChoices)
			}
			idx[i], sc[i] = *x.Index, *x.Score
		}
		return idx, sc, max(r.Usage.PromptTokens, r.Usage.TotalTokens), nil
	})
}

// scoreCall posts body to path and decodes n scores with decode, which
// returns each result's document index and score and the tokens used.
func (c *Client) scoreCall(ctx context.Context, op, path string, body any, n int,
	decode func([]byte) ([]int, []float64, int64, error)) ([]float64, error) {
	c.calls.Add(1)
	if n == 0 {
		return []float64{}, nil
	}
	var scores []float64
	var tokens int64
	start := time.Now()
	_, err := c.retry(ctx, op, func(actx context.Context, res **http.Response) error {
		var raw []byte
		if err := c.call(actx, http.MethodPost, path, body, &raw, res); err != nil {
			return err
		}
		idx, sc, tok, err := decode(raw)
		if err != nil {
			return err
		}
		if len(idx) != n {
			return fmt.Errorf("llm: %s: %d scores for %d documents: %w", op, len(idx), n, errEmptyChoices)
		}
		out := make([]float64, n)
		seen := make([]bool, n)
		for i, k := range idx {
			if k < 0 || k >= n || seen[k] {
				return fmt.Errorf("llm: %s: result index %d is out of range or repeated (%d documents): %w", op, k, n, errEmptyChoices)
			}
			if math.IsNaN(sc[i]) || math.IsInf(sc[i], 0) {
				return fmt.Errorf("llm: %s: score of document %d is not finite: %w", op, k, errEmptyChoices)
			}
			seen[k] = true
			out[k] = sc[i]
		}
		scores, tokens = out, tok
		return nil
	})
	c.latency.Add(int64(time.Since(start)))
	if err != nil {
		c.failures.Add(1)
		return nil, err
	}
	c.promptTokens.Add(tokens)
	return scores, nil
}
