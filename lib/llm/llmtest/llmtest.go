// Package llmtest is a fake OpenAI-compatible server for tests: chat
// completions answered by a Go function (with log-probabilities on request),
// deterministic embeddings, deterministic cross-encoder scores on vLLM's and
// Cohere's /rerank and vLLM's /score, an optional fixed delay per request,
// and injected faults (error statuses, slow, malformed, empty and truncated
// answers) so that retry paths are exercised without a model.
//
// NewServer listens on a loopback TCP port. NewPipeServer serves the same
// fake over in-memory connections instead, for tests that run inside a
// testing/synctest bubble, where every wait (the delay, a slow fault, the
// client's backoff, timeout and rate limit) takes fake time: such a test
// asserts exact durations, whatever the load on the machine.
package llmtest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/internal/dialhook"
)

// ChatRequest is what the Handler sees of a chat completion request.
type ChatRequest struct {
	Model           string
	Messages        []llm.Message
	Seed            *int64
	Temperature     *float64
	MaxTokens       int // max_completion_tokens, or max_tokens when only that is sent
	ReasoningEffort string
	Logprobs        bool
	TopLogprobs     int
}

// Handler answers a chat request: rule-based or scripted. It may be called
// concurrently.
type Handler func(req ChatRequest) (content string)

// Echo answers with the content of the last message.
func Echo(req ChatRequest) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// Fault is a kind of injected failure.
type Fault int

const (
	Fault500           Fault = iota + 1 // 500 with a JSON error body
	Fault503                            // 503 with a plain-text body (and Retry-After when RetryAfterSeconds > 0)
	Fault429                            // 429 with Retry-After: RetryAfterSeconds
	FaultSlow                           // sleeps SlowDelay (past the client's timeout), then answers
	FaultMalformedJSON                  // 200 with a body that is not JSON
	FaultEmptyChoices                   // 200 with "choices": []
	FaultTruncated                      // 200 with Content-Length larger than the body, connection closed
	// FaultBadRequest is a 400: permanent, so it is not among the default
	// kinds; ask for it explicitly.
	FaultBadRequest
)

// transient are the default fault kinds: every one a client must retry.
var transient = []Fault{Fault500, Fault503, Fault429, FaultSlow, FaultMalformedJSON, FaultEmptyChoices, FaultTruncated}

// AllTransient returns every fault kind a client must recover from.
func AllTransient() []Fault { return append([]Fault(nil), transient...) }

func (f Fault) String() string {
	switch f {
	case Fault500:
		return "500"
	case Fault503:
		return "503"
	case Fault429:
		return "429"
	case FaultSlow:
		return "slow"
	case FaultMalformedJSON:
		return "malformed_json"
	case FaultEmptyChoices:
		return "empty_choices"
	case FaultTruncated:
		return "truncated"
	case FaultBadRequest:
		return "400"
	}
	return "Fault(" + strconv.Itoa(int(f)) + ")"
}

// Faults says how requests fail: each fails with probability Rate, with a
// kind drawn uniformly from Kinds (default: all transient kinds), from a
// generator seeded with Seed, so a sequential test sees the same faults every
// run. Max > 0 stops injecting after Max faults (Rate 1, Max 2: the first
// two requests fail, the rest succeed).
type Faults struct {
	Rate              float64
	Seed              uint64
	Kinds             []Fault
	RetryAfterSeconds int
	SlowDelay         time.Duration // default 2s
	Max               int
}

// EmbedDim is the length of the fake embeddings.
const EmbedDim = 16

// Server is a running fake server; URL is its base URL, ending in /v1.
type Server struct {
	URL string

	srv     *httptest.Server
	pipe    *pipeListener // NewPipeServer's; nil for NewServer
	handler Handler

	mu       sync.Mutex
	faults   Faults
	rng      *rand.Rand
	injected int
	apiKey   string

	delay    time.Duration
	logprobs LogprobsFunc
	embedded []string
	scored   []string // cross-encoder pairs, query + "\x00" + document
	paths    map[string]int64

	requests    atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	faulted     [FaultBadRequest + 1]atomic.Int64
	seq         atomic.Int64
	conns       atomic.Int64
}

// NewServer starts a server answering chats with h (nil: Echo) on a
// loopback TCP port; it is closed on t.Cleanup.
func NewServer(t testing.TB, h Handler) *Server {
	t.Helper()
	return newServer(t, h, nil)
}

