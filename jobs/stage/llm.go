package stage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"unicode/utf8"

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
// log: calls made, answered from the cache, retried, failed, tokens, latency,
// and the time the server was busy with the shard's requests (llm_busy_ms:
// what `saber plan --compare` sets beside the GPU-hours forecast).
func (e *Env) RecordLLM(c *llm.Client) {
	s := c.Stats()
	e.Count("llm_calls", s.Calls)
	e.Count("llm_cached", s.Cached)
	e.Count("llm_retries", s.Retries)
	e.Count("llm_failures", s.Failures)
	e.Count("llm_prompt_tokens", s.PromptTokens)
	e.Count("llm_completion_tokens", s.CompletionTokens)
	e.Count("llm_latency_ms", s.LatencyTotal.Milliseconds())
	e.Count("llm_busy_ms", s.Busy.Milliseconds())
	for kind, n := range s.ErrorsByKind {
		e.Count("llm_errors_"+kind, n)
	}
	e.Log.Info().Int64("calls", s.Calls).Int64("cached", s.Cached).Int64("retries", s.Retries).
		Int64("failures", s.Failures).Int64("prompt_tokens", s.PromptTokens).
		Int64("completion_tokens", s.CompletionTokens).Int64("latency_total_ms", s.LatencyTotal.Milliseconds()).Int64("busy_ms", s.Busy.Milliseconds()).Msg("llm calls")
	e.recordLLMServer(c)
}

// recordLLMServer notes the client, whose server is described in the
// manifest (llmServers) once the shard has succeeded: a failed shard
// writes no manifest and asks the server nothing more.
func (e *Env) recordLLMServer(c *llm.Client) {
	e.mu.Lock()
	e.llm = append(e.llm, c)
	e.mu.Unlock()
}

