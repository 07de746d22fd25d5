// Package retrieval builds the retrievers a run config declares
// (jobs/retrievers) and ranks candidates with them: the retrieval systems
// the evaluate stage runs (paper §4.1, App. C; SPEC §3 "Lexical
// baselines", "Neural retrievers") come from a name, one of the six
// lexical built-ins of lib/lexical or one defined in the run config's
// `retrievers:` map, so that every system — embedding models,
// cross-encoders, generative rerankers and external programs — runs by
// configuration alone:
//
//   - embedding: a bi-encoder over an OpenAI-compatible /embeddings endpoint
//     (vLLM, TEI, OpenAI); score = cosine of query and document vectors;
//     texts longer than max_input words are split into chunks whose
//     embeddings are averaged (App. C.2).
//   - rerank: a cross-encoder over /rerank, the body vLLM, Jina and Cohere
//     share: {model, query, documents, top_n} → results[{index,
//     relevance_score}].
//   - score: a cross-encoder over vLLM's /score: {model, text_1, text_2} →
//     data[{index, score}].
//   - chat: a generative reranker over chat completions: a prompt per
//     (query, document), scored from the log-probabilities of a yes/no
//     answer or from a number in the answer.
//   - plugin: any program speaking the JSONL protocol of plugin.go on its
//     stdin and stdout, started once per shard.
//
// Every HTTP call goes through lib/llm (retries, concurrency limit,
// statistics). With Options.Cache, what a call computed is kept by content
// and not asked again, except under Cold, which App. C.5's timed queries
// use (memo.go). Serving
// parity (C.5) is the default: 16 documents in flight per query — embedding
// and cross-encoder requests carry batch_size texts (default 16) and run
// in_flight/batch_size at a time, chat requests carry one document and run
// 16 at a time — and plugins get a cap of 16 CPU threads.
//
// Per-model input formats (Table 3) and the task instructions of App. F.6
// are shipped in jobs/retrievers' models.yaml; the instruction applies to
// the query only.
//
// This package links the LLM client (lib/llm); jobs/retrievers, the
// declaration jobs/config reads, does not, so that a stage binary that
// scores with no retriever does not link it either.
package retrieval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/lexical"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/parallel"
)

// A Retriever scores a query's candidate documents; higher is more
// relevant. Score returns exactly one finite score per document, in the
// order of docs, or an error; it may be called concurrently. Close releases
// what the retriever holds (a plugin's process) and is called once, after
// the last Score.
type Retriever interface {
	Name() string
	Score(ctx context.Context, query string, docs []string) ([]float64, error)
	Close() error
}

// LLMRecorder is implemented by retrievers that call a server: their
// clients' statistics (calls, retries, failures, tokens, latency) go into
// the shard's manifest (llmcall.Record).
type LLMRecorder interface {
	LLMClients() []*llm.Client
}

// Counter is implemented by retrievers with statistics of their own (a
// plugin's requests); evaluate adds them to the shard's manifest.
type Counter interface {
	Counts() map[string]int64
}

type queryIDKey struct{}

// WithQueryID returns ctx carrying the id of the query being scored; a
// plugin receives it as its request id and errors name it.
func WithQueryID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, queryIDKey{}, id)
}

// QueryID returns the query id WithQueryID stored, or "".
func QueryID(ctx context.Context) string {
	id, _ := ctx.Value(queryIDKey{}).(string)
	return id
}

// Options are what building a retriever needs from its surroundings.
type Options struct {
	// Dir is the directory a plugin runs in (the config file's), so that
	// relative paths in its command resolve there; "" is the current one.
	Dir string
	// LexicalThreads is the cores a lexical built-in may use within one
	// query (C.5 allows 16 documents in flight and 16 threads): BM25
	// builds its index on a parallel.Team of up to that many (see
	// lexical.BM25.Team). ≤ 1: one. The scores are the same either way.
	LexicalThreads int
	// Cache is the run's cache, where the HTTP kinds keep what they
	// computed so that it is computed once (memo.go); nil: none, every
	// call asks the server.
	Cache *kvcache.Cache
}

// Registry builds retrievers by name: the lexical built-ins and the specs
// of a run config.
type Registry struct {
	specs map[string]retrievers.Spec
	opt   Options
}

// NewRegistry returns a registry of the lexical built-ins and specs.
func NewRegistry(specs map[string]retrievers.Spec, opt Options) *Registry {
	return &Registry{specs: specs, opt: opt}
}

// Names lists every name the registry builds, sorted.
func (r *Registry) Names() []string {
	names := lexical.Names()
	for n := range r.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// Spec returns the configured spec of name, defaults filled in.
func (r *Registry) Spec(name string) (retrievers.Spec, bool) {
	s, ok := r.specs[name]
	return s.WithDefaults(), ok
}

// Workers is the number of queries evaluate should score at once with
// name: the spec's workers (default 1) for a configured retriever, 0 (the
// stage's own default) for a lexical one.
func (r *Registry) Workers(name string) int {
	if s, ok := r.Spec(name); ok {
		return s.Workers
	}
	return 0
}

// Build returns the retriever called name, ready to score: clients made,
// a plugin started and warmed up (so that start-up stays outside the timed
// region). Errors of configuration or environment wrap retrievers.ErrBadSpec.
func (r *Registry) Build(ctx context.Context, name string) (Retriever, error) {
	spec, ok := r.specs[name]
	if !ok {
		sc, err := lexical.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("retriever %q is neither a lexical built-in nor defined under retrievers: (known: %s): %w",
				name, strings.Join(r.Names(), ", "), retrievers.ErrBadSpec)
		}
		l := &lexicalRetriever{name: name, sc: sc}
		if b, ok := sc.(*lexical.BM25); ok && r.opt.LexicalThreads > 1 {
			c := *b
			c.Team = parallel.NewTeam(min(r.opt.LexicalThreads, 16), parallel.DefaultSpin)
			l.sc, l.team = &c, c.Team
		}
		return l, nil
	}
	return build(ctx, name, spec, r.opt)
}