// NewPipeServer starts the server NewServer does, but on in-memory
// connections (net.Pipe), which a testing/synctest bubble can wait on:
// create it inside synctest.Test with the bubble's t, and Connect every
// client to it before its first request. Its URL names no listening socket
// (port 0 on the loopback address), so a client that is not connected fails
// at once instead of reaching anything. It is closed on t.Cleanup.
func NewPipeServer(t testing.TB, h Handler) *Server {
	t.Helper()
	return newServer(t, h, &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})})
}

// Connect makes every connection c opens from now on one to s, a
// NewPipeServer; call it before c's first request.
func (s *Server) Connect(c *llm.Client) {
	if s.pipe == nil {
		panic("llmtest: Connect needs a server from NewPipeServer")
	}
	dialhook.SetDial(c, s.pipe.dial)
}

func newServer(t testing.TB, h Handler, pipe *pipeListener) *Server {
	if h == nil {
		h = Echo
	}
	s := &Server{handler: h, pipe: pipe, rng: rand.New(rand.NewPCG(0, 0)), paths: map[string]int64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("POST /v1/embeddings", s.serveEmbeddings)
	mux.HandleFunc("POST /v1/rerank", s.serveRerank)
	mux.HandleFunc("POST /rerank", s.serveRerank)
	mux.HandleFunc("POST /v1/score", s.serveScore)
	mux.HandleFunc("POST /score", s.serveScore)
	mux.HandleFunc("POST /tokenize", s.serveTokenize)
	if pipe == nil {
		s.srv = httptest.NewUnstartedServer(s.count(mux))
	} else {
		s.srv = &httptest.Server{Listener: pipe, Config: &http.Server{Handler: s.count(mux)}}
	}
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the server; later requests fail to connect.
func (s *Server) Close() { s.srv.Close() }

// pipeListener is NewPipeServer's listener: dial hands Accept the server's
// end of a new net.Pipe. Both block only on channels, which a synctest
// bubble sees as durably blocked.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	var err error
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		err = net.ErrClosed
	case <-ctx.Done():
		err = ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, &net.OpError{Op: "dial", Net: "pipe", Addr: pipeAddr{}, Err: err}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "127.0.0.1:0" }

// SetFaults replaces the fault configuration and restarts its generator.
func (s *Server) SetFaults(f Faults) {
	if len(f.Kinds) == 0 {
		f.Kinds = transient
	}
	if f.SlowDelay == 0 {
		f.SlowDelay = 2 * time.Second
	}
	s.mu.Lock()
	s.faults = f
	s.rng = rand.New(rand.NewPCG(f.Seed, 0x5abe7))
	s.injected = 0
	s.mu.Unlock()
}

// RequireAPIKey makes the server answer 401 to requests without
// "Authorization: Bearer key"; "" turns the check off.
func (s *Server) RequireAPIKey(key string) {
	s.mu.Lock()
	s.apiKey = key
	s.mu.Unlock()
}

// Requests is the number of requests received, faulted ones included.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Conns is the number of connections accepted: with keep-alive it stays
// near the client's concurrency however many requests are made.
func (s *Server) Conns() int64 { return s.conns.Load() }

// MaxInFlight is the largest number of requests handled at once so far.
func (s *Server) MaxInFlight() int64 { return s.maxInFlight.Load() }

// Faulted counts the injected faults by kind.
func (s *Server) Faulted() map[Fault]int64 {
	m := map[Fault]int64{}
	for f := range s.faulted {
		if n := s.faulted[f].Load(); n > 0 {
			m[Fault(f)] = n
		}
	}
	return m
}

func (s *Server) count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxInFlight.Load()
			if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		s.mu.Lock()
		s.paths[r.URL.Path]++
		d := s.delay
		s.mu.Unlock()
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// draw decides whether this request fails, and how.
func (s *Server) draw() (Fault, Faults, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	if f.Rate <= 0 || (f.Max > 0 && s.injected >= f.Max) {
		return 0, f, s.apiKey
	}
	if f.Rate < 1 && s.rng.Float64() >= f.Rate {
		return 0, f, s.apiKey
	}
	s.injected++
	return f.Kinds[s.rng.IntN(len(f.Kinds))], f, s.apiKey
}

// inject writes the fault's response; it reports false for FaultSlow after
// the delay, when the request is to be answered normally.
func (s *Server) inject(w http.ResponseWriter, r *http.Request, kind Fault, f Faults, ok []byte) bool {
	s.faulted[kind].Add(1)
	switch kind {
	case Fault500:
		writeError(w, http.StatusInternalServerError, "server_error", "injected internal error")
	case Fault503:
		if f.RetryAfterSeconds > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfterSeconds))
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("Service Unavailable\n"))
	case Fault429:
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfterSeconds))
		writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "injected rate limit")
	case FaultSlow:
		t := time.NewTimer(f.SlowDelay)
		defer t.Stop()
		select {
		case <-t.C:
			return false
		case <-r.Context().Done():
		}
	case FaultMalformedJSON:
		writeBody(w, []byte(`{"id": "chatcmpl-bad", "choices": [{"index": 0, "message": }]}`))
	case FaultEmptyChoices:
		writeBody(w, []byte(`{"id":"chatcmpl-empty","object":"chat.completion","created":0,"model":"m","choices":[],"data":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`))
	case FaultTruncated:
		hj, okh := w.(http.Hijacker)
		if !okh {
			panic("llmtest: response writer cannot hijack")
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return true
		}
		defer conn.Close()
		writeTruncated(buf, ok)
	case FaultBadRequest:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "injected bad request")
	}
	return true
}

