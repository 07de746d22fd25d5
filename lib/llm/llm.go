// Package llm is the one client every saber stage uses to talk to a language
// model: vLLM on the node, OpenAI, or any other OpenAI-compatible server.
//
// It exists so that the properties a multi-day labelling run depends on are
// in one place: every answer is cached by a key that covers everything that
// determines it (so a rerun of a finished or interrupted shard repeats no
// call), failures are retried a bounded number of times with jittered
// backoff, the load on the server is bounded by a concurrency limit and an
// optional rate, and the API key never leaves the process environment — it is
// in no config, log, error, statistic or cache key.
//
// The HTTP work is a few JSON requests over net/http (wire.go), so that the
// bound on attempts, the timeouts and the error classes are all ours.
package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/time/rate"

	"github.com/saber-math/saber/lib/llm/internal/dialhook"
	"github.com/saber-math/saber/lib/llmconf"
)

// ErrPermanent is wrapped by errors that retrying cannot fix but that
// concern one request only: the server rejected it (400, 422 and other 4xx
// but 401, 403, 404, 408, 409, 425, 429) or the request itself is invalid.
// A caller may give up on the document and go on. The statuses that say
// the configuration is wrong (401, 403, 404, or rejections on every call)
// are a *ConfigError instead, which does not wrap it. Test with errors.Is.
var ErrPermanent = errors.New("llm: permanent failure")

// ErrExhausted marks a transient failure (5xx, 429, timeout, a broken
// answer) that was still failing after MaxAttempts: worth a later rerun,
// not a bug, so stages exit 75 on it. Test with errors.Is.
var ErrExhausted error = exhausted{}

type exhausted struct{}

func (exhausted) Error() string { return "llm: transient failure outlived the retries" }

// ExitCode is 75 (SPEC §2: temporary, a rerun resumes); stage.ExitCode
// honours it, as it does ConfigError's 2, so the stage runtime need not
// link this client to classify its errors.
func (exhausted) ExitCode() int { return 75 }

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a chat.
type Message struct {
	Role    string `json:"role"` // system, user or assistant
	Content string `json:"content"`
}

// Request is one chat completion. PromptVersion names the template that
// produced Messages (e.g. "f1.v1"); it is part of the cache key so that a
// changed template never reads answers cached for the old one.
type Request struct {
	PromptVersion string
	Messages      []Message
	// NoCache sends the request even when the client has a cache, and
	// stores nothing: for retrieval calls, which are timed with caches off
	// (paper App. C.5).
	NoCache bool
	// TopLogprobs > 0 asks for the log-probabilities of every generated
	// token with that many alternatives (at most 20, OpenAI's and vLLM's
	// default limit). Such a request is never cached.
	TopLogprobs int
}

// Response is a chat completion's answer. Latency is the wall time of the
// whole Chat call, retries and waits included; Attempts is the number of HTTP
// requests it made. A cache hit has Cached set, zero Latency and Attempts,
// and the token counts of the call that filled the cache.
//
// PromptCache is the server's own account of this request's prompt: how
// many of its tokens it evaluated and how many it took from its prefix
// cache (ServerPromptCache). It describes the request sent now, so a hit
// of saber's answer cache (Cached) has none: that is no server request.
type Response struct {
	Content          string
	Logprobs         []TokenLogprob // only when Request.TopLogprobs > 0
	Cached           bool
	PromptTokens     int
	CompletionTokens int
	PromptCache      PromptCache
	Latency          time.Duration
	Attempts         int
}

// PromptCache is a server's account of one request's prompt tokens:
// Evaluated were computed, Cached served from the server's prefix cache
// (a KV cache of an earlier prompt with the same start). Reported is false
// when the answer said nothing about its cache (vLLM without
// --enable-prompt-tokens-details, a server without a prefix cache): then
// Evaluated is the whole prompt and Cached 0, which may understate the
// reuse.
type PromptCache struct {
	Evaluated, Cached int
	Reported          bool
}

// llamaTimings is the part of llama-server's "timings" object, an extra
// field of its chat answers, that counts the prompt: prompt_n tokens
// evaluated, cache_n reused from the slot's cache.
type llamaTimings struct {
	PromptN *number `json:"prompt_n"`
	CacheN  *number `json:"cache_n"`
}