// llmServers describes, for the manifest, each recorded client's server
// as the server answered (its model list, its chat answers'
// system_fingerprint): which model answered is provenance that the
// configured name cannot give for a server that answers to any name.
// A client that sent nothing (every answer from the cache) is left out.
func (e *Env) llmServers() []layout.LLMServer {
	e.mu.Lock()
	clients := append([]*llm.Client(nil), e.llm...)
	e.mu.Unlock()
	var out []layout.LLMServer
	for _, c := range clients {
		info := c.ServerInfo(e.Log.WithContext(context.Background()))
		if len(info.Models) == 0 && info.ModelsError == "" && len(info.Fingerprints) == 0 {
			continue
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
			e.Log.Warn().Str("settings", settings).Str("error", info.ModelsError).Msg("llm: the server's model list is not recorded")
		}
		out = append(out, s)
	}
	return out
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
// when parse fails. A re-ask is a different request (Reask: the bad answer
// and a correction as new turns), so a deterministic server does not
// repeat its answer, and its messages and the "+reaskN" prompt version
// give it its own cache entry (a cached bad answer is not served again).
func Ask[T any](ctx context.Context, c *llm.Client, p prompts.Prompt, data any, retries int, parse func(string) (T, error)) (T, error) {
	var zero T
	msgs, err := p.Render(data)
	if err != nil {
		return zero, err
	}
	var last *UnparseableError
	ask := msgs
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 {
			// The conversation so far, not the first ask: a greedy server
			// gives the same bad answer to both, and two re-asks that
			// differ only in it would be byte-identical.
			ask = Reask(ask, last.Raw, last.Err)
		}
		resp, err := c.Chat(ctx, llm.Request{PromptVersion: ReaskVersion(p.Version, attempt), Messages: ask})
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

// ReaskVersion is the prompt version of attempt n (0: the first ask).
func ReaskVersion(version string, n int) string {
	if n == 0 {
		return version
	}
	return fmt.Sprintf("%s+reask%d", version, n)
}

// maxReaskAnswer bounds the bad answer quoted back in a re-ask: enough
// for the model to see what it did, not a second document.
const maxReaskAnswer = 2000

// Reask is the conversation of a re-ask after the answer raw failed to
// parse with perr: the messages asked (the first ask, or the conversation
// of the re-ask before), raw as the assistant's turn, and a short
// correction as a new user turn. Sending the first request again
// would be byte-identical, and a server that decodes greedily or with a
// fixed seed (vLLM and llama.cpp at temperature 0) answers it identically:
// every re-ask wasted. The conversation changes what the model sees and
// tells it what was wrong.
func Reask(msgs []llm.Message, raw string, perr error) []llm.Message {
	if len(raw) > maxReaskAnswer {
		cut := maxReaskAnswer
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		raw = raw[:cut]
	}
	why := "it is not in the format asked for"
	if perr != nil {
		why = perr.Error()
		if len(why) > 200 {
			why = why[:200]
			for len(why) > 0 && !utf8.ValidString(why) {
				why = why[:len(why)-1]
			}
		}
	}
	out := make([]llm.Message, 0, len(msgs)+2)
	out = append(out, msgs...)
	return append(out,
		llm.Message{Role: llm.RoleAssistant, Content: raw},
		llm.Message{Role: llm.RoleUser, Content: "That answer could not be used: " + why + ". Answer again, in exactly the format the instructions above ask for."})
}

// Reject turns a per-document failure into a reject row, or returns the
// error when it must stop the shard: interrupted, a transient failure that
// outlived the client's retries (exit 75, and the rerun resumes from the
// cache), or an *llm.ConfigError — a refused key, an unknown model, a
// server rejecting every request — which no document deserves (exit 2; it
// does not wrap llm.ErrPermanent, so it falls through to the error).
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

// DefaultMaxInvalidShare is the share of a shard's units (documents,
// judgments, pairs) that may come back invalid or rejected before the
// shard fails instead of writing its manifest: a few odd documents are
// data, most of them a broken backend (a model that never answers in the
// format asked, a prompt it refuses).
const DefaultMaxInvalidShare = 0.5

// InvalidShareError is a shard whose share of invalid results is above
// its threshold: nothing was written, and the message names the share,
// the threshold's key and one example. Exit 2: fix the model or prompt
// settings, or raise the threshold, then rerun (answers already received
// come from the LLM cache).
type InvalidShareError struct {
	// What the units are, as "documents rejected" or "judgments invalid".
	What           string
	Invalid, Total int64
	// Key is the threshold's config key, Max its value.
	Key    string
	Max    float64
	Sample string
}

func (e *InvalidShareError) Error() string {
	return fmt.Sprintf("%d of %d %s (%.1f%%), more than %s = %g allows: the backend, not a few odd inputs; check the llm settings (model, prompt, max_tokens) or raise %s; e.g. %s",
		e.Invalid, e.Total, e.What, 100*float64(e.Invalid)/float64(e.Total), e.Key, e.Max, e.Key, e.Sample)
}

// ExitCode is 2: the configuration (or the model it names) needs fixing.
func (e *InvalidShareError) ExitCode() int { return ExitBadInput }

// CheckInvalidShare returns an *InvalidShareError when invalid/total is
// above max, else nil. key names max in the config (tag.max_invalid_share);
// sample is one invalid unit's reason.
func CheckInvalidShare(what string, invalid, total int64, key string, max float64, sample string) error {
	if total <= 0 || float64(invalid) <= max*float64(total) {
		return nil
	}
	return &InvalidShareError{What: what, Invalid: invalid, Total: total, Key: key, Max: max, Sample: sample}
}

// Share statistics every LLM stage records, so that `saber stats` shows
// the share of invalid units whatever the stage calls them.
const (
	StatInvalidShareCount = "invalid_share_count"
	StatInvalidShareOf    = "invalid_share_of"
)

// RecordInvalidShare records a shard's invalid units in its manifest and
// checks them against the threshold (CheckInvalidShare): above it the
// shard must fail without writing; at or below it, any invalid unit is
// logged as a warning with the share.
func (e *Env) RecordInvalidShare(what string, invalid, total int64, key string, max float64, sample string) error {
	e.Count(StatInvalidShareCount, invalid)
	e.Count(StatInvalidShareOf, total)
	if err := CheckInvalidShare(what, invalid, total, key, max, sample); err != nil {
		e.Log.Error().Int64("invalid", invalid).Int64("of", total).Float64("max_share", max).Str("key", key).Str("sample", sample).Msg("too many invalid results; no output written")
		return err
	}
	if invalid > 0 {
		e.Log.Warn().Int64("invalid", invalid).Int64("of", total).Float64("share", float64(invalid)/float64(total)).
			Float64("max_share", max).Str("key", key).Str("sample", sample).Msg(what + ": under the threshold, kept")
	}
	return nil
}

// Excerpt quotes the start of a model's answer for a message or a log
// line: enough to see what the model does instead of answering.
func Excerpt(s string) string {
	const n = 160
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}
