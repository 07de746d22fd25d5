package retrieval_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// TestEmbeddingScoresAreCosinesOfTheFakesVectors: with 150 candidates, every
// score is the cosine of the fake's vectors of the query and the document,
// the default batching sends ⌈151/16⌉ = 10 requests one at a time, and each
// text is embedded exactly once.
func TestEmbeddingScoresAreCosinesOfTheFakesVectors(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	r := build(t, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb"})
	q, ds := "how many primes divide 30?", docs(150)
	got, err := r.Score(context.Background(), q, ds)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if want := llmtest.Cosine(llmtest.EmbedVector(q), llmtest.EmbedVector(d)); !near(got[i], want, 1e-12) {
			t.Fatalf("doc %d: %v, want %v", i, got[i], want)
		}
	}
	if n := srv.RequestsTo("/v1/embeddings"); n != 10 {
		t.Errorf("%d requests, want ⌈151/16⌉ = 10", n)
	}
	if m := srv.MaxInFlight(); m != 1 {
		t.Errorf("%d requests in flight, want 1 (16 texts each)", m)
	}
	seen := srv.Embedded()
	sort.Strings(seen)
	want := append([]string{q}, ds...)
	sort.Strings(want)
	if !slices.Equal(seen, want) {
		t.Errorf("the server embedded %d texts, want each of the 151 once", len(seen))
	}
}

