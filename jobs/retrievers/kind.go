package retrievers

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/saber-math/saber/lib/llmconf"
)

// Kinds of configured retrievers, as declared in the registry below.
const (
	KindEmbedding = "embedding" // bi-encoder over /embeddings, cosine
	KindRerank    = "rerank"    // cross-encoder over /rerank (vLLM, Jina, Cohere)
	KindScore     = "score"     // cross-encoder over vLLM's /score
	KindChat      = "chat"      // generative reranker over chat completions
	KindPlugin    = "plugin"    // external program, JSONL on stdin/stdout
)

// A Kind declares one kind of configured retriever: everything config,
// report, downstream and the docs need to know about it. How to build a
// retriever of the kind is not here but in jobs/retrieval (keyed by Name),
// because building links the LLM client and this package must not
// (TestNoLLMClient in jobs/config); jobs/retrieval's tests check that
// every declared kind has a builder and every builder a declaration.
type Kind struct {
	// Name is the value of a spec's `kind:` key.
	Name string
	// Family is the kind's quality–latency frontier family (one of
	// Families), unless report.families overrides it.
	Family string
	// TakesInstruction says the kind has an instruction mechanism, so the
	// instructions study evaluates it once more per instruction (App. D.9).
	TakesInstruction bool
	// BiEncoder says a retriever of the kind embeds queries and documents
	// apart (retrieval.Embedder), so downstream ranks the whole pool with
	// it, as the paper does with its bi-encoders (App. B.4).
	BiEncoder bool
	// Memo says a retriever of the kind keeps what it computes in the
	// run's cache (jobs/retrieval/memo.go), so that evaluate asks for each
	// text once and times it only on the latency sample, cold (App. C.5).
	Memo bool
	// Fields are the spec's yaml keys only some kinds use that this one
	// does; Validate rejects the others when set. Keys every kind uses
	// (kind, format, query_template, doc_template, instruction, in_flight,
	// workers, timeout_seconds) are not listed.
	Fields []string
	// Defaults, if not nil, fills the kind's own defaults; it must be
	// idempotent, as WithDefaults is.
	Defaults func(Spec) Spec
	// Validate, if not nil, reports the kind's own problems of a spec
	// (defaults filled in) through bad, each prefixed with p, the spec's
	// key path.
	Validate func(s Spec, p string, bad func(format string, a ...any))
}

// uses says whether the kind uses the key field.
func (k Kind) uses(field string) bool { return slices.Contains(k.Fields, field) }

// httpFields are the keys of every kind that calls an OpenAI-compatible
// server through lib/llm.
var httpFields = []string{"base_url", "model", "api_key_env", "allow_insecure_key", "max_attempts", "rewrite"}

// kinds is the registry, in the order messages and docs list the kinds.
var kinds = []Kind{
	{
		Name: KindEmbedding, Family: FamilyBiEncoder, TakesInstruction: true, BiEncoder: true, Memo: true,
		Fields:   append(slices.Clone(httpFields), "max_input", "dimensions", "batch_size"),
		Validate: validateHTTP,
	},
	{
		Name: KindRerank, Family: FamilyCrossEncoder, TakesInstruction: true, Memo: true,
		Fields:   append(slices.Clone(httpFields), "max_input", "batch_size", "endpoint"),
		Validate: validateHTTP,
	},
	{
		Name: KindScore, Family: FamilyCrossEncoder, TakesInstruction: true, Memo: true,
		Fields:   append(slices.Clone(httpFields), "max_input", "batch_size", "endpoint"),
		Validate: validateHTTP,
	},
	{
		Name: KindChat, Family: FamilyCrossEncoder, TakesInstruction: true, Memo: true,
		Fields: append(slices.Clone(httpFields), "prompt", "system", "parser", "yes_tokens", "no_tokens",
			"top_logprobs", "max_tokens", "temperature"),
		Defaults: chatDefaults,
		Validate: validateChat,
	},
	{
		Name: KindPlugin, Family: FamilyOther,
		Fields:   []string{"command", "env", "threads", "start_timeout_seconds"},
		Defaults: pluginDefaults,
		Validate: validatePlugin,
	},
}

var kindsMu sync.RWMutex

// Kinds returns the registered kinds in registry order.
func Kinds() []Kind {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	return slices.Clone(kinds)
}

// KindNames returns the names of the registered kinds in registry order.
func KindNames() []string {
	ks := Kinds()
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Name
	}
	return out
}