func writeTruncated(buf *bufio.ReadWriter, body []byte) {
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body)+100)
	_, _ = buf.Write(body[:len(body)/2])
	_ = buf.Flush()
}

func writeError(w http.ResponseWriter, code int, typ, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil, "param": nil}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func writeBody(w http.ResponseWriter, b []byte) {
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	_, _ = w.Write(b)
}

// authorized checks the key; it writes the 401 itself.
func authorized(w http.ResponseWriter, r *http.Request, key string) bool {
	if key == "" || r.Header.Get("Authorization") == "Bearer "+key {
		return true
	}
	writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid API key")
	return false
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireChatRequest struct {
	Model               string        `json:"model"`
	Messages            []wireMessage `json:"messages"`
	Seed                *int64        `json:"seed"`
	Temperature         *float64      `json:"temperature"`
	MaxTokens           int           `json:"max_tokens"`
	MaxCompletionTokens int           `json:"max_completion_tokens"`
	ReasoningEffort     string        `json:"reasoning_effort"`
	Logprobs            bool          `json:"logprobs"`
	TopLogprobs         int           `json:"top_logprobs"`
}

type wireChoice struct {
	Index        int        `json:"index"`
	Message      wireAnswer `json:"message"`
	FinishReason string     `json:"finish_reason"`
	Logprobs     any        `json:"logprobs"`
}

type wireAnswer struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireChatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   wireUsage    `json:"usage"`
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	kind, f, key := s.draw()
	if !authorized(w, r, key) {
		return
	}
	var in wireChatRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "cannot parse request: "+err.Error())
		return
	}
	req := ChatRequest{Model: in.Model, Seed: in.Seed, Temperature: in.Temperature, ReasoningEffort: in.ReasoningEffort, MaxTokens: in.MaxCompletionTokens,
		Logprobs: in.Logprobs, TopLogprobs: in.TopLogprobs}
	if req.MaxTokens == 0 {
		req.MaxTokens = in.MaxTokens
	}
	if in.Model == "" || len(in.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "model and messages are required")
		return
	}
	req.Messages = make([]llm.Message, len(in.Messages))
	promptTokens := 0
	for i, m := range in.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("message %d: %v", i, err))
			return
		}
		req.Messages[i] = llm.Message{Role: m.Role, Content: text}
		promptTokens += Tokens(text)
	}
	content := s.handler(req)
	completion := Tokens(content)
	choice := wireChoice{Message: wireAnswer{Role: "assistant", Content: content}, FinishReason: "stop"}
	if req.Logprobs {
		s.mu.Lock()
		lf := s.logprobs
		s.mu.Unlock()
		if lf == nil {
			lf = defaultLogprobs
		}
		lp := lf(req, content)
		if lp == nil {
			lp = []TokenLogprob{}
		}
		choice.Logprobs = map[string]any{"content": lp, "refusal": nil}
	}
	body, _ := json.Marshal(wireChatResponse{
		ID:      "chatcmpl-fake-" + strconv.FormatInt(s.seq.Add(1), 10),
		Object:  "chat.completion",
		Model:   in.Model,
		Choices: []wireChoice{choice},
		Usage:   wireUsage{PromptTokens: promptTokens, CompletionTokens: completion, TotalTokens: promptTokens + completion},
	})
	if kind != 0 && s.inject(w, r, kind, f, body) {
		return
	}
	writeBody(w, body)
}

// contentText reads a message's content: a string, or an array of text parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor text parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// Tokens is the fake token count of a text: its number of
// whitespace-separated words.
func Tokens(s string) int { return len(strings.Fields(s)) }

