package retrieval_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/llm/llmtest"
)

// TestMemo: every kind that declares Memo keeps what it computed in the
// cache: a second retriever on the same cache (a rerun) scores the same
// query and documents with no request and the same scores, a query that
// shares documents with an earlier one asks only for the new ones, a
// document twice in one call is asked once, and a Cold call asks for
// everything and keeps it only when KeepCold is called.
func TestMemo(t *testing.T) {
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
		if strings.HasPrefix(req.Messages[0].Content, "Rewrite: ") {
			return "REWRITTEN " + strings.TrimPrefix(req.Messages[0].Content, "Rewrite: ")
		}
		return fmt.Sprintf("%.17g", relevance(req))
	})
	rw := &retrievers.Rewrite{Model: "chat", Prompt: "Rewrite: {query}", Template: "{query}\n{rewrite}"}
	specs := map[string]retrievers.Spec{
		"embedding":         {Kind: "embedding", Model: "emb", BatchSize: 3},
		"embedding_rewrite": {Kind: "embedding", Model: "emb", Rewrite: rw},
		"embedding_chunks":  {Kind: "embedding", Model: "emb", MaxInput: 2},
		"rerank":            {Kind: "rerank", Model: "rr", BatchSize: 3},
		"score":             {Kind: "score", Model: "sc"},
		"chat":              {Kind: "chat", Model: "gen", Prompt: "Q: {query}\nD: {doc}\nRelevant?", Parser: "number"},
	}
	ds := docs(10)
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			spec.BaseURL = srv.URL
			cache := kvcache.New(store.NewMem(), "run/_cache/llm")
			mk := func() retrieval.Retriever {
				r, err := retrieval.Build(context.Background(), name, spec, retrieval.Options{Cache: cache})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { r.Close() })
				if !retrieval.Memoizes(r) {
					t.Fatalf("kind %s declares Memo but its retriever keeps nothing", spec.Kind)
				}
				return r
			}
			// sent counts what the server computed: texts embedded, pairs
			// scored, or chat requests (a rewrite's included).
			sent := func() int64 {
				switch spec.Kind {
				case "embedding":
					return int64(len(srv.Embedded()))
				case "chat":
					return srv.Requests()
				}
				return int64(len(srv.Scored()))
			}
			score := func(ctx context.Context, r retrieval.Retriever, q string, d []string) ([]float64, int64) {
				t.Helper()
				before := sent()
				got, err := r.Score(ctx, q, d)
				if err != nil {
					t.Fatal(err)
				}
				return got, sent() - before
			}
			ctx := context.Background()
			first, n := score(ctx, mk(), "the area of a triangle", ds[:6])
			if n == 0 {
				t.Fatal("the first call made no request")
			}
			again, n := score(ctx, mk(), "the area of a triangle", ds[:6])
			if n != 0 || !slices.Equal(again, first) {
				t.Errorf("rerun: %d requests, scores equal %v; want 0, true", n, slices.Equal(again, first))
			}
			// Three of six documents new, one of them twice: only their
			// pieces not yet seen are sent, each once.
			_, n = score(ctx, mk(), "the area of a triangle", append(slices.Clone(ds[3:9]), ds[8]))
			seen := map[string]bool{}
			for _, d := range ds[:6] {
				for _, c := range retrievers.Chunks(d, spec.MaxInput) {
					seen[c] = true
				}
			}
			var want int64
			for _, d := range ds[6:9] {
				for _, c := range retrievers.Chunks(d, spec.MaxInput) {
					if !seen[c] {
						seen[c] = true
						want++
					}
				}
			}
			if n != want {
				t.Errorf("3 new documents (one twice) sent %d, want their %d pieces not seen before", n, want)
			}
			cold, n := score(retrieval.Cold(ctx), mk(), "the area of a triangle", ds[:6])
			if n == 0 || !slices.Equal(cold, first) {
				t.Errorf("cold: %d requests, scores equal %v; want > 0, true", n, slices.Equal(cold, first))
			}
			// A cold call keeps nothing until KeepCold; then the texts
			// it computed are not asked again.
			cctx := retrieval.Cold(ctx)
			score(cctx, mk(), "a new query", ds[9:])
			if _, n := score(ctx, mk(), "a new query", ds[9:]); n == 0 {
				t.Error("a cold call's work was kept before KeepCold")
			}
			cctx = retrieval.Cold(ctx)
			score(cctx, mk(), "yet another query", ds[:1])
			if err := retrieval.KeepCold(cctx); err != nil {
				t.Fatal(err)
			}
			if _, n := score(ctx, mk(), "yet another query", ds[:1]); n != 0 {
				t.Errorf("after KeepCold a warm call sent %d, want 0", n)
			}
		})
	}
	for _, k := range retrievers.Kinds() {
		if _, ok := specs[k.Name]; k.Memo && !ok {
			t.Errorf("kind %s declares Memo and has no case here", k.Name)
		}
	}
}

// TestMemoCorruptObjectNamed: a memo object that does not decode (a
// vector cut short) fails the call with the object's URI, since a
// write-once rerun would not replace it.
func TestMemoCorruptObjectNamed(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	ctx := context.Background()
	st := store.NewMem()
	cache := kvcache.New(st, "run/_cache/llm")
	r, err := retrieval.Build(ctx, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb"}, retrieval.Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ds := docs(3)
	if _, err := r.Score(ctx, "q", ds); err != nil {
		t.Fatal(err)
	}
	objs, err := st.List(ctx, "run/_cache/llm/")
	if err != nil || len(objs) == 0 {
		t.Fatalf("the memo holds %d objects (%v)", len(objs), err)
	}
	bad := objs[0].Key
	if _, err := store.Put(ctx, st, bad, []byte{1, 2, 3}, store.Replace); err != nil {
		t.Fatal(err)
	}
	_, err = r.Score(ctx, "q", ds)
	if err == nil || !strings.Contains(err.Error(), st.URI(bad)) {
		t.Fatalf("a corrupt memo object: %v, want an error naming %s", err, st.URI(bad))
	}
}

// TestNoMemoWithoutCache: built without a cache, a retriever asks every
// time and reports that it keeps nothing.
func TestNoMemoWithoutCache(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	r := build(t, "emb", retrievers.Spec{Kind: "embedding", BaseURL: srv.URL, Model: "emb"})
	if retrieval.Memoizes(r) {
		t.Error("Memoizes without a cache")
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Score(context.Background(), "q", docs(3)); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.Requests(); n != 2 {
		t.Errorf("%d requests for two calls, want 2", n)
	}
}
