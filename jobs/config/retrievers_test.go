package config

import (
	"encoding/json"
	"strings"
	"testing"
)

const withRetrievers = `
run: r1
root: data
retrievers:
  qwen3-emb:
    kind: embedding
    base_url: http://127.0.0.1:8001/v1
    model: Qwen/Qwen3-Embedding-0.6B
    instruction: I1
    max_input: 6000
  rader-7b:
    kind: embedding
    model: rader-7b
    format: rader
  bge-rr:
    kind: rerank
    model: BAAI/bge-reranker-v2-m3
  overlap:
    kind: plugin
    command: [python3, examples/plugins/overlap.py, --threads, "{threads}"]
evaluate:
  retrievers: [bm25, qwen3-emb, rader-7b, bge-rr, overlap]
`

func TestRetrieversSection(t *testing.T) {
	c, err := Parse([]byte(withRetrievers))
	if err != nil {
		t.Fatal(err)
	}
	if c.EvalTasks() != 5 {
		t.Errorf("EvalTasks %d", c.EvalTasks())
	}
	e := c.Retrievers["qwen3-emb"]
	if e.InFlight != 16 || e.BatchSize != 16 || e.Workers != 1 || e.MaxInput != 6000 {
		t.Errorf("embedding defaults: %+v", e)
	}
	if p := c.Retrievers["overlap"]; p.Threads != 16 || p.TimeoutSeconds != 600 {
		t.Errorf("plugin defaults: %+v", p)
	}
	want := "bm25,tfidf,jaccard,bm25-no-tok,tfidf-no-tok,jaccard-no-tok,bge-rr,overlap,qwen3-emb,rader-7b"
	if got := strings.Join(c.RetrieverNames(), ","); got != want {
		t.Errorf("RetrieverNames %s", got)
	}
	// Defaults are idempotent: the printed config parses to the same specs.
	out, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse(out)
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, out)
	}
	a, _ := json.Marshal(c.Retrievers)
	b, _ := json.Marshal(c2.Retrievers)
	if string(a) != string(b) {
		t.Errorf("retrievers changed through --print-config:\n%s\n%s", a, b)
	}
}

func TestRetrieversSectionErrors(t *testing.T) {
	base := "run: r\nroot: d\n"
	for _, tt := range []struct{ yaml, want string }{
		{"evaluate: {retrievers: [bm25, e5]}\n", `evaluate.retrievers[1]: "e5" is not a known retriever (bm25, tfidf, jaccard, bm25-no-tok, tfidf-no-tok, jaccard-no-tok)`},
		{"retrievers: {e5: {kind: embedding, model: m}}\nevaluate: {retrievers: [e55]}\n", `"e55" is not a known retriever (bm25, tfidf, jaccard, bm25-no-tok, tfidf-no-tok, jaccard-no-tok, e5)`},
		{"retrievers: {e5: {kind: embedding, modle: m}}\n", "unknown key retrievers.e5.modle"},
		{"retrievers: {e5: {kind: embedding, model: m, rewrite: {modle: x}}}\n", "unknown key retrievers.e5.rewrite.modle"},
		{"retrievers: {e5: {kind: embedding, model: m, format: e5}}\n", `retrievers.e5.format: "e5" is not a shipped format`},
		{"retrievers: {e5: {kind: chat, model: m, max_input: 512}}\n", "retrievers.e5.max_input: not used by kind chat"},
		{"retrievers: {bm25: {kind: embedding, model: m}}\n", "retrievers.bm25: \"bm25\" is a built-in lexical retriever"},
		{"retrievers: {p: {kind: plugin}}\n", "retrievers.p.command: required"},
	} {
		_, err := Parse([]byte(base + tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v\nwant %q", tt.yaml, err, tt.want)
		}
	}
}

// TestRetrieverKeys: the config keys of the evaluated retrievers, in the
// paths Values writes, so editing a retriever defined but not evaluated
// changes none of them.
func TestRetrieverKeys(t *testing.T) {
	y := strings.Replace(withRetrievers, "evaluate:\n  retrievers: [bm25, qwen3-emb, rader-7b, bge-rr, overlap]", "evaluate:\n  retrievers: [bm25, qwen3-emb, overlap]", 1)
	y = strings.Replace(y, "retrievers:\n  qwen3-emb:", "retrievers:\n  v1.5:\n    kind: rerank\n    model: x\n  qwen3-emb:", 1)
	c, err := Parse([]byte(y + "  # v1.5 defined, not evaluated\n"))
	if err != nil {
		t.Fatal(err)
	}
	keys := c.RetrieverKeys()
	if strings.Join(keys, ",") != "retrievers.qwen3-emb,retrievers.overlap" {
		t.Errorf("RetrieverKeys = %v", keys)
	}
	v := c.Values(keys...)
	if v["retrievers.qwen3-emb.model"] != `"Qwen/Qwen3-Embedding-0.6B"` || v["retrievers.qwen3-emb.base_url"] != "" {
		t.Errorf("values %v", v)
	}
	for k := range v {
		if strings.HasPrefix(k, "retrievers.rader") || strings.HasPrefix(k, "retrievers.bge") || strings.HasPrefix(k, `retrievers["v1.5"]`) {
			t.Errorf("an unevaluated retriever's key %s", k)
		}
	}
	if got := MapKey("retrievers", "v1.5"); got != `retrievers["v1.5"]` {
		t.Errorf("MapKey = %s", got)
	}
}
