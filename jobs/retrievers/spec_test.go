package retrievers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/retrievers"
)

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
		{"name-shaped token as api_key_env", retrievers.Spec{Kind: "score", Model: "m", APIKeyEnv: "hf_AuditSecretTokenAbCdEfGhIjKlMnOpQrSt"}, "api_key_env must be the NAME"},
		{"secret in a plugin's env", retrievers.Spec{Kind: "plugin", Command: []string{"x"}, Env: map[string]string{"MYTOK": "hf_AuditSecretTokenAbCdEfGhIjKlMnOpQrSt"}}, "env.MYTOK: its value looks like a secret (a Hugging Face token"},
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

// TestFormatter: the format's templates, the instruction on the query
// only, prepended or in the model's field, and the format's extra request
// options (jobs/retrieval's TestFormatting checks that the server sees
// the same).
func TestFormatter(t *testing.T) {
	i3 := "Find the most relevant document based on the query."
	for _, tt := range []struct {
		name       string
		spec       retrievers.Spec
		query, doc string // what "Q" and "D" become
	}{
		{"plain", retrievers.Spec{}, "Q", "D"},
		{"jina-v5 format", retrievers.Spec{Format: "jina-v5"}, "Query: Q", "Document: D"},
		{"rader with I3 prepended", retrievers.Spec{Format: "rader", Instruction: "I3"}, "query: " + i3 + " Q<|im_end|>", "document: D<|im_end|>"},
		{"instruction field", retrievers.Spec{QueryTemplate: "Instruct: {instruction}\nQuery: {text}", Instruction: "I3"}, "Instruct: " + i3 + "\nQuery: Q", "D"},
		{"text instruction with {query}", retrievers.Spec{Instruction: "Find similar problems to: {query} (math)"}, "Find similar problems to: Q (math)", "D"},
		{"text instruction without {query}", retrievers.Spec{Instruction: "Find similar problems."}, "Find similar problems. Q", "D"},
		{"template override of a format", retrievers.Spec{Format: "jina-v5", DocTemplate: "passage: {text}"}, "Query: Q", "passage: D"},
	} {
		tt.spec.Kind = retrievers.KindEmbedding
		f, err := retrievers.NewFormatter(tt.spec)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if q, d := f.Query("Q"), f.Doc("D"); q != tt.query || d != tt.doc {
			t.Errorf("%s: %q / %q, want %q / %q", tt.name, q, d, tt.query, tt.doc)
		}
	}
	f, err := retrievers.NewFormatter(retrievers.Spec{Kind: retrievers.KindEmbedding, Format: "gemini-001"})
	if err != nil || f.QueryExtra["task_type"] != "RETRIEVAL_QUERY" || f.DocExtra["task_type"] != "RETRIEVAL_DOCUMENT" {
		t.Errorf("gemini-001 extras: %v %v, %v", f.QueryExtra, f.DocExtra, err)
	}
	if _, err := retrievers.NewFormatter(retrievers.Spec{Format: "e5"}); err == nil {
		t.Error("unknown format: no error")
	}
}