// TestEmbeddingOneTextPerRequest is the OpenAI embedders' parity setting
// (C.5): one text per request, 16 requests at a time.
func TestEmbeddingOneTextPerRequest(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	srv.SetDelay(5 * time.Millisecond)
	r := build(t, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb", BatchSize: 1})
	if _, err := r.Score(context.Background(), "q", docs(150)); err != nil {
		t.Fatal(err)
	}
	if n, m := srv.RequestsTo("/v1/embeddings"), srv.MaxInFlight(); n != 151 || m > 16 || m < 2 {
		t.Errorf("%d requests, %d in flight; want 151 and at most 16", n, m)
	}
}

// TestChunkAveraging (App. C.2): a text over max_input words is split into
// non-overlapping chunks, each chunk is embedded exactly once, and the
// text's vector is the mean of the chunks' vectors; texts within the limit
// are embedded whole.
func TestChunkAveraging(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	r := build(t, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb", MaxInput: 3, Format: "jina-v5"})
	q := "sum of two squares"  // 4 words: 2 chunks
	long := "a b c\nd e f g h" // 8 words: 3 chunks
	short := "prime\tnumbers"  // 2 words: whole
	qChunks := []string{"Query: sum of two", "Query: squares"}
	longChunks := []string{"Document: a b c", "Document: d e f", "Document: g h"}
	got, err := r.Score(context.Background(), q, []string{long, short})
	if err != nil {
		t.Fatal(err)
	}
	seen := srv.Embedded()
	wantSeen := append(append(append([]string(nil), qChunks...), longChunks...), "Document: prime\tnumbers")
	if !slices.Equal(seen, wantSeen) {
		t.Fatalf("server embedded %q, want %q", seen, wantSeen)
	}
	counts := map[string]int{}
	for _, s := range seen {
		counts[s]++
	}
	for s, n := range counts {
		if n != 1 {
			t.Errorf("%q embedded %d times", s, n)
		}
	}
	qv := mean(qChunks...)
	if want := cosine64(qv, mean(longChunks...)); !near(got[0], want, 1e-12) {
		t.Errorf("long document: %v, want the cosine of the means %v", got[0], want)
	}
	if want := cosine64(qv, f64(llmtest.EmbedVector("Document: prime\tnumbers"))); !near(got[1], want, 1e-12) {
		t.Errorf("short document: %v, want %v", got[1], want)
	}
	// The mean is not the first chunk's vector: averaging happened.
	if near(got[0], cosine64(qv, f64(llmtest.EmbedVector(longChunks[0]))), 1e-3) {
		t.Error("long document scored by its first chunk only")
	}
}

// TestRerankChunks: a reranker gets the embeddings' input-length rule: a
// document over max_input words is split into the same chunks, each
// scored once against the whole query, and its score is the mean of its
// chunks'; a document within the limit is scored whole. Both kinds.
func TestRerankChunks(t *testing.T) {
	for _, kind := range []string{"rerank", "score"} {
		t.Run(kind, func(t *testing.T) {
			srv := llmtest.NewServer(t, nil)
			r := build(t, "rr", retrievers.Spec{Kind: kind, BaseURL: srv.URL, Model: "rr", MaxInput: 3, BatchSize: 2, InFlight: 2})
			q, long, short := "sum of two squares", "a b c\nd e f g h", "prime\tnumbers"
			got, err := r.Score(context.Background(), q, []string{long, short})
			if err != nil {
				t.Fatal(err)
			}
			chunks := retrievers.Chunks(long, 3)
			if len(chunks) != 3 {
				t.Fatalf("chunks %q", chunks)
			}
			var want float64
			for _, c := range chunks {
				want += llmtest.RelevanceScore(q, c) / 3
			}
			if !near(got[0], want, 1e-12) || near(got[0], llmtest.RelevanceScore(q, long), 1e-6) {
				t.Errorf("long document: %v, want the mean of its chunks' scores %v (whole: %v)", got[0], want, llmtest.RelevanceScore(q, long))
			}
			if w := llmtest.RelevanceScore(q, short); !near(got[1], w, 1e-12) {
				t.Errorf("short document: %v, want %v", got[1], w)
			}
			path := "/v1/" + kind
			if n := srv.RequestsTo(path); n != 2 {
				t.Errorf("%d requests to %s; want 2 (4 pieces, 2 a request)", n, path)
			}
		})
	}
}

func TestDimensions(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	r := build(t, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb", Dimensions: 8})
	got, err := r.Score(context.Background(), "q", []string{"d"})
	if err != nil {
		t.Fatal(err)
	}
	want := llmtest.Cosine(llmtest.Truncate(llmtest.EmbedVector("q"), 8), llmtest.Truncate(llmtest.EmbedVector("d"), 8))
	if !near(got[0], want, 1e-12) || near(want, llmtest.Cosine(llmtest.EmbedVector("q"), llmtest.EmbedVector("d")), 1e-9) {
		t.Errorf("with dimensions 8: %v, want %v", got[0], want)
	}
}

// TestTaskTypeSplitsQueryFromDocuments: with different request options for
// queries and documents (gemini-001), the query goes in its own request.
func TestTaskTypeSplitsQueryFromDocuments(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	r := build(t, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb", Format: "gemini-001"})
	if _, err := r.Score(context.Background(), "q", docs(16)); err != nil {
		t.Fatal(err)
	}
	if n := srv.RequestsTo("/v1/embeddings"); n != 2 {
		t.Errorf("%d requests, want 2 (the query, then 16 documents)", n)
	}
}

func TestCrossEncoders(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	q, ds := "count the lattice paths", docs(150)
	for _, tt := range []struct {
		spec retrievers.Spec
		path string
	}{
		{retrievers.Spec{Kind: "rerank", Model: "rr"}, "/v1/rerank"},
		{retrievers.Spec{Kind: "score", Model: "sc"}, "/v1/score"},
		{retrievers.Spec{Kind: "score", Model: "sc", Endpoint: "../score"}, "/score"},
		{retrievers.Spec{Kind: "rerank", Model: "rr", Instruction: "I2"}, "/v1/rerank"},
	} {
		spec := tt.spec
		spec.BaseURL = srv.URL
		r := build(t, spec.Kind, spec)
		before := srv.RequestsTo(tt.path)
		got, err := r.Score(context.Background(), q, ds)
		if err != nil {
			t.Fatal(err)
		}
		fq := q
		if spec.Instruction == "I2" {
			fq = strings.ReplaceAll(retrievers.Instructions()["I2"], "{query}", q)
		}
		for i, d := range ds {
			if want := llmtest.RelevanceScore(fq, d); got[i] != want {
				t.Fatalf("%s doc %d: %v, want %v", tt.path, i, got[i], want)
			}
		}
		if n := srv.RequestsTo(tt.path) - before; n != 10 {
			t.Errorf("%s: %d requests, want ⌈150/16⌉ = 10", tt.path, n)
		}
	}
}

// relevanceHandler answers a chat reranker's prompt "Q: …\nD: …" from the
// fake cross-encoder: p = (1 + cos)/2; "yes" when p ≥ 0.5; with logprobs
// ln p for yes and ln(1−p) for no.
var prompt = regexp.MustCompile(`(?s)^Q: (.*)\nD: (.*)\nRelevant\?$`)

func relevance(req llmtest.ChatRequest) float64 {
	m := prompt.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
	if m == nil {
		return -1
	}
	return (1 + llmtest.RelevanceScore(m[1], m[2])) / 2
}

func TestChatRerankers(t *testing.T) {
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
		p := relevance(req)
		if req.Logprobs {
			if p >= 0.5 {
				return "yes"
			}
			return "no"
		}
		return fmt.Sprintf("<think>maybe 0.1?</think>The score is %.17g", p)
	})
	srv.SetLogprobs(func(req llmtest.ChatRequest, content string) []llmtest.TokenLogprob {
		p := relevance(req)
		return []llmtest.TokenLogprob{{Token: content, Logprob: math.Log(max(p, 1-p)),
			Top: []llmtest.TopLogprob{{Token: "Yes", Logprob: math.Log(p)}, {Token: " no", Logprob: math.Log(1 - p)}, {Token: "maybe", Logprob: -30}}}}
	})
	q, ds := "find the area of the triangle", docs(40)
	for _, parser := range []string{"yes_no", "number"} {
		r := build(t, parser, retrievers.Spec{Kind: "chat", BaseURL: srv.URL, Model: "gen", Prompt: "Q: {query}\nD: {doc}\nRelevant?", Parser: parser})
		got, err := r.Score(context.Background(), q, ds)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range ds {
			want := (1 + llmtest.RelevanceScore(q, d)) / 2
			if !near(got[i], want, 1e-12) {
				t.Fatalf("%s doc %d: %v, want %v", parser, i, got[i], want)
			}
		}
	}
	if m := srv.MaxInFlight(); m > 16 {
		t.Errorf("%d chat requests in flight, want ≤ 16", m)
	}
}

func TestParsers(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"7", 7, true}, {"Score: 3 out of 10 → 0.3", 0.3, true}, {"<think>9</think> final: -2.5e-1", -0.25, true},
		{"no number", 0, false}, {"<think>7</think>none", 0, false},
	} {
		got, err := retrieval.LastNumber(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("LastNumber(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestRewrite: the rewriter's answer (think block removed) replaces the
// query through the template before embedding.
func TestRewrite(t *testing.T) {
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
		return "<think>hmm</think>  REWRITTEN " + strings.TrimPrefix(req.Messages[0].Content, "Rewrite: ") + "\n"
	})
	r := build(t, "w", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb",
		Rewrite: &retrievers.Rewrite{Model: "chat", Prompt: "Rewrite: {query}", Template: "{query}\n{rewrite}"}})
	got, err := r.Score(context.Background(), "q", []string{"d"})
	if err != nil {
		t.Fatal(err)
	}
	if want := llmtest.Cosine(llmtest.EmbedVector("q\nREWRITTEN q"), llmtest.EmbedVector("d")); !near(got[0], want, 1e-12) {
		t.Errorf("%v, want %v", got[0], want)
	}
	rec := r.(retrieval.LLMRecorder).LLMClients()
	if len(rec) != 2 || rec[1].Stats().Calls != 1 {
		t.Errorf("rewriter client not recorded: %d clients", len(rec))
	}
}

// TestFaultsAreRetried: with 10% injected faults of every transient kind,
// every retriever kind still returns the exact scores, and the retries are
// counted in the client statistics the manifest records.
func TestFaultsAreRetried(t *testing.T) {
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string { return fmt.Sprintf("%.17g", relevance(req)) })
	srv.SetFaults(llmtest.Faults{Rate: 0.1, Seed: 7, SlowDelay: 400 * time.Millisecond})
	q, ds := "q", docs(64)
	var retries int64
	for _, spec := range []retrievers.Spec{
		{Kind: "embedding", Model: "emb", BatchSize: 2},
		{Kind: "rerank", Model: "rr", BatchSize: 2},
		{Kind: "chat", Model: "gen", Prompt: "Q: {query}\nD: {doc}\nRelevant?", Parser: "number"},
	} {
		spec.BaseURL, spec.TimeoutSeconds = srv.URL, 0.2
		r := build(t, spec.Kind, spec)
		got, err := r.Score(context.Background(), q, ds)
		if err != nil {
			t.Fatalf("%s: %v", spec.Kind, err)
		}
		for i, d := range ds {
			want := map[string]float64{
				"embedding": llmtest.Cosine(llmtest.EmbedVector(q), llmtest.EmbedVector(d)),
				"rerank":    llmtest.RelevanceScore(q, d),
				"chat":      (1 + llmtest.RelevanceScore(q, d)) / 2,
			}[spec.Kind]
			if !near(got[i], want, 1e-12) {
				t.Fatalf("%s doc %d: %v, want %v", spec.Kind, i, got[i], want)
			}
		}
		st := r.(retrieval.LLMRecorder).LLMClients()[0].Stats()
		retries += st.Retries
	}
	var faults int64
	for _, n := range srv.Faulted() {
		faults += n
	}
	if faults == 0 || retries != faults {
		t.Errorf("%d faults injected, %d retries counted; want equal and > 0", faults, retries)
	}
}