// LookupKind returns the registered kind called name.
func LookupKind(name string) (Kind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Register adds a kind to the end of the registry and returns the function
// that removes it again (a test's cleanup). A kind that ships with saber
// belongs in the registry's literal instead. It panics on an empty or
// taken name or an unknown family: both are the caller's mistake.
func Register(k Kind) (unregister func()) {
	if k.Name == "" || !slices.Contains(Families, k.Family) {
		panic(fmt.Sprintf("retrievers: Register(%q): needs a name and one of the families %s", k.Name, strings.Join(Families, ", ")))
	}
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if slices.ContainsFunc(kinds, func(o Kind) bool { return o.Name == k.Name }) {
		panic(fmt.Sprintf("retrievers: Register(%q): kind already registered", k.Name))
	}
	kinds = append(kinds, k)
	return func() {
		kindsMu.Lock()
		defer kindsMu.Unlock()
		kinds = slices.DeleteFunc(kinds, func(o Kind) bool { return o.Name == k.Name })
	}
}

// TakesInstruction says whether the spec's kind has an instruction
// mechanism (Kind.TakesInstruction); an unknown kind has none.
func (s Spec) TakesInstruction() bool {
	k, _ := LookupKind(s.Kind)
	return k.TakesInstruction
}

// BiEncoder says whether the spec's kind embeds (Kind.BiEncoder); an
// unknown kind does not.
func (s Spec) BiEncoder() bool {
	k, _ := LookupKind(s.Kind)
	return k.BiEncoder
}

// validateHTTP checks the client configuration of a kind that calls a
// server (LLMConfig).
func validateHTTP(s Spec, p string, bad func(string, ...any)) {
	cfg := s.LLMConfig()
	cfg.Settings = p
	if err := cfg.Validate(); err != nil {
		bad("%s: %v", p, strings.TrimPrefix(err.Error(), "llm: config: "))
	}
}

func validateChat(s Spec, p string, bad func(string, ...any)) {
	validateHTTP(s, p, bad)
	if !strings.Contains(s.Prompt, PlaceholderQuery) || !strings.Contains(s.Prompt, PlaceholderDoc) {
		bad("%s.prompt: required for kind chat, with {query} and {doc}", p)
	}
	switch s.Parser {
	case ParserYesNo:
		if s.TopLogprobs < 1 || s.TopLogprobs > llmconf.MaxTopLogprobs {
			bad("%s.top_logprobs: %d must be in [1, %d]", p, s.TopLogprobs, llmconf.MaxTopLogprobs)
		}
	case ParserNumber:
		if s.TopLogprobs != 0 || len(s.YesTokens) > 0 || len(s.NoTokens) > 0 {
			bad("%s: top_logprobs, yes_tokens and no_tokens are for parser yes_no", p)
		}
	default:
		bad("%s.parser: %q is not one of %s, %s", p, s.Parser, ParserYesNo, ParserNumber)
	}
}

func chatDefaults(s Spec) Spec {
	if s.Parser == ParserYesNo {
		if s.TopLogprobs == 0 {
			s.TopLogprobs = DefaultTopLogprobs
		}
		if s.MaxTokens == 0 {
			s.MaxTokens = 1
		}
		if len(s.YesTokens) == 0 {
			s.YesTokens = []string{"yes"}
		}
		if len(s.NoTokens) == 0 {
			s.NoTokens = []string{"no"}
		}
	}
	if s.Temperature == nil {
		t := 0.0
		s.Temperature = &t
	}
	return s
}

func validatePlugin(s Spec, p string, bad func(string, ...any)) {
	if len(s.Command) == 0 || s.Command[0] == "" {
		bad("%s.command: required for kind plugin (the program and its arguments)", p)
	}
	if s.Threads < 1 {
		bad("%s.threads: %d must be ≥ 1", p, s.Threads)
	}
	if s.Workers > 1 {
		bad("%s.workers: a plugin answers one request at a time; workers must be 1", p)
	}
}

func pluginDefaults(s Spec) Spec {
	if s.Threads == 0 {
		s.Threads = DefaultThreads
	}
	if s.TimeoutSeconds == 0 {
		s.TimeoutSeconds = DefaultPluginTimeout
	}
	if s.StartTimeoutSeconds == 0 {
		s.StartTimeoutSeconds = DefaultPluginStartTimeout
	}
	return s
}
