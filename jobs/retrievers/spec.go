// Package retrievers declares the retrievers a run config defines in its
// `retrievers:` map (paper §4.1, App. C; SPEC §3 "Neural retrievers"):
// Spec and the registry of its kinds (Kinds), defaults and validation,
// the per-model input formats (Table 3) and the task instructions of App.
// F.6 shipped in models.yaml, the Formatter that applies them, and the
// quality–latency frontier families.
//
// It is a declaration only and links no LLM client (it uses lib/llmconf,
// not lib/llm): jobs/config imports it, and so every stage binary does,
// while only the stages that score with a retriever link the client
// through jobs/retrieval, which builds and runs what is declared here.
package retrievers

import (
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/lib/lexical"
	"github.com/saber-math/saber/lib/llmconf"
	"github.com/saber-math/saber/lib/secret"
)

// Parsers of a chat reranker's answer.
const (
	ParserYesNo  = "yes_no" // P(yes) / (P(yes) + P(no)) from the answer token's top log-probabilities
	ParserNumber = "number" // the last number in the answer
)

// Defaults of a Spec (serving parity, App. C.5: 16 documents in flight and
// 16 CPU threads for every system).
const (
	DefaultInFlight           = 16
	DefaultThreads            = 16
	DefaultTopLogprobs        = 20
	DefaultPluginTimeout      = 600 // seconds per request
	DefaultPluginStartTimeout = 900 // seconds for start-up and the warm-up request
	DefaultRewriteTemplate    = "{rewrite}"
	DefaultTemplate           = "{text}"
)

// Placeholders of templates, prompts and plugin commands: Validate checks
// where they must appear, jobs/retrieval fills them.
const (
	PlaceholderText        = "{text}"
	PlaceholderInstruction = "{instruction}"
	PlaceholderQuery       = "{query}"
	PlaceholderDoc         = "{doc}"
	PlaceholderRewrite     = "{rewrite}"
	PlaceholderThreads     = "{threads}"
	PlaceholderInFlight    = "{in_flight}"
)

