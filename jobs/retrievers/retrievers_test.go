package retrievers_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/lexical"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// build builds a retriever from spec or fails the test; it is closed on
// cleanup.
func build(t *testing.T, name string, spec retrievers.Spec) retrievers.Retriever {
	t.Helper()
	r, err := retrievers.Build(context.Background(), name, spec, retrievers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// mean is the element-wise mean of the fake's vectors of texts, in float64.
func mean(texts ...string) []float64 {
	sum := make([]float64, llmtest.EmbedDim)
	for _, t := range texts {
		for i, x := range llmtest.EmbedVector(t) {
			sum[i] += float64(x)
		}
	}
	for i := range sum {
		sum[i] /= float64(len(texts))
	}
	return sum
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// cosine64 is cosine for float64 vectors.
func cosine64(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func docs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("document %d: let $x_%d$ be a prime with %d divisors", i, i, i%7)
	}
	return out
}

func TestChunks(t *testing.T) {
	for _, tt := range []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"no limit", "a b c", 0, []string{"a b c"}},
		{"under the limit unchanged", "  a\nb  ", 2, []string{"  a\nb  "}},
		{"exact multiple", "a b c d", 2, []string{"a b", "c d"}},
		{"remainder", "a b c d e", 2, []string{"a b", "c d", "e"}},
		{"spacing inside kept, outside dropped", " a\n\nb  c\td ", 2, []string{"a\n\nb", "c\td"}},
		{"one word per chunk", "x  y", 1, []string{"x", "y"}},
		{"no words", "   ", 3, []string{"   "}},
		{"unicode spaces", "α\u00a0β γ", 2, []string{"α\u00a0β", "γ"}},
	} {
		if got := retrievers.Chunks(tt.text, tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Chunks(%q, %d) = %q, want %q", tt.name, tt.text, tt.max, got, tt.want)
		}
	}
}

func TestShippedFormatsAndInstructions(t *testing.T) {
	f := retrievers.Formats()
	// Paper Table 3, verbatim with {q}/{d} → {text}.
	want := map[string][2]string{
		"gemma-300m": {"task: search result | query: {text}", "title: none | text: {text}"},
		"jina-v5":    {"Query: {text}", "Document: {text}"},
		"rader":      {"query: {text}<|im_end|>", "document: {text}<|im_end|>"},
		"gemini-001": {"{text}", "{text}"},
	}
	if len(f) != len(want) {
		t.Errorf("%d shipped formats, want the %d of Table 3", len(f), len(want))
	}
	for name, w := range want {
		if f[name].Query != w[0] || f[name].Doc != w[1] {
			t.Errorf("%s: %q / %q, want %q / %q", name, f[name].Query, f[name].Doc, w[0], w[1])
		}
	}
	if f["gemini-001"].QueryExtra["task_type"] != "RETRIEVAL_QUERY" || f["gemini-001"].DocExtra["task_type"] != "RETRIEVAL_DOCUMENT" {
		t.Errorf("gemini-001 task types: %v %v", f["gemini-001"].QueryExtra, f["gemini-001"].DocExtra)
	}
	in := retrievers.Instructions()
	if len(in) != 3 || !strings.HasPrefix(in["I3"], "Find the most relevant document based on the query.") || !strings.HasSuffix(in["I1"], "(not surface wording). {query}") {
		t.Errorf("instructions: %q", in)
	}
}