// serveTokenize is vLLM's /tokenize (at the server's root, beside /v1): the
// prompt's or messages' token count by Tokens, the count chat usage reports,
// so a forecast that tokenizes with the server predicts the usage exactly.
func (s *Server) serveTokenize(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Prompt   string `json:"prompt"`
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	n := Tokens(in.Prompt)
	for _, m := range in.Messages {
		n += Tokens(m.Content)
	}
	body, _ := json.Marshal(map[string]any{"count": n, "max_model_len": 32768, "tokens": make([]int, n)})
	writeBody(w, body)
}

type wireEmbedding struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	kind, f, key := s.draw()
	if !authorized(w, r, key) {
		return
	}
	var in struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Dimensions int             `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "cannot parse request: "+err.Error())
		return
	}
	var inputs []string
	if len(in.Input) > 0 && in.Input[0] == '"' {
		var one string
		if err := json.Unmarshal(in.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "input: "+err.Error())
			return
		}
		inputs = []string{one}
	} else if err := json.Unmarshal(in.Input, &inputs); err != nil || len(inputs) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or a non-empty array of strings")
		return
	}
	if in.Dimensions < 0 || in.Dimensions > EmbedDim {
		writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("dimensions must be in [1, %d]", EmbedDim))
		return
	}
	s.mu.Lock()
	s.embedded = append(s.embedded, inputs...)
	s.mu.Unlock()
	data := make([]wireEmbedding, len(inputs))
	tokens := 0
	for i, text := range inputs {
		v := EmbedVector(text)
		if in.Dimensions > 0 {
			v = Truncate(v, in.Dimensions)
		}
		data[i] = wireEmbedding{Object: "embedding", Index: i, Embedding: v}
		tokens += Tokens(text)
	}
	body, _ := json.Marshal(map[string]any{
		"object": "list", "model": in.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
	if kind != 0 && s.inject(w, r, kind, f, body) {
		return
	}
	writeBody(w, body)
}

// EmbedVector is the fake embedding of text: EmbedDim components drawn from
// SHA-256 of the text, scaled to unit length. Equal texts get equal vectors.
func EmbedVector(text string) []float32 {
	v := make([]float32, EmbedDim)
	var norm float64
	for i := 0; i < EmbedDim; i += 8 {
		sum := sha256.Sum256([]byte(strconv.Itoa(i) + "\x00" + text))
		for j := 0; j < 8 && i+j < EmbedDim; j++ {
			u := binary.LittleEndian.Uint32(sum[4*j:])
			x := float64(u)/float64(math.MaxUint32)*2 - 1
			v[i+j] = float32(x)
			norm += x * x
		}
	}
	if norm > 0 {
		inv := 1 / math.Sqrt(norm)
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
	}
	return v
}

// SetDelay makes the server wait d before handling every request (0: no
// wait), like a model that takes d per forward pass whatever the batch: a
// client with k requests in flight at a time then needs ⌈requests/k⌉·d.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// RequestsTo is the number of requests received at path (e.g.
// "/v1/rerank"), faulted ones included.
func (s *Server) RequestsTo(path string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[path]
}

func (s *Server) recordPairs(query string, docs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range docs {
		s.scored = append(s.scored, query+"\x00"+d)
	}
}

// Scored returns every (query, document) pair of every rerank or score
// request that was answered or faulted, as query + "\x00" + document, in
// arrival order.
func (s *Server) Scored() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.scored...)
}

// Embedded returns every input text of every embeddings request that was
// answered or faulted, in arrival order (concurrent requests interleave).
func (s *Server) Embedded() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.embedded...)
}

// TokenLogprob is one generated token's log-probability and its
// alternatives, as the fake sends them.
type TokenLogprob struct {
	Token   string       `json:"token"`
	Logprob float64      `json:"logprob"`
	Bytes   []int        `json:"bytes"`
	Top     []TopLogprob `json:"top_logprobs"`
}

// TopLogprob is one alternative at a token position.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

// LogprobsFunc returns the log-probabilities of an answer's tokens for a
// request that asked for them. It may be called concurrently.
type LogprobsFunc func(req ChatRequest, content string) []TokenLogprob

// SetLogprobs sets how requests with logprobs are answered; nil restores the
// default: every white-space token of the answer with log-probability 0 and
// itself as the only alternative.
func (s *Server) SetLogprobs(f LogprobsFunc) {
	s.mu.Lock()
	s.logprobs = f
	s.mu.Unlock()
}

func defaultLogprobs(_ ChatRequest, content string) []TokenLogprob {
	var out []TokenLogprob
	for _, w := range strings.Fields(content) {
		out = append(out, TokenLogprob{Token: w, Top: []TopLogprob{{Token: w}}})
	}
	return out
}

// RelevanceScore is the fake cross-encoder's score of doc for query, served
// by /rerank and /score: Cosine(EmbedVector(query), EmbedVector(doc)) (it
// lies in [-1, 1]).
func RelevanceScore(query, doc string) float64 {
	return Cosine(EmbedVector(query), EmbedVector(doc))
}

// Cosine is a·b / sqrt(‖a‖²·‖b‖²) of two fake vectors, in float64, and 0
// when either is zero: the reference tests check embedding retrievers'
// scores against (a different but equivalent formula from theirs, so
// equality is to rounding).
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// serveRerank answers {model, query, documents, top_n?} with
// results[{index, document, relevance_score}], best first, cut to top_n
// when it is positive (vLLM's and Cohere's shape).
func (s *Server) serveRerank(w http.ResponseWriter, r *http.Request) {
	kind, f, key := s.draw()
	if !authorized(w, r, key) {
		return
	}
	var in struct {
		Model     string   `json:"model"`
		Query     *string  `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Query == nil || in.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "model, query and documents are required")
		return
	}
	type result struct {
		Index    int               `json:"index"`
		Document map[string]string `json:"document"`
		Score    float64           `json:"relevance_score"`
	}
	s.recordPairs(*in.Query, in.Documents)
	res := make([]result, len(in.Documents))
	tokens := Tokens(*in.Query) * len(in.Documents)
	for i, d := range in.Documents {
		res[i] = result{Index: i, Document: map[string]string{"text": d}, Score: RelevanceScore(*in.Query, d)}
		tokens += Tokens(d)
	}
	// Best first, as servers answer; the client must reorder.
	sort.SliceStable(res, func(i, j int) bool { return res[i].Score > res[j].Score })
	if in.TopN > 0 && in.TopN < len(res) {
		res = res[:in.TopN]
	}
	body, _ := json.Marshal(map[string]any{
		"id": "rerank-fake-" + strconv.FormatInt(s.seq.Add(1), 10), "model": in.Model, "results": res,
		"usage": map[string]int{"total_tokens": tokens},
	})
	if kind != 0 && s.inject(w, r, kind, f, body) {
		return
	}
	writeBody(w, body)
}