// ServerPromptCache reads a chat answer's prompt accounting: llama-server's
// timings.prompt_n and timings.cache_n where present (they count what the
// slot did, and are present whatever the request asked), else OpenAI's
// and vLLM's usage.prompt_tokens_details.cached_tokens with the rest of
// usage.prompt_tokens evaluated. Negative or missing counts are 0; a body
// that is no chat answer has none.
func ServerPromptCache(body []byte) PromptCache {
	var out chatResponse
	if json.Unmarshal(body, &out) != nil {
		return PromptCache{}
	}
	return promptCache(&out)
}

func promptCache(out *chatResponse) PromptCache {
	if t := out.Timings; t != nil && t.PromptN != nil && t.CacheN != nil {
		return PromptCache{Evaluated: int(max(0, int64(*t.PromptN))), Cached: int(max(0, int64(*t.CacheN))), Reported: true}
	}
	prompt := max(0, int64(out.Usage.PromptTokens))
	d := out.Usage.PromptTokensDetails
	if d == nil || d.CachedTokens == nil {
		return PromptCache{Evaluated: int(prompt)}
	}
	cached := min(prompt, max(0, int64(*d.CachedTokens)))
	return PromptCache{Evaluated: int(prompt - cached), Cached: int(cached), Reported: true}
}

// Cache stores responses by key; implementations live outside lib (the run's
// storage). Get returns ok=false when absent.
type Cache interface {
	Get(ctx context.Context, key string) (val []byte, ok bool, err error)
	Put(ctx context.Context, key string, val []byte) error
}

// Stats are cumulative counters of a Client.
//
// Calls counts calls of Chat, Embed, Rerank and Score, Cached those answered
// from the cache (Calls includes them), Retries the HTTP requests made after
// a first one failed, Failures the calls that returned an error. Token
// counts and LatencyTotal cover calls that went to the server (not cache
// hits); PromptEvaluated and PromptCached add up the servers' own account
// of those calls' prompts (PromptCache: tokens computed, and tokens served
// from the server's prefix cache), PromptCacheReports counts the answers
// that gave one. Busy is the wall time during which at least one request was at the
// server (the union of the requests' intervals: at most LatencyTotal, less
// the more of them overlap). ErrorsByKind counts
// every failed attempt by kind: "http_<status>", "timeout", "connection",
// "truncated", "malformed_json", "empty_choices", "canceled",
// "invalid_request", "other", and "config" for a call not sent because the
// client had already met a ConfigError.
type Stats struct {
	Calls, Cached, Retries, Failures, PromptTokens, CompletionTokens int64
	PromptEvaluated, PromptCached, PromptCacheReports                int64
	LatencyTotal, Busy                                               time.Duration
	ErrorsByKind                                                     map[string]int64
}

// Client calls one model on one server. It is safe for concurrent use; make
// one per (server, model, parameters) and share it.
type Client struct {
	cfg     Config
	cache   Cache
	apiKey  string // only ever put in the Authorization header and redacted
	timeout time.Duration

	transport *http.Transport // every request's; dialhook may reroute its dials

	http  *http.Client
	base  *url.URL // cfg.BaseURL as a folder: endpoints resolve against it
	sem   chan struct{}
	limit *rate.Limiter // nil = unlimited

	backoffBase, backoffCap time.Duration

	calls, cached, retries, failures atomic.Int64
	promptTokens, completionTokens   atomic.Int64
	promptEvaluated, promptCached    atomic.Int64
	promptCacheReports               atomic.Int64
	latency                          atomic.Int64
	busyClock                        busyClock
	errMu                            sync.Mutex
	errKinds                         map[string]int64

	// rejectStreak counts permanent HTTP rejections since the last
	// success; broken holds the first ConfigError, after which nothing
	// is sent.
	rejectStreak atomic.Int64
	broken       atomic.Pointer[ConfigError]

	// What the manifests record about the server (server.go): sent counts
	// requests made, so that a client whose answers all came from the
	// cache asks the server nothing.
	sent         atomic.Int64
	infoMu       sync.Mutex
	modelsDone   bool
	models       []ServerModel
	modelsErr    error
	fingerprints map[string]bool
}

// Retry backoff: full jitter, wait = uniform[0, min(cap, base·2^(n-1))) before
// retry n, and at least what a Retry-After header asks for.
const (
	defaultBackoffBase = 500 * time.Millisecond
	defaultBackoffCap  = 30 * time.Second
	// maxRetryAfter bounds a server's Retry-After so a bogus header cannot
	// stall a shard; the caller's deadline bounds it further.
	maxRetryAfter = 2 * time.Minute
)