// TestFormatting checks what the server receives: the format's templates,
// the instruction on the query only, prepended or in the model's field.
func TestFormatting(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	i3 := "Find the most relevant document based on the query."
	for _, tt := range []struct {
		name         string
		spec         retrievers.Spec
		query, doc   string // what the server must see for "Q" and "D"
		checkDocOnly bool
	}{
		{"plain", retrievers.Spec{}, "Q", "D", false},
		{"jina-v5 format", retrievers.Spec{Format: "jina-v5"}, "Query: Q", "Document: D", false},
		{"rader with I3 prepended", retrievers.Spec{Format: "rader", Instruction: "I3"}, "query: " + i3 + " Q<|im_end|>", "document: D<|im_end|>", false},
		{"instruction field", retrievers.Spec{QueryTemplate: "Instruct: {instruction}\nQuery: {text}", Instruction: "I3"}, "Instruct: " + i3 + "\nQuery: Q", "D", false},
		{"text instruction with {query}", retrievers.Spec{Instruction: "Find similar problems to: {query} (math)"}, "Find similar problems to: Q (math)", "D", false},
		{"text instruction without {query}", retrievers.Spec{Instruction: "Find similar problems."}, "Find similar problems. Q", "D", false},
		{"template override of a format", retrievers.Spec{Format: "jina-v5", DocTemplate: "passage: {text}"}, "Query: Q", "passage: D", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.Kind, spec.BaseURL, spec.Model = retrievers.KindEmbedding, srv.URL, "emb"
			r := build(t, "e", spec)
			before := len(srv.Embedded())
			got, err := r.Score(context.Background(), "Q", []string{"D"})
			if err != nil {
				t.Fatal(err)
			}
			seen := srv.Embedded()[before:]
			if !slices.Equal(seen, []string{tt.query, tt.doc}) {
				t.Fatalf("server saw %q, want %q", seen, []string{tt.query, tt.doc})
			}
			if want := llmtest.Cosine(llmtest.EmbedVector(tt.query), llmtest.EmbedVector(tt.doc)); !near(got[0], want, 1e-12) {
				t.Errorf("score %v, want %v", got[0], want)
			}
		})
	}
}

func TestSpecValidation(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec retrievers.Spec
		want string
	}{
		{"unknown kind", retrievers.Spec{Kind: "bi-encoder"}, `kind: "bi-encoder" is not one of embedding, rerank, score, chat, plugin`},
		{"no model", retrievers.Spec{Kind: "embedding"}, "model is required"},
		{"unknown format", retrievers.Spec{Kind: "embedding", Model: "m", Format: "e5"}, `"e5" is not a shipped format (gemini-001, gemma-300m, jina-v5, rader)`},
		{"unknown instruction name", retrievers.Spec{Kind: "embedding", Model: "m", Instruction: "I4"}, `"I4" is not a shipped instruction (I1, I2, I3)`},
		{"template without text", retrievers.Spec{Kind: "embedding", Model: "m", QueryTemplate: "query:"}, "query_template: \"query:\" has no {text}"},
		{"instruction field unset", retrievers.Spec{Kind: "embedding", Model: "m", QueryTemplate: "{instruction} {text}"}, "no instruction is set"},
		{"instruction in documents", retrievers.Spec{Kind: "embedding", Model: "m", Instruction: "I1", DocTemplate: "{instruction} {text}"}, "for the query only"},
		{"field of another kind", retrievers.Spec{Kind: "chat", Model: "m", Prompt: "{query} {doc}", Parser: "number", MaxInput: 512}, "max_input: not used by kind chat (only by embedding, rerank, score)"},
		{"plugin without command", retrievers.Spec{Kind: "plugin"}, "command: required"},
		{"plugin with a model", retrievers.Spec{Kind: "plugin", Command: []string{"x"}, Model: "m"}, "model: not used by kind plugin"},
		{"chat without prompt", retrievers.Spec{Kind: "chat", Model: "m", Parser: "yes_no"}, "prompt: required for kind chat, with {query} and {doc}"},
		{"chat parser", retrievers.Spec{Kind: "chat", Model: "m", Prompt: "{query} {doc}", Parser: "json"}, `parser: "json" is not one of yes_no, number`},
		{"batch over in_flight", retrievers.Spec{Kind: "rerank", Model: "m", InFlight: 8, BatchSize: 16}, "batch_size: 16 must be in [1, in_flight = 8]"},
		{"rewrite without model", retrievers.Spec{Kind: "embedding", Model: "m", Rewrite: &retrievers.Rewrite{Prompt: "Rewrite {query}"}}, "rewrite.model: required"},
		{"rewrite prompt", retrievers.Spec{Kind: "embedding", Model: "m", Rewrite: &retrievers.Rewrite{Model: "c", Prompt: "Rewrite"}}, "rewrite.prompt: required, with {query}"},
		{"api key pasted", retrievers.Spec{Kind: "score", Model: "m", APIKeyEnv: "sk-123"}, "api_key_env must be the NAME"},
		{"key over plain http", retrievers.Spec{Kind: "embedding", Model: "m", BaseURL: "http://10.0.0.3:8000/v1"}, "set retrievers.x.allow_insecure_key: true"},
		{"rewriter key over plain http", retrievers.Spec{Kind: "embedding", Model: "m", Rewrite: &retrievers.Rewrite{Model: "c", Prompt: "Rewrite {query}", BaseURL: "http://10.0.0.3:8000/v1"}}, "set retrievers.x.rewrite.allow_insecure_key: true"},
		{"allow_insecure_key of a plugin", retrievers.Spec{Kind: "plugin", Command: []string{"x"}, AllowInsecureKey: true}, "allow_insecure_key: not used by kind plugin"},
	} {
		var got []string
		tt.spec.WithDefaults().Validate("x", func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) })
		if !strings.Contains(strings.Join(got, "; "), tt.want) {
			t.Errorf("%s: problems %q, want one containing %q", tt.name, got, tt.want)
		}
	}
	var got []string
	retrievers.Spec{Kind: "embedding", Model: "m"}.WithDefaults().Validate("bm25", func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) })
	if len(got) != 1 || !strings.Contains(got[0], "built-in lexical retriever") {
		t.Errorf("shadowing bm25: %q", got)
	}
	// allow_insecure_key lets a trusted cluster network carry the key,
	// the rewriter's too.
	insecure := retrievers.Spec{Kind: "embedding", Model: "m", BaseURL: "http://10.0.0.3:8000/v1", AllowInsecureKey: true,
		Rewrite: &retrievers.Rewrite{Model: "c", Prompt: "Rewrite {query}"}}.WithDefaults()
	insecure.Validate("ins", func(f string, a ...any) { t.Errorf("allow_insecure_key: "+f, a...) })
	ok := retrievers.Spec{Kind: "chat", Model: "m", Prompt: "Q: {query}\nD: {doc}\nRelevant?", Parser: "yes_no"}.WithDefaults()
	ok.Validate("ok", func(f string, a ...any) { t.Errorf("valid chat spec: "+f, a...) })
	if ok.MaxTokens != 1 || ok.TopLogprobs != 20 || ok.InFlight != 16 || ok.Workers != 1 || *ok.Temperature != 0 {
		t.Errorf("chat defaults: %+v", ok)
	}
}

