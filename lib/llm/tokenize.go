package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ErrNoTokenizer is returned by Tokenize when the server has no
// /tokenize endpoint (OpenAI, TEI): the caller falls back to an estimate.
var ErrNoTokenizer = errors.New("llm: the server has no /tokenize endpoint")

// Tokenize counts the tokens of a chat's messages with the server's own
// tokenizer and chat template, through vLLM's /tokenize (served beside
// /v1, at the server's root). It is one request, without the client's
// retries or cache: `saber plan` measures a sample, and a server that
// does not answer simply gets the estimate.
func (c *Client) Tokenize(ctx context.Context, msgs []Message) (int, error) {
	base := strings.TrimSuffix(strings.TrimSuffix(c.cfg.BaseURL, "/"), "/v1")
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	body := struct {
		Model    string `json:"model"`
		Messages []msg  `json:"messages"`
	}{Model: c.cfg.Model}
	for _, m := range msgs {
		body.Messages = append(body.Messages, msg(m))
	}
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/tokenize", bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("llm: tokenize: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := (&http.Client{Transport: c.transport}).Do(req)
	if err != nil {
		return 0, fmt.Errorf("llm: tokenize at %s: %w", base, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return 0, ErrNoTokenizer
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("llm: tokenize at %s: HTTP %d", base, resp.StatusCode)
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, fmt.Errorf("llm: tokenize at %s: %w", base, err)
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	if out.Tokens == nil {
		return 0, ErrNoTokenizer
	}
	return len(out.Tokens), nil
}