// New returns a client for cfg after filling defaults and validating it. The
// API key is read now from the variable cfg.APIKeyEnv names; when that is
// unset or empty the base URL must be a loopback address (a local vLLM needs
// no key). cache may be nil.
func New(cfg Config, cache Cache) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("llm: no base URL: set base_url in the config or $%s", BaseURLEnv)
	}
	key := strings.TrimSpace(os.Getenv(cfg.APIKeyEnv))
	if key == "" && !llmconf.IsLoopback(cfg.BaseURL) {
		return nil, fmt.Errorf("llm: environment variable %s is unset or empty; it must hold the API key for %s (only a loopback base_url may go without one)", cfg.APIKeyEnv, cfg.BaseURL)
	}

	// One transport for every request: keep-alive connections are what make
	// thousands of small requests a second cheap, so keep at least as many
	// idle as may be in flight.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = max(100, 2*cfg.Concurrency)
	tr.MaxIdleConnsPerHost = cfg.Concurrency
	tr.IdleConnTimeout = 90 * time.Second
	httpc := &http.Client{Transport: tr} // no Timeout: each attempt has its own context

	// Validate checked the URL; as a folder, "rerank" resolves below it.
	base, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/") + "/")
	if err != nil {
		return nil, fmt.Errorf("llm: base_url: %w", err)
	}
	c := &Client{
		base:        base,
		cfg:         cfg,
		cache:       cache,
		apiKey:      key,
		timeout:     cfg.Timeout(),
		transport:   tr,
		http:        httpc,
		sem:         make(chan struct{}, cfg.Concurrency),
		backoffBase: defaultBackoffBase,
		backoffCap:  defaultBackoffCap,
		errKinds:    map[string]int64{},
	}
	if cfg.RatePerSecond > 0 {
		// Burst 1: requests are spaced evenly, never bunched, which is what
		// a server-side rate limit expects.
		c.limit = rate.NewLimiter(rate.Limit(cfg.RatePerSecond), 1)
	}
	return c, nil
}

// init lets llmtest connect a client to its in-memory server
// (llmtest.Server.Connect): the dial replaces the network, and no proxy
// comes between.
func init() {
	dialhook.SetDial = func(client any, dial dialhook.Dial) {
		tr := client.(*Client).transport
		tr.Proxy = nil
		tr.DialContext = dial
	}
}

// Config returns the configuration in use, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// keyVersion is bumped whenever the cache key's document changes meaning.
const keyVersion = 1

type keyDoc struct {
	V               int       `json:"v"`
	Endpoint        string    `json:"endpoint"`
	Model           string    `json:"model"`
	PromptVersion   string    `json:"prompt_version"`
	Messages        []Message `json:"messages"`
	Temperature     *float64  `json:"temperature"`
	MaxTokens       int       `json:"max_tokens"`
	ReasoningEffort string    `json:"reasoning_effort"`
	Seed            *int64    `json:"seed"`
	// SeedPerRequest: the seed sent is derived from the configured one
	// and the request (requestSeed). Present only with a seed, so that
	// unseeded keys, and the answers cached under them, are unchanged.
	SeedPerRequest bool `json:"seed_per_request,omitempty"`
}

// requestSeed is the seed sent with one request: the configured seed and
// the request's cache key hashed together. One seed sent with every
// request would give every request the same random stream: at a
// temperature above 0, answers to different prompts would be drawn
// together, not independently, and a model that attends little to its
// input (a small one, or a random one in CI) would give every document the
// same answer. Derived from the key, it is as reproducible as the key.
func requestSeed(seed int64, key string) int64 {
	h := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "\x00" + key))
	return int64(binary.BigEndian.Uint64(h[:8]) >> 1) // non-negative: servers read it as an int
}

// Key is the cache key of req: the hex SHA-256 of the canonical JSON (fixed
// field order, every field present) of the model, prompt version, messages
// and every generation parameter. It contains neither the API key nor the
// base URL, so the same answers serve any server of the same model.
func (c *Client) Key(req Request) string { return cacheKey(c.cfg, req) }

