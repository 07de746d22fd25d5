// Package llmtest is a fake OpenAI-compatible server for tests: chat
// completions answered by a Go function, deterministic embeddings, and
// injected faults (error statuses, slow, malformed, empty and truncated
// answers) so that retry paths are exercised without a model.
package llmtest

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/saber-math/saber/lib/llm"
)

// ChatRequest is what the Handler sees of a chat completion request.
type ChatRequest struct {
	Model           string
	Messages        []llm.Message
	Seed            *int64
	Temperature     *float64
	MaxTokens       int // max_completion_tokens, or max_tokens when only that is sent
	ReasoningEffort string
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
	handler Handler

	mu       sync.Mutex
	faults   Faults
	rng      *rand.Rand
	injected int
	apiKey   string

	requests    atomic.Int64
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
	faulted     [FaultBadRequest + 1]atomic.Int64
	seq         atomic.Int64
	conns       atomic.Int64
}

// NewServer starts a server answering chats with h (nil: Echo); it is closed
// on t.Cleanup.
func NewServer(t testing.TB, h Handler) *Server {
	t.Helper()
	if h == nil {
		h = Echo
	}
	s := &Server{handler: h, rng: rand.New(rand.NewPCG(0, 0))}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveChat)
	mux.HandleFunc("POST /v1/embeddings", s.serveEmbeddings)
	s.srv = httptest.NewUnstartedServer(s.count(mux))
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
	req := ChatRequest{Model: in.Model, Seed: in.Seed, Temperature: in.Temperature, ReasoningEffort: in.ReasoningEffort, MaxTokens: in.MaxCompletionTokens}
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
	body, _ := json.Marshal(wireChatResponse{
		ID:      "chatcmpl-fake-" + strconv.FormatInt(s.seq.Add(1), 10),
		Object:  "chat.completion",
		Model:   in.Model,
		Choices: []wireChoice{{Message: wireAnswer{Role: "assistant", Content: content}, FinishReason: "stop"}},
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
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
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
	data := make([]wireEmbedding, len(inputs))
	tokens := 0
	for i, text := range inputs {
		data[i] = wireEmbedding{Object: "embedding", Index: i, Embedding: EmbedVector(text)}
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