// Spec defines one retriever of the run config's `retrievers:` map (SPEC §3
// "Neural retrievers"). Which fields apply depends on Kind; Validate
// rejects fields that do not, so a misplaced key is never silently ignored.
// Fields tagged hash:"-" say where and how fast to ask, not what: editing
// them never makes evaluate's rankings stale.
type Spec struct {
	// Kind names one of Kinds; which other fields apply depends on it.
	Kind string `yaml:"kind" json:"kind"`

	// BaseURL, Model and APIKeyEnv say which OpenAI-compatible server and
	// model to call (all kinds but plugin), as in the run's llm section:
	// an empty base_url is read from $SABER_LLM_BASE_URL; the key is read
	// from the variable api_key_env names (default OPENAI_API_KEY), never
	// written in the config.
	BaseURL   string `yaml:"base_url" json:"base_url,omitempty" hash:"-"`
	Model     string `yaml:"model" json:"model,omitempty"`
	APIKeyEnv string `yaml:"api_key_env" json:"api_key_env,omitempty" hash:"-"`
	// AllowInsecureKey lets the key go over plain http:// to a host that
	// is not loopback (as llm.allow_insecure_key; the rewriter's too).
	AllowInsecureKey bool `yaml:"allow_insecure_key" json:"allow_insecure_key,omitempty" hash:"-"`

	// Format names a shipped input format (models.yaml: gemma-300m,
	// jina-v5, rader, gemini-001 — paper Table 3).
	Format string `yaml:"format" json:"format,omitempty"`
	// QueryTemplate and DocTemplate override the format's: {text} is the
	// text, {instruction} the instruction's field if the model has one.
	QueryTemplate string `yaml:"query_template" json:"query_template,omitempty"`
	DocTemplate   string `yaml:"doc_template" json:"doc_template,omitempty"`
	// Instruction is applied to the query only (App. D.9): I1, I2, I3 (App.
	// F.6) or a text; {query} in a text marks where the query goes.
	Instruction string `yaml:"instruction" json:"instruction,omitempty"`

	// MaxInput > 0 splits every text longer than MaxInput white-space
	// separated words into non-overlapping chunks of MaxInput words,
	// embeds each and averages them (App. C.2); for rerank and score the
	// documents are split the same way and a document's score is the mean
	// of its chunks' (the query is sent whole).
	MaxInput int `yaml:"max_input" json:"max_input,omitempty"`
	// Dimensions > 0 is sent as the embeddings' `dimensions` (servers that
	// support it); 0 lets the server use the model's full size (C.2).
	Dimensions int `yaml:"dimensions" json:"dimensions,omitempty"`

	// InFlight is the documents in flight per query (default 16, App. C.5).
	InFlight int `yaml:"in_flight" json:"in_flight,omitempty" hash:"-"`
	// BatchSize is the texts per request for embedding, rerank and score
	// (default InFlight): requests run InFlight/BatchSize at a time. 16 is
	// vLLM's "slices of 16 per engine call"; 1 is the OpenAI embedders'
	// "16 concurrent requests". Chat sends one document per request.
	BatchSize int `yaml:"batch_size" json:"batch_size,omitempty"`
	// Workers is how many queries evaluate scores at once with this
	// retriever (default 1, so that timings are per query in isolation as
	// App. C.5 measures them; more overlaps queries and inflates them).
	Workers int `yaml:"workers" json:"workers,omitempty" hash:"-"`

	// TimeoutSeconds bounds one HTTP attempt (default 120) or one plugin
	// request (default 600, then the plugin is killed).
	TimeoutSeconds float64 `yaml:"timeout_seconds" json:"timeout_seconds,omitempty" hash:"-"`
	// MaxAttempts bounds the HTTP attempts per request (default 5).
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts,omitempty" hash:"-"`

	// Endpoint is the rerank or score path relative to base_url (default
	// "rerank" or "score": /v1/rerank and /v1/score under .../v1;
	// "../score" is the server's /score).
	Endpoint string `yaml:"endpoint" json:"endpoint,omitempty"`

	// Prompt is a chat reranker's user message: {query}, {doc} and
	// optionally {instruction}. System is an optional system message.
	Prompt string `yaml:"prompt" json:"prompt,omitempty"`
	System string `yaml:"system" json:"system,omitempty"`
	// Parser reads a chat reranker's score: yes_no (log-probabilities of
	// the answer token) or number (the last number in the answer).
	Parser string `yaml:"parser" json:"parser,omitempty"`
	// YesTokens and NoTokens are the answer tokens yes_no sums, compared
	// after trimming white space and lower-casing (default [yes], [no]).
	YesTokens []string `yaml:"yes_tokens" json:"yes_tokens,omitempty"`
	NoTokens  []string `yaml:"no_tokens" json:"no_tokens,omitempty"`
	// TopLogprobs is the alternatives asked for per token (yes_no; default 20).
	TopLogprobs int `yaml:"top_logprobs" json:"top_logprobs,omitempty"`
	// MaxTokens bounds a chat answer (default 1 with yes_no; the server's
	// otherwise). Temperature defaults to 0.
	MaxTokens   int      `yaml:"max_tokens" json:"max_tokens,omitempty"`
	Temperature *float64 `yaml:"temperature" json:"temperature,omitempty"`

	// Rewrite, when set, rewrites the query with a chat model before
	// scoring, inside the timed region (App. C.5, the "W" systems).
	Rewrite *Rewrite `yaml:"rewrite" json:"rewrite,omitempty"`

	// Command is a plugin's argv; "{threads}" and "{in_flight}" in it are
	// replaced by Threads and InFlight. It runs in the config file's
	// directory with Env added to the environment.
	Command []string          `yaml:"command" json:"command,omitempty"`
	Env     map[string]string `yaml:"env" json:"env,omitempty"`
	// Threads caps a plugin's CPU thread pools (default 16): it is passed as
	// OMP_NUM_THREADS, MKL_NUM_THREADS and the other variables of
	// ThreadVars, and as {threads}.
	Threads int `yaml:"threads" json:"threads,omitempty" hash:"-"`
	// StartTimeoutSeconds bounds a plugin's start-up: until it has answered
	// the warm-up request (default 900).
	StartTimeoutSeconds float64 `yaml:"start_timeout_seconds" json:"start_timeout_seconds,omitempty" hash:"-"`
}

