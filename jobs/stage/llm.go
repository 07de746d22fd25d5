package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
)

// LLMClient builds the stage's client for an OpenAI-compatible server,
// with its response cache in the run's storage (<run>/_cache/llm/), shared
// by every stage and shard: a rerun of a finished or interrupted shard
// finds its answers there and repeats no call. The step must declare
// Cache. Under `saber verify` answers are read from the run's cache and
// new ones written to the scratch storage only: verify never writes into
// the run's root.
func (e *Env) LLMClient(cfg llm.Config) (*llm.Client, error) {
	if !e.decl.Cache {
		return nil, &UndeclaredError{Stage: e.Stage, Step: e.Step, What: "the LLM cache"}
	}
	prefix := layout.LLMCachePrefix(e.Config.Run)
	cache := kvcache.New(e.Out, prefix)
	if e.Out != e.In {
		cache = kvcache.Layered(e.In, e.Out, prefix)
	}
	c, err := llm.New(cfg, cache)
	if err != nil {
		return nil, BadInput(err)
	}
	return c, nil
}

// RecordLLM puts the client's call statistics into the shard's manifest and
// log: calls made, answered from the cache, retried, failed, tokens, latency.
func (e *Env) RecordLLM(c *llm.Client) {
	s := c.Stats()
	e.Count("llm_calls", s.Calls)
	e.Count("llm_cached", s.Cached)
	e.Count("llm_retries", s.Retries)
	e.Count("llm_failures", s.Failures)
	e.Count("llm_prompt_tokens", s.PromptTokens)
	e.Count("llm_completion_tokens", s.CompletionTokens)
	e.Count("llm_latency_ms", s.LatencyTotal.Milliseconds())
	for kind, n := range s.ErrorsByKind {
		e.Count("llm_errors_"+kind, n)
	}
	e.Log.Info().Int64("calls", s.Calls).Int64("cached", s.Cached).Int64("retries", s.Retries).
		Int64("failures", s.Failures).Int64("prompt_tokens", s.PromptTokens).
		Int64("completion_tokens", s.CompletionTokens).Dur("latency_total", s.LatencyTotal).Msg("llm calls")
}

// AnswerHash names a raw answer in rejects without storing it.
func AnswerHash(raw string) string {
	h := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(h[:])
}

// UnparseableError is an answer that stayed invalid after every re-ask.
type UnparseableError struct {
	Raw string
	Err error
}

func (e *UnparseableError) Error() string {
	return fmt.Sprintf("answer %s unparseable: %v", AnswerHash(e.Raw)[:12], e.Err)
}

// Ask sends a prompt and parses the answer, re-asking up to retries times
// when parse fails. A re-ask carries its number in the prompt version, so
// it has its own cache entry (a cached bad answer is not served again).
func Ask[T any](ctx context.Context, c *llm.Client, p prompts.Prompt, data any, retries int, parse func(string) (T, error)) (T, error) {
	var zero T
	msgs, err := p.Render(data)
	if err != nil {
		return zero, err
	}
	var last *UnparseableError
	for attempt := 0; attempt <= retries; attempt++ {
		version := p.Version
		if attempt > 0 {
			version = fmt.Sprintf("%s+reask%d", p.Version, attempt)
		}
		resp, err := c.Chat(ctx, llm.Request{PromptVersion: version, Messages: msgs})
		if err != nil {
			return zero, err
		}
		v, perr := parse(resp.Content)
		if perr == nil {
			return v, nil
		}
		last = &UnparseableError{Raw: resp.Content, Err: perr}
	}
	return zero, last
}

// Reject turns a per-document failure into a reject row, or returns the
// error when it must stop the shard (interrupted, or a transient failure
// that outlived the client's retries: exit 75, and the rerun resumes from
// the cache).
func Reject(stageName, id string, err error) (*dataset.Reject, error) {
	var un *UnparseableError
	switch {
	case errors.As(err, &un):
		return &dataset.Reject{Input: stageName, ID: id, Reason: dataset.ReasonUnparseable,
			Detail: "answer sha256 " + AnswerHash(un.Raw) + ": " + un.Err.Error()}, nil
	case errors.Is(err, llm.ErrPermanent):
		return &dataset.Reject{Input: stageName, ID: id, Reason: dataset.ReasonLLMFailed, Detail: err.Error()}, nil
	}
	return nil, err
}

// Workers is the number of documents in flight.
func Workers(configured int, backendLLM bool, c llm.Config) int {
	switch {
	case configured > 0:
		return configured
	case backendLLM && c.Concurrency > 0:
		return c.Concurrency
	case backendLLM:
		return 16
	}
	return runtime.GOMAXPROCS(0)
}