// TestTimingHarness checks that Rank, the timed region evaluate uses,
// measures what the batching implies. The fake waits 50 ms per request
// whatever it carries, so a query's time is (sequential request rounds) ×
// 50 ms. With the default 16 documents in flight and 150 candidates:
//
//   - embedding, 16 texts a request, one at a time: the query rides in the
//     first request, ⌈(1+150)/16⌉ = 10 rounds = 500 ms;
//   - embedding, 1 text a request, 16 at a time: ⌈151/16⌉ = 10 rounds = 500 ms;
//   - rerank, 16 documents a request, one at a time: ⌈150/16⌉ = 10 rounds = 500 ms;
//   - chat, 1 document a request, 16 at a time: ⌈150/16⌉ = 10 rounds = 500 ms;
//   - embedding with a rewrite: the rewrite is one more round, before the
//     embeddings and inside the timed region: 11 rounds = 550 ms.
//
// The server is in memory and the clock synctest's, which advances only
// when every goroutine waits: the work between the waits takes no time, so
// each query's time is exactly that value on any machine, and is the time
// the whole Rank call took.
func TestTimingHarness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := llmtest.NewPipeServer(t, func(req llmtest.ChatRequest) string {
			if p := relevance(req); p >= 0 {
				return fmt.Sprint(p)
			}
			return "rewritten"
		})
		const delay = 50 * time.Millisecond
		srv.SetDelay(delay)
		chat := retrievers.Spec{Kind: "chat", Model: "gen", Prompt: "Q: {query}\nD: {doc}\nRelevant?", Parser: "number"}
		rw := &retrievers.Rewrite{Model: "chat", Prompt: "Rewrite {query}"}
		ds := docs(150)
		ids := make([]string, len(ds))
		for i := range ids {
			ids[i] = fmt.Sprintf("d%03d", i)
		}
		for _, tt := range []struct {
			name   string
			spec   retrievers.Spec
			rounds int
		}{
			{"embedding 16/request", retrievers.Spec{Kind: "embedding", Model: "emb"}, 10},
			{"embedding 1/request ×16", retrievers.Spec{Kind: "embedding", Model: "emb", BatchSize: 1}, 10},
			{"rerank 16/request", retrievers.Spec{Kind: "rerank", Model: "rr"}, 10},
			{"chat ×16", chat, 10},
			{"embedding with rewrite", retrievers.Spec{Kind: "embedding", Model: "emb", Rewrite: rw}, 11},
		} {
			spec := tt.spec
			spec.BaseURL = srv.URL
			r := build(t, "t", spec)
			for _, c := range r.(retrieval.LLMRecorder).LLMClients() {
				srv.Connect(c)
			}
			want := time.Duration(tt.rounds) * delay
			// The first query opens the connections, the next reuse them.
			for k := range 3 {
				start := time.Now()
				_, _, took, err := retrieval.Rank(context.Background(), r, ids, fmt.Sprintf("query %d", k), ds)
				if err != nil {
					t.Fatal(err)
				}
				if el := time.Since(start); took != want || el != want {
					t.Errorf("%s, query %d: Rank measured %v and took %v, want %d × %v = %v", tt.name, k, took, el, tt.rounds, delay, want)
				}
			}
		}
	})
}