// Rewrite is a query rewriter: a chat model asked Prompt ({query} is the
// query), whose answer (any <think>…</think> block removed, trimmed)
// becomes the query through Template ({rewrite}, and {query} for the
// original; default "{rewrite}"). Model is required; BaseURL, APIKeyEnv and
// TimeoutSeconds default to the retriever's.
type Rewrite struct {
	BaseURL        string   `yaml:"base_url" json:"base_url,omitempty"`
	Model          string   `yaml:"model" json:"model,omitempty"`
	APIKeyEnv      string   `yaml:"api_key_env" json:"api_key_env,omitempty"`
	Prompt         string   `yaml:"prompt" json:"prompt"`
	System         string   `yaml:"system" json:"system,omitempty"`
	Template       string   `yaml:"template" json:"template,omitempty"`
	MaxTokens      int      `yaml:"max_tokens" json:"max_tokens,omitempty"`
	Temperature    *float64 `yaml:"temperature" json:"temperature,omitempty"`
	TimeoutSeconds float64  `yaml:"timeout_seconds" json:"timeout_seconds,omitempty"`

	// AllowInsecureKey: as the retriever's (either lets the key go over
	// plain http:// to a host that is not loopback).
	AllowInsecureKey bool `yaml:"allow_insecure_key" json:"allow_insecure_key,omitempty"`
}

// ErrBadSpec is wrapped by every error caused by a retriever's
// configuration or environment (unknown name, invalid spec, missing API
// key, plugin command not found): fixing the input is the only remedy.
var ErrBadSpec = errors.New("retrievers: bad retriever configuration")

// Format is a shipped input format (models.yaml).
type Format struct {
	Models     []string       `yaml:"models"`
	Query      string         `yaml:"query"`
	Doc        string         `yaml:"doc"`
	QueryExtra map[string]any `yaml:"query_extra"`
	DocExtra   map[string]any `yaml:"doc_extra"`
}

//go:embed models.yaml
var modelsYAML []byte

var shipped struct {
	Formats      map[string]Format `yaml:"formats"`
	Instructions map[string]string `yaml:"instructions"`
}

func init() {
	dec := yaml.NewDecoder(strings.NewReader(string(modelsYAML)))
	dec.KnownFields(true)
	if err := dec.Decode(&shipped); err != nil {
		panic("retrievers: models.yaml: " + err.Error())
	}
}

// Formats returns the shipped input formats by name.
func Formats() map[string]Format {
	out := make(map[string]Format, len(shipped.Formats))
	for k, v := range shipped.Formats {
		out[k] = v
	}
	return out
}