// cacheKey is Client.Key for the generation settings of cfg: it reads
// only what the model sees and how it decodes, so Lookup, with no client
// and no server, finds what a client of the same config cached.
func cacheKey(cfg Config, req Request) string {
	msgs := req.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	b, err := json.Marshal(keyDoc{
		V:               keyVersion,
		Endpoint:        "chat",
		Model:           cfg.Model,
		PromptVersion:   req.PromptVersion,
		Messages:        msgs,
		Temperature:     cfg.Temperature,
		MaxTokens:       cfg.MaxTokens,
		ReasoningEffort: cfg.ReasoningEffort,
		Seed:            cfg.Seed,
		SeedPerRequest:  cfg.Seed != nil,
	})
	if err != nil { // cannot happen: strings, ints and finite floats
		panic(fmt.Sprintf("llm: encoding cache key: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// cached is what the cache holds for one response.
type cachedResponse struct {
	V                int    `json:"v"`
	Content          string `json:"content"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

var errEmptyChoices = errors.New("llm: response has no choices")

// errMalformedAnswer marks a 200 answer that is JSON but not a chat
// completion: a choice without a message, a content that is not a string.
// Without this check a broken answer would pass as an empty one.
var errMalformedAnswer = errors.New("llm: answer is not a chat completion")

// checkChat says whether out, as decoded from a 200 answer (nil for a
// body of `null`), is an answer: a completion whose first choice has a
// message with a string (or null, as OpenAI allows) content. Anything else
// is an invalid answer, retried and counted like a malformed body, never
// dereferenced.
func checkChat(out *chatResponse) error {
	if out == nil {
		return fmt.Errorf("llm: answer is JSON null: %w", errEmptyChoices)
	}
	if len(out.Choices) == 0 {
		return errEmptyChoices
	}
	ch := out.Choices[0]
	if ch.Message == nil {
		return fmt.Errorf("llm: choice 0 has no message object: %w", errMalformedAnswer)
	}
	if raw := bytes.TrimSpace(ch.Message.Content); len(raw) > 0 && string(raw) != "null" && raw[0] != '"' {
		return fmt.Errorf("llm: message content is not a string: %w", errMalformedAnswer)
	}
	return nil
}

// Chat returns the model's answer to req: from the cache when it holds one,
// else from the server, retrying transient failures, and then written to the
// cache before returning. A failure to write the cache is returned as an
// error together with the response, since a rerun would pay for the call
// again.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	c.calls.Add(1)
	if err := checkMessages(req.Messages); err != nil {
		c.fail("invalid_request")
		return Response{}, err
	}
	if req.TopLogprobs < 0 || req.TopLogprobs > MaxTopLogprobs {
		c.fail("invalid_request")
		return Response{}, fmt.Errorf("llm: top_logprobs %d is outside [0, %d]: %w", req.TopLogprobs, MaxTopLogprobs, ErrPermanent)
	}
	useCache := c.cache != nil && !req.NoCache && req.TopLogprobs == 0
	var key string
	if useCache {
		key = c.Key(req)
		val, ok, err := c.cache.Get(ctx, key)
		if err != nil {
			c.failures.Add(1)
			return Response{}, fmt.Errorf("llm: reading cache entry %s: %w", key, err)
		}
		if ok {
			var cr cachedResponse
			if err := json.Unmarshal(val, &cr); err == nil && cr.V == 1 {
				c.cached.Add(1)
				return Response{Content: cr.Content, Cached: true, PromptTokens: cr.PromptTokens, CompletionTokens: cr.CompletionTokens}, nil
			}
			// An unreadable entry is a miss: the call below overwrites it.
			zerolog.Ctx(ctx).Warn().Str("key", key).Msg("llm: unreadable cache entry; calling the model again")
		}
	}

	params := chatRequest{
		Model:       c.cfg.Model,
		Messages:    make([]chatMessage, len(req.Messages)),
		Temperature: c.cfg.Temperature,
		// max_completion_tokens, not the deprecated max_tokens: OpenAI's
		// reasoning models reject the latter; vLLM takes both.
		MaxCompletionTokens: max(0, c.cfg.MaxTokens),
		ReasoningEffort:     c.cfg.ReasoningEffort,
	}
	for i, m := range req.Messages {
		params.Messages[i] = chatMessage{Role: string(m.Role), Content: m.Content}
	}
	if c.cfg.Seed != nil {
		if key == "" { // not computed for the cache
			key = c.Key(req)
		}
		seed := requestSeed(*c.cfg.Seed, key)
		params.Seed = &seed
	}
	if req.TopLogprobs > 0 {
		params.Logprobs = true
		params.TopLogprobs = req.TopLogprobs
	}

	start := time.Now()
	var out *chatResponse
	attempts, err := c.retry(ctx, "chat", func(actx context.Context, res **http.Response) error {
		out = nil
		err := c.postJSON(actx, "chat/completions", params, &out, res)
		if err == nil {
			err = checkChat(out)
		}
		return err
	})
	lat := time.Since(start)
	c.latency.Add(int64(lat))
	if err != nil {
		c.failures.Add(1)
		return Response{Latency: lat, Attempts: attempts}, err
	}
	// A usage the server got wrong (negative, or of the wrong type, which
	// decodes as 0) must not turn the token counters backwards.
	promptTok, complTok := max(0, int64(out.Usage.PromptTokens)), max(0, int64(out.Usage.CompletionTokens))
	resp := Response{
		Content:          text(out.Choices[0].Message.Content),
		PromptTokens:     int(promptTok),
		CompletionTokens: int(complTok),
		PromptCache:      promptCache(out),
		Latency:          lat,
		Attempts:         attempts,
	}
	c.promptTokens.Add(promptTok)
	c.completionTokens.Add(complTok)
	c.promptEvaluated.Add(int64(resp.PromptCache.Evaluated))
	c.promptCached.Add(int64(resp.PromptCache.Cached))
	if resp.PromptCache.Reported {
		c.promptCacheReports.Add(1)
	}
	// Per request, for who tunes the order of the sends; the shard's
	// totals are in its manifest (llmcall.Record).
	zerolog.Ctx(ctx).Debug().Int("prompt_tokens", resp.PromptTokens).Int("prompt_evaluated", resp.PromptCache.Evaluated).
		Int("prompt_cached", resp.PromptCache.Cached).Bool("prompt_cache_reported", resp.PromptCache.Reported).
		Int("attempts", attempts).Dur("latency", lat).Msg("llm: chat answer")
	// OpenAI deprecated the field; llama.cpp and vLLM still send it, and
	// with a single-model server that answers to any name it is the one
	// thing that says which build answered.
	c.noteFingerprint(text(out.SystemFingerprint))
	if lp := out.Choices[0].Logprobs; req.TopLogprobs > 0 && lp != nil {
		resp.Logprobs = tokenLogprobs(lp.Content)
	}

	if useCache {
		val, _ := json.Marshal(cachedResponse{V: 1, Content: resp.Content, PromptTokens: resp.PromptTokens, CompletionTokens: resp.CompletionTokens})
		if err := c.cache.Put(ctx, key, val); err != nil {
			c.failures.Add(1)
			return resp, fmt.Errorf("llm: writing cache entry %s: %w", key, err)
		}
	}
	return resp, nil
}

func checkMessages(msgs []Message) error {
	if len(msgs) == 0 {
		return fmt.Errorf("llm: request has no messages: %w", ErrPermanent)
	}
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return fmt.Errorf("llm: message %d has role %q, want system, user or assistant: %w", i, m.Role, ErrPermanent)
		}
	}
	return nil
}

// Embed returns one embedding per input from the /embeddings endpoint of the
// configured model, in input order. It shares Chat's retries and limits but
// is never cached. It is EmbedWith without options.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	return c.EmbedWith(ctx, inputs, EmbedOptions{})
}

// Stats returns a snapshot of the cumulative counters.
func (c *Client) Stats() Stats {
	s := Stats{
		Calls:              c.calls.Load(),
		Cached:             c.cached.Load(),
		Retries:            c.retries.Load(),
		Failures:           c.failures.Load(),
		PromptTokens:       c.promptTokens.Load(),
		CompletionTokens:   c.completionTokens.Load(),
		PromptEvaluated:    c.promptEvaluated.Load(),
		PromptCached:       c.promptCached.Load(),
		PromptCacheReports: c.promptCacheReports.Load(),
		LatencyTotal:       time.Duration(c.latency.Load()),
		Busy:               c.busyClock.busy(time.Now()),
	}
	c.errMu.Lock()
	s.ErrorsByKind = make(map[string]int64, len(c.errKinds))
	for k, v := range c.errKinds {
		s.ErrorsByKind[k] = v
	}
	c.errMu.Unlock()
	return s
}

// fail counts a call that failed before any attempt.
func (c *Client) fail(kind string) {
	c.failures.Add(1)
	c.countKind(kind)
}

func (c *Client) countKind(kind string) {
	c.errMu.Lock()
	c.errKinds[kind]++
	c.errMu.Unlock()
}
