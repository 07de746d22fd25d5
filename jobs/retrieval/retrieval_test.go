package retrieval_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/lexical"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// build builds a retriever from spec or fails the test; it is closed on
// cleanup.
func build(t *testing.T, name string, spec retrievers.Spec) retrieval.Retriever {
	t.Helper()
	r, err := retrieval.Build(context.Background(), name, spec, retrieval.Options{})
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

func TestRegistry(t *testing.T) {
	reg := retrieval.NewRegistry(map[string]retrievers.Spec{"emb": {Kind: "embedding", Model: "m", BaseURL: "http://127.0.0.1:1/v1"}}, retrieval.Options{})
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
	reg := retrieval.NewRegistry(nil, retrieval.Options{LexicalThreads: 3})
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