// Instructions returns the shipped instructions (I1, I2, I3 of App. F.6) by
// name, in their prepend form with {query}.
func Instructions() map[string]string {
	out := make(map[string]string, len(shipped.Instructions))
	for k, v := range shipped.Instructions {
		out[k] = v
	}
	return out
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// instructionName is what a name (rather than a text) looks like: one word.
var instructionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// Name is what a configured retriever's name must look like (it names
// datasets' rows and shards' logs).
var Name = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// instructionText resolves an instruction: a shipped name or a text.
func instructionText(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if t, ok := shipped.Instructions[v]; ok {
		return t, nil
	}
	if instructionName.MatchString(v) {
		return "", fmt.Errorf("instruction %q is not a shipped instruction (%s); a text instruction must contain white space",
			v, strings.Join(sortedNames(shipped.Instructions), ", "))
	}
	return v, nil
}

// WithDefaults returns s with its defaults filled in; it is idempotent.
func (s Spec) WithDefaults() Spec {
	k, _ := LookupKind(s.Kind)
	if k.Defaults != nil {
		s = k.Defaults(s)
	}
	if s.InFlight == 0 {
		s.InFlight = DefaultInFlight
	}
	if k.uses("batch_size") && s.BatchSize == 0 {
		s.BatchSize = s.InFlight
	}
	if s.Workers == 0 {
		s.Workers = 1
	}
	if s.Rewrite != nil {
		rw := *s.Rewrite
		if rw.Template == "" {
			rw.Template = DefaultRewriteTemplate
		}
		if rw.Temperature == nil {
			t := 0.0
			rw.Temperature = &t
		}
		s.Rewrite = &rw
	}
	return s
}

// Validate reports every problem of the spec of retriever name, each
// prefixed with its key path (retrievers.<name>.<field>), through bad.
func (s Spec) Validate(name string, bad func(format string, a ...any)) {
	p := "retrievers." + name
	if !Name.MatchString(name) {
		bad("%s: the name must be letters, digits, '.', '_' or '-'", p)
	}
	if slices.Contains(lexical.Names(), name) {
		bad("%s: %q is a built-in lexical retriever; choose another name", p, name)
	}
	k, ok := LookupKind(s.Kind)
	if !ok {
		bad("%s.kind: %q is not one of %s", p, s.Kind, strings.Join(KindNames(), ", "))
		return
	}
	if k.Validate != nil {
		k.Validate(s, p, bad)
	}
	set := func(field string, isSet bool) {
		if isSet && !k.uses(field) {
			var by []string
			for _, o := range Kinds() {
				if o.uses(field) {
					by = append(by, o.Name)
				}
			}
			bad("%s.%s: not used by kind %s (only by %s)", p, field, s.Kind, strings.Join(by, ", "))
		}
	}
	set("base_url", s.BaseURL != "")
	set("model", s.Model != "")
	set("api_key_env", s.APIKeyEnv != "")
	set("allow_insecure_key", s.AllowInsecureKey)
	set("max_attempts", s.MaxAttempts != 0)
	set("rewrite", s.Rewrite != nil)
	set("max_input", s.MaxInput != 0)
	set("dimensions", s.Dimensions != 0)
	set("batch_size", s.BatchSize != 0)
	set("endpoint", s.Endpoint != "")
	set("prompt", s.Prompt != "")
	set("system", s.System != "")
	set("parser", s.Parser != "")
	set("yes_tokens", len(s.YesTokens) > 0)
	set("no_tokens", len(s.NoTokens) > 0)
	set("top_logprobs", s.TopLogprobs != 0)
	set("max_tokens", s.MaxTokens != 0)
	set("temperature", s.Temperature != nil)
	set("command", len(s.Command) > 0)
	set("env", len(s.Env) > 0)
	set("threads", s.Threads != 0)
	set("start_timeout_seconds", s.StartTimeoutSeconds != 0)

	if s.InFlight < 1 {
		bad("%s.in_flight: %d must be ≥ 1", p, s.InFlight)
	}
	if s.BatchSize < 0 || s.BatchSize > s.InFlight {
		bad("%s.batch_size: %d must be in [1, in_flight = %d]", p, s.BatchSize, s.InFlight)
	}
	if s.Workers < 1 {
		bad("%s.workers: %d must be ≥ 1", p, s.Workers)
	}
	if s.MaxInput < 0 || s.Dimensions < 0 || s.MaxTokens < 0 || s.MaxAttempts < 0 {
		bad("%s: max_input, dimensions, max_tokens and max_attempts must be ≥ 0", p)
	}
	if !finiteNonNeg(s.TimeoutSeconds) || !finiteNonNeg(s.StartTimeoutSeconds) {
		bad("%s: timeout_seconds and start_timeout_seconds must be finite and ≥ 0", p)
	}

	// The config is hashed into every manifest and published in the
	// release's reproduce/run.yaml: a plugin's secret stays in the
	// environment the stage runs in. The value is never quoted.
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if what := secret.Looks(s.Env[k]); what != "" {
			bad("%s.env.%s: its value looks like a secret (%s); the config is recorded in every manifest and published with a release: export the variable where the stage runs (the plugin inherits the environment), or put the secret in a file and give its path", p, k, what)
		}
	}

	// Templates and the instruction.
	f, err := s.format()
	if err != nil {
		bad("%s.format: %v", p, err)
	}
	if strings.Contains(s.DocTemplate, PlaceholderInstruction) {
		bad("%s.doc_template: {instruction} is for the query only (App. D.9)", p)
	}
	for field, t := range map[string]string{"query_template": f.Query, "doc_template": f.Doc} {
		if !strings.Contains(t, PlaceholderText) {
			bad("%s.%s: %q has no {text}", p, field, t)
		}
	}
	instr, err := instructionText(s.Instruction)
	if err != nil {
		bad("%s.instruction: %v", p, err)
	}
	field := strings.Contains(f.Query, PlaceholderInstruction) || (k.uses("prompt") && strings.Contains(s.Prompt, PlaceholderInstruction))
	if field && instr == "" {
		bad("%s: the query template or prompt has an {instruction} field but no instruction is set", p)
	}

	if rw := s.Rewrite; rw != nil {
		if !strings.Contains(rw.Prompt, PlaceholderQuery) {
			bad("%s.rewrite.prompt: required, with {query}", p)
		}
		if rw.Model == "" {
			bad("%s.rewrite.model: required (the chat model that rewrites the query)", p)
		}
		if !strings.Contains(rw.Template, PlaceholderRewrite) {
			bad("%s.rewrite.template: %q has no {rewrite}", p, rw.Template)
		}
		rc := s.RewriteConfig()
		rc.Settings = p + ".rewrite"
		if err := rc.Validate(); err != nil {
			bad("%s.rewrite: %v", p, strings.TrimPrefix(err.Error(), "llm: config: "))
		}
		if rw.MaxTokens < 0 || !finiteNonNeg(rw.TimeoutSeconds) {
			bad("%s.rewrite: max_tokens and timeout_seconds must be ≥ 0", p)
		}
	}
}