// serveScore answers vLLM's {model, text_1, text_2} (text_2 a string or a
// list) with data[{index, object, score}] in input order.
func (s *Server) serveScore(w http.ResponseWriter, r *http.Request) {
	kind, f, key := s.draw()
	if !authorized(w, r, key) {
		return
	}
	var in struct {
		Model string          `json:"model"`
		Text1 *string         `json:"text_1"`
		Text2 json.RawMessage `json:"text_2"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Text1 == nil || in.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "model, text_1 and text_2 are required")
		return
	}
	var texts []string
	if len(in.Text2) > 0 && in.Text2[0] == '"' {
		var one string
		_ = json.Unmarshal(in.Text2, &one)
		texts = []string{one}
	} else if err := json.Unmarshal(in.Text2, &texts); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "text_2 must be a string or a list of strings")
		return
	}
	s.recordPairs(*in.Text1, texts)
	type item struct {
		Index  int     `json:"index"`
		Object string  `json:"object"`
		Score  float64 `json:"score"`
	}
	data := make([]item, len(texts))
	tokens := 0
	for i, t := range texts {
		data[i] = item{Index: i, Object: "score", Score: RelevanceScore(*in.Text1, t)}
		tokens += Tokens(*in.Text1) + Tokens(t)
	}
	body, _ := json.Marshal(map[string]any{
		"id": "score-fake-" + strconv.FormatInt(s.seq.Add(1), 10), "object": "list", "model": in.Model, "data": data,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
	if kind != 0 && s.inject(w, r, kind, f, body) {
		return
	}
	writeBody(w, body)
}

// Truncate is what the fake serves for a request with dimensions d: the
// first d components of v scaled back to unit length, as Matryoshka models
// do.
func Truncate(v []float32, d int) []float32 {
	out := append([]float32(nil), v[:d]...)
	var norm float64
	for _, x := range out {
		norm += float64(x) * float64(x)
	}
	if norm > 0 {
		inv := 1 / math.Sqrt(norm)
		for i := range out {
			out[i] = float32(float64(out[i]) * inv)
		}
	}
	return out
}
