package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/jobs/retrievers"
)

// Evaluate configures the retrieval evaluation (paper §4.1, App. C). It is
// shared: evaluate runs these systems and report scores exactly them
// (report reads evaluate.retrievers, evaluate.settings and
// evaluate.instructions, never shards or workers).
type Evaluate struct {
	// Shards is the query ranges per (retriever, setting): the stage runs
	// Shards × len(Retrievers) × len(Settings) tasks.
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Retrievers are registry names: the lexical built-ins (bm25, tfidf,
	// jaccard, bm25-no-tok, tfidf-no-tok, jaccard-no-tok) and the names
	// defined under the top-level `retrievers:`; default all six lexical
	// baselines.
	Retrievers []string `yaml:"retrievers" json:"retrievers"`
	// Settings are statement-full (default), full-full and
	// statement-statement: query text – document text, where "full" is the
	// statement, a blank line, the solution.
	Settings []string `yaml:"settings" json:"settings"`
	// Workers is the queries scored at once by a lexical retriever
	// (default: cores); a configured retriever uses its own workers. The
	// cores left, cores / workers (at most 16), go to each query: BM25
	// builds its index in that many parts at once (C.5's documents in
	// flight), so workers: 1 times each query alone on every core, as the
	// paper's latency protocol does. Scores do not change.
	Workers int `yaml:"workers" json:"workers" hash:"-"`
	// Instructions runs the instructions study (App. D.9): each configured
	// retriever that takes an instruction is evaluated again with each of
	// these (I1, I2, I3) as "<name>.<instruction>"; see instructions.go.
	Instructions []string `yaml:"instructions" json:"instructions,omitempty"`
}

// Settings of the evaluation, in report order.
var Settings = []string{"statement-full", "full-full", "statement-statement"}

// MainSetting is the setting the report leads with and times (App. C.5:
// latency is measured on statement–full): the first of Settings that
// evaluate runs, else the first it runs.
func (c *Config) MainSetting() string {
	c.need(EvaluateSettings.Path)
	for _, s := range Settings {
		if slices.Contains(c.Evaluate.Settings, s) {
			return s
		}
	}
	if len(c.Evaluate.Settings) == 0 {
		return ""
	}
	return c.Evaluate.Settings[0]
}

// LexicalRetrievers are the built-in baselines (C.4).
var LexicalRetrievers = []string{"bm25", "tfidf", "jaccard", "bm25-no-tok", "tfidf-no-tok", "jaccard-no-tok"}

func (c *Config) defaultsEvaluate() {
	e := &c.Evaluate
	if e.Shards == 0 {
		e.Shards = 1
	}
	if len(e.Retrievers) == 0 {
		e.Retrievers = slices.Clone(LexicalRetrievers)
	}
	if len(e.Settings) == 0 {
		e.Settings = []string{Settings[0]}
	}
}

func (c *Config) validateEvaluate(bad func(string, ...any)) {
	e := c.Evaluate
	if e.Shards < 1 || e.Workers < 0 {
		bad("evaluate: shards must be ≥ 1, workers ≥ 0")
	}
	seen := map[string]bool{}
	for i, r := range e.Retrievers {
		if _, ok := c.Retrievers[r]; !ok && !slices.Contains(LexicalRetrievers, r) {
			bad("evaluate.retrievers[%d]: %q is not a known retriever (%s)", i, r, strings.Join(c.RetrieverNames(), ", "))
		}
		if seen[r] {
			bad("evaluate.retrievers[%d]: %q listed twice", i, r)
		}
		seen[r] = true
	}
	for i, s := range e.Settings {
		if !slices.Contains(Settings, s) {
			bad("evaluate.settings[%d]: %q is not one of %s", i, s, strings.Join(Settings, ", "))
		}
		if seen["setting:"+s] {
			bad("evaluate.settings[%d]: %q listed twice", i, s)
		}
		seen["setting:"+s] = true
	}
}

// RetrieverKeys are the config keys of the evaluated retrievers that the
// config defines (retrievers.<name>, for Values): editing a retriever that
// is defined but not evaluated changes none of them.
func (c *Config) RetrieverKeys() []string {
	c.need(EvaluateRetrievers.Path)
	var out []string
	for _, r := range c.Evaluate.Retrievers {
		if _, ok := c.Retrievers[r]; ok {
			out = append(out, MapKey("retrievers", r))
		}
	}
	return out
}

// MemoRetrievers reports whether an evaluated retriever is of a kind that
// keeps what it computes in the run's cache (retrievers.Kind.Memo): then
// evaluate times the latency sample alone, which the seed and
// report.latency_queries decide.
func (c *Config) MemoRetrievers() bool {
	c.need(EvaluateRetrievers.Path)
	for _, r := range c.Evaluate.Retrievers {
		if s, ok := c.Retrievers[r]; ok {
			if k, ok := retrievers.LookupKind(s.Kind); ok && k.Memo {
				return true
			}
		}
	}
	return false
}

// EvalTask is what one evaluate shard does: one retriever in one setting
// over one query range.
type EvalTask struct {
	Retriever, Setting string
	Range, Ranges      int
}

// EvalTasks is the number of evaluate shards.
func (c *Config) EvalTasks() int {
	for _, k := range []string{EvaluateShards.Path, EvaluateRetrievers.Path, EvaluateSettings.Path} {
		c.need(k)
	}
	return c.Evaluate.Shards * len(c.Evaluate.Retrievers) * len(c.Evaluate.Settings)
}

// EvalTask decodes shard i of EvalTasks(): retriever-major, then setting,
// then query range, so one retriever's shards are contiguous in an array.
func (c *Config) EvalTask(i int) (EvalTask, error) {
	n := c.EvalTasks()
	if i < 0 || i >= n {
		return EvalTask{}, fmt.Errorf("evaluate shard %d out of range (%d shards = %d query ranges × %d retrievers × %d settings)",
			i, n, c.Evaluate.Shards, len(c.Evaluate.Retrievers), len(c.Evaluate.Settings))
	}
	e := c.Evaluate
	q := i % e.Shards
	i /= e.Shards
	s := i % len(e.Settings)
	r := i / len(e.Settings)
	return EvalTask{Retriever: e.Retrievers[r], Setting: e.Settings[s], Range: q, Ranges: e.Shards}, nil
}