func finiteNonNeg(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }

// format is the spec's input format: the shipped one it names, with its
// own templates on top.
func (s Spec) format() (Format, error) {
	f := Format{Query: DefaultTemplate, Doc: DefaultTemplate}
	var err error
	if s.Format != "" {
		sf, ok := shipped.Formats[s.Format]
		if ok {
			f = sf
		} else {
			err = fmt.Errorf("%q is not a shipped format (%s)", s.Format, strings.Join(sortedNames(shipped.Formats), ", "))
		}
	}
	if s.QueryTemplate != "" {
		f.Query = s.QueryTemplate
	}
	if s.DocTemplate != "" {
		f.Doc = s.DocTemplate
	}
	return f, err
}

// LLMConfig is the client configuration of an HTTP retriever (kinds
// embedding, rerank, score, chat): no LLM answer cache (jobs/retrieval
// keeps its own memo, by content, and skips it for the timed queries),
// concurrency for every query's in-flight requests. Validate checks it; jobs/retrieval builds the client.
func (s Spec) LLMConfig() llmconf.Config {
	return llmconf.Config{
		BaseURL:        s.BaseURL,
		Model:          s.Model,
		APIKeyEnv:      s.APIKeyEnv,
		TimeoutSeconds: s.TimeoutSeconds,
		MaxAttempts:    s.MaxAttempts,
		Concurrency:    max(1, s.InFlight) * max(1, s.Workers),
		MaxTokens:      s.MaxTokens,
		Temperature:    s.Temperature,

		AllowInsecureKey: s.AllowInsecureKey,
	}
}

// RewriteConfig is the client configuration of the query rewriter (when
// Rewrite is set): its own keys, else the retriever's.
func (s Spec) RewriteConfig() llmconf.Config {
	rw := s.Rewrite
	c := llmconf.Config{
		BaseURL:        rw.BaseURL,
		Model:          rw.Model,
		APIKeyEnv:      rw.APIKeyEnv,
		TimeoutSeconds: rw.TimeoutSeconds,
		MaxAttempts:    s.MaxAttempts,
		Concurrency:    max(1, s.Workers),
		MaxTokens:      rw.MaxTokens,
		Temperature:    rw.Temperature,

		AllowInsecureKey: rw.AllowInsecureKey || s.AllowInsecureKey,
	}
	if c.BaseURL == "" {
		c.BaseURL = s.BaseURL
	}
	if c.APIKeyEnv == "" {
		c.APIKeyEnv = s.APIKeyEnv
	}
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = s.TimeoutSeconds
	}
	return c
}