func TestRegistry(t *testing.T) {
	reg := retrievers.NewRegistry(map[string]retrievers.Spec{"emb": {Kind: "embedding", Model: "m", BaseURL: "http://127.0.0.1:1/v1"}}, retrievers.Options{})
	if !slices.Contains(reg.Names(), "emb") || !slices.Contains(reg.Names(), "bm25-no-tok") {
		t.Errorf("names %v", reg.Names())
	}
	if reg.Workers("emb") != 1 || reg.Workers("bm25") != 0 {
		t.Errorf("workers %d %d", reg.Workers("emb"), reg.Workers("bm25"))
	}
	r, err := reg.Build(context.Background(), "bm25-no-tok")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc, _ := lexical.Lookup("bm25-no-tok")
	q, ds := "prime divisors", docs(5)
	got, err := r.Score(context.Background(), q, ds)
	want, _ := sc.Score(q, ds)
	if err != nil || !slices.Equal(got, want) || r.Name() != "bm25-no-tok" {
		t.Errorf("lexical adapter: %v %v, want %v", got, err, want)
	}
	if _, err := reg.Build(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "bm25, bm25-no-tok, emb") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestLexicalThreads checks that lexical retrievers built to use several
// threads per query score as with one, and close cleanly.
func TestLexicalThreads(t *testing.T) {
	reg := retrievers.NewRegistry(nil, retrievers.Options{LexicalThreads: 3})
	q, ds := "prime divisors $x^2$", docs(120)
	for _, name := range lexical.Names() {
		r, err := reg.Build(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		sc, _ := lexical.Lookup(name)
		want, _ := sc.Score(q, ds)
		for range 3 {
			got, err := r.Score(context.Background(), q, ds)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("%s with 3 threads: %v %v, want %v", name, got, err, want)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
