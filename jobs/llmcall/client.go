// Package llmcall is what the LLM stages share at run time: the client
// for a stage's llmstage.Options, asking with bounded re-asks, rejecting
// a document, and the invalid-share check. It links the LLM client
// (lib/llm); the options block the stages' config sections embed stays in
// jobs/llmstage, which does not, so that jobs/config and the stage
// binaries that ask no model do not link it either.
package llmcall

import (
	"context"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/prompts"
)

// Client is an LLM stage's client with what its asks need: the prompt
// they render, the model the rows name and the re-asks after an
// unparseable answer. Its Backend, Model and PromptVersion are what a
// stage's rows record of the answers' origin; a stage's backend type
// embeds it for them.
type Client struct {
	*llm.Client
	Prompt prompts.Prompt
	// ModelID is the configured model name.
	ModelID string
	// Retries is the re-asks after an unparseable answer (parse_retries).
	Retries int
}

// Backend is llmstage.BackendLLM.
func (c *Client) Backend() string { return llmstage.BackendLLM }

// Model is the configured model name.
func (c *Client) Model() string { return c.ModelID }

// PromptVersion is the version of the prompt asked (a re-ask's is
// ReaskVersion's; the rows record the first's).
func (c *Client) PromptVersion() string { return c.Prompt.Version }

// New builds the client of a shard of a stage that asks a model with the
// prompt named prompt, from the run's llm settings with the options'
// override, and the function that puts its statistics into the shard's
// manifest (Record) once the shard is done.
func New(env *stage.Env, o *llmstage.Options, prompt string) (*Client, func(), error) {
	return NewFor(env, o.LLMConfig(env.Config), o.ParseRetries, prompt)
}

// NewFor is New for a section without Options (analyze's normaliser):
// the client of lcfg (NewClient), re-asking retries times.
func NewFor(env *stage.Env, lcfg llm.Config, retries int, prompt string) (*Client, func(), error) {
	c, err := NewClient(env, lcfg)
	if err != nil {
		return nil, nil, err
	}
	p, err := prompts.Get(prompt)
	if err != nil {
		return nil, nil, err
	}
	return &Client{Client: c, Prompt: p, ModelID: lcfg.Model, Retries: retries}, func() { Record(env, c) }, nil
}

// NewClient builds the shard's client for an OpenAI-compatible server,
// with its response cache in the run's storage (<run>/_cache/llm/,
// stage.Env.LLMCache), shared by every stage and shard: a rerun of a
// finished or interrupted shard finds its answers there and repeats no
// call. The step must declare Cache. Under `saber verify` answers are
// read from the run's cache and new ones written to the scratch storage
// only: verify never writes into the run's root.
func NewClient(env *stage.Env, cfg llm.Config) (*llm.Client, error) {
	cache, err := env.LLMCache()
	if err != nil {
		return nil, err
	}
	c, err := llm.New(cfg, cache)
	if err != nil {
		return nil, stage.BadInput(err)
	}
	return c, nil
}

// Statistics of the server's prompt cache every LLM stage records, so
// that `saber stats` shows the share of prompt tokens the server served
// from its prefix cache: tokens it evaluated, tokens it reused, and the
// answers that said (a server that reports nothing counts its whole
// prompt as evaluated). Answers from saber's own LLM cache count in
// neither: they were no server request.
const (
	StatPromptEvaluated    = "llm_prompt_evaluated"
	StatPromptCached       = "llm_prompt_cached"
	StatPromptCacheReports = "llm_prompt_cache_reports"
)

// Record puts the client's call statistics into the shard's manifest and
// log: calls made, answered from the cache, retried, failed, tokens (and
// of the prompt tokens, those the server evaluated and those it took from
// its prefix cache), latency, and the time the server was busy with the shard's requests
// (llm_busy_ms: what `saber plan --compare` sets beside the GPU-hours
// forecast). The manifest also describes the client's server
// (describeServer) once the shard has succeeded.
func Record(env *stage.Env, c *llm.Client) {
	s := c.Stats()
	env.Count("llm_calls", s.Calls)
	env.Count("llm_cached", s.Cached)
	env.Count("llm_retries", s.Retries)
	env.Count("llm_failures", s.Failures)
	env.Count("llm_prompt_tokens", s.PromptTokens)
	env.Count("llm_completion_tokens", s.CompletionTokens)
	env.Count(StatPromptEvaluated, s.PromptEvaluated)
	env.Count(StatPromptCached, s.PromptCached)
	env.Count(StatPromptCacheReports, s.PromptCacheReports)
	env.Count("llm_latency_ms", s.LatencyTotal.Milliseconds())
	env.Count("llm_busy_ms", s.Busy.Milliseconds())
	for kind, n := range s.ErrorsByKind {
		env.Count("llm_errors_"+kind, n)
	}
	env.Log.Info().Int64("calls", s.Calls).Int64("cached", s.Cached).Int64("retries", s.Retries).
		Int64("failures", s.Failures).Int64("prompt_tokens", s.PromptTokens).
		Int64("completion_tokens", s.CompletionTokens).Int64("prompt_evaluated", s.PromptEvaluated).Int64("prompt_cached", s.PromptCached).
		Int64("latency_total_ms", s.LatencyTotal.Milliseconds()).Int64("busy_ms", s.Busy.Milliseconds()).Msg("llm calls")
	env.AddLLMServer(func(ctx context.Context) (layout.LLMServer, bool) { return describeServer(ctx, env, c) })
}

// describeServer describes, for the manifest, the client's server as the
// server answered (its model list, its chat answers'
// system_fingerprint): which model answered is provenance that the
// configured name cannot give for a server that answers to any name. A
// client that sent nothing (every answer from the cache) is not
// described.
func describeServer(ctx context.Context, env *stage.Env, c *llm.Client) (layout.LLMServer, bool) {
	info := c.ServerInfo(ctx)
	if len(info.Models) == 0 && info.ModelsError == "" && len(info.Fingerprints) == 0 {
		return layout.LLMServer{}, false
	}
	cfg := c.Config()
	settings := cfg.Settings
	if settings == "" {
		settings = "llm"
	}
	s := layout.LLMServer{Settings: settings, BaseURL: cfg.BaseURL, Model: cfg.Model,
		ModelsError: info.ModelsError, Fingerprints: info.Fingerprints}
	for _, m := range info.Models {
		s.Models = append(s.Models, layout.LLMServerModel{ID: m.ID, Meta: m.Meta})
	}
	if info.ModelsError != "" {
		env.Log.Warn().Str("settings", settings).Str("error", info.ModelsError).Msg("llm: the server's model list is not recorded")
	}
	return s, true
}