// Build builds one retriever from its spec (see Registry.Build).
func Build(ctx context.Context, name string, spec retrievers.Spec, opt Options) (Retriever, error) {
	return build(ctx, name, spec, opt)
}

func build(ctx context.Context, name string, spec retrievers.Spec, opt Options) (Retriever, error) {
	spec = spec.WithDefaults()
	var problems []string
	spec.Validate(name, func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) })
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %w", strings.Join(problems, "; "), retrievers.ErrBadSpec)
	}
	f, err := retrievers.NewFormatter(spec)
	if err != nil {
		return nil, fmt.Errorf("retrievers.%s: %v: %w", name, err, retrievers.ErrBadSpec)
	}
	b, ok := builder(spec.Kind)
	if !ok { // a kind registered in jobs/retrievers without its builder here
		return nil, fmt.Errorf("retrievers.%s: kind %q has no builder in jobs/retrieval", name, spec.Kind)
	}
	return b(ctx, name, spec, f, opt)
}

// Rank is the timed region of App. C.5: from handing the query's candidates
// to r until the sorted ranking is available. It scores, checks there is
// one finite score per candidate, and orders the candidates by score
// descending, ties by id ascending (lib/ndcg.Ranking). took covers all of
// it, a rewrite inside Score included.
func Rank(ctx context.Context, r Retriever, ids []string, query string, docs []string) (order []int, scores []float64, took time.Duration, err error) {
	if len(docs) != len(ids) {
		panic(fmt.Sprintf("retrieval: Rank with %d ids for %d documents", len(ids), len(docs)))
	}
	start := time.Now()
	scores, err = r.Score(ctx, query, docs)
	if err != nil {
		return nil, nil, 0, err
	}
	if len(scores) != len(ids) {
		return nil, nil, 0, fmt.Errorf("returned %d scores for %d candidates", len(scores), len(ids))
	}
	order, err = ndcg.Ranking(ids, scores)
	if err != nil {
		return nil, nil, 0, err
	}
	return order, scores, time.Since(start), nil
}

// lexicalRetriever adapts a lib/lexical scorer.
type lexicalRetriever struct {
	name string
	sc   lexical.Scorer
	team *parallel.Team // nil: one thread per query
}

func (l *lexicalRetriever) Name() string { return l.name }
func (l *lexicalRetriever) Close() error { l.team.Close(); return nil }
func (l *lexicalRetriever) Score(ctx context.Context, query string, docs []string) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.sc.Score(query, docs)
}

// httpBase is what the HTTP kinds share: the client, the formats and the
// optional query rewriter.
type httpBase struct {
	name     string
	spec     retrievers.Spec
	f        retrievers.Formatter
	client   *llm.Client
	rewriter *llm.Client // nil without rewrite
	memo     *memo       // nil: every call asks the server (see memo.go)
}

func (h *httpBase) Name() string { return h.name }
func (h *httpBase) Close() error { return nil }

// LLMClients returns the clients whose statistics go into the manifest.
func (h *httpBase) LLMClients() []*llm.Client {
	if h.rewriter != nil {
		return []*llm.Client{h.client, h.rewriter}
	}
	return []*llm.Client{h.client}
}

// rewrite applies the query rewriter, if any (inside the timed region).
// The memo keeps the rewritten query per (rewrite settings, query).
func (h *httpBase) rewrite(ctx context.Context, query string) (string, error) {
	if h.rewriter == nil {
		return query, nil
	}
	settings, err := json.Marshal(h.spec.Rewrite)
	if err != nil {
		return "", fmt.Errorf("rewrite: %w", err)
	}
	keys := func() []string { return []string{memoKey("rewrite/v1", string(settings), query)} }
	out := make([]string, 1)
	todo, finish, err := recall(ctx, h.memo, keys, out, func(b []byte) (string, error) { return string(b), nil }, func(s string) []byte { return []byte(s) })
	if err != nil {
		return "", err
	}
	if len(todo) > 0 {
		if out[0], err = h.askRewrite(ctx, query); err != nil {
			return "", err
		}
	}
	return out[0], finish()
}

// askRewrite asks the rewriter for query's rewrite and fills the template.
func (h *httpBase) askRewrite(ctx context.Context, query string) (string, error) {
	rw := h.spec.Rewrite
	var msgs []llm.Message
	if rw.System != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: rw.System})
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: strings.NewReplacer(retrievers.PlaceholderQuery, query).Replace(rw.Prompt)})
	resp, err := h.rewriter.Chat(ctx, llm.Request{PromptVersion: "rewrite:" + h.name, Messages: msgs, NoCache: true})
	if err != nil {
		return "", fmt.Errorf("rewrite: %w", err)
	}
	out := strings.TrimSpace(stripThink(resp.Content))
	if out == "" {
		return "", fmt.Errorf("rewrite: the model %s answered nothing", rw.Model)
	}
	return strings.NewReplacer(retrievers.PlaceholderRewrite, out, retrievers.PlaceholderQuery, query).Replace(rw.Template), nil
}

// stripThink removes a reasoning model's <think>…</think> block (and an
// unclosed one's opening up to the end of its block).
func stripThink(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		return s[i+len("</think>"):]
	}
	return s
}
