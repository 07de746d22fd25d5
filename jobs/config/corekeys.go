package config

import (
	"maps"
	"strings"

	"github.com/saber-math/saber/jobs/retrievers"
)

// CoreKey is one key of the core that determines bytes (the benchmark's
// shared parameters, the systems under evaluation, the seed): what a
// step reads of them it reads through one of these, whose Get refuses
// a step that did not declare the key (or a section above it) in its
// stage's Uses, as KeyOf does for a stage's section. A test
// (TestStepsReadCoreKeysThroughKeys) forbids reading the core's fields
// directly in any package a stage binary links, so that the keys a
// manifest hashes are the keys its step read.
type CoreKey[V any] struct {
	// Path is the key as Uses declares it ("benchmark.k").
	Path string
	// Field reads it.
	Field func(*Config) V
}

// Get returns the key's value in c. On a step's view (View) it panics
// with an *UndeclaredError unless the step declared Path or a key above
// it.
func (k CoreKey[V]) Get(c *Config) V {
	c.need(k.Path)
	return k.Field(c)
}

// The core's keys a step may read.
var (
	BenchmarkOntology   = CoreKey[Ontology]{"benchmark.ontology", func(c *Config) Ontology { return c.Benchmark.Ontology }}
	BenchmarkK          = CoreKey[int]{"benchmark.k", func(c *Config) int { return c.Benchmark.K }}
	BenchmarkDomains    = CoreKey[[]string]{"benchmark.domains", func(c *Config) []string { return c.Benchmark.Domains }}
	BenchmarkTopicFloor = CoreKey[float64]{"benchmark.topic_floor", func(c *Config) float64 { return c.Benchmark.TopicFloor }}
	BenchmarkSummFloor  = CoreKey[float64]{"benchmark.summ_floor", func(c *Config) float64 { return c.Benchmark.SummFloor }}

	EvaluateRetrievers   = CoreKey[[]string]{"evaluate.retrievers", func(c *Config) []string { return c.Evaluate.Retrievers }}
	EvaluateSettings     = CoreKey[[]string]{"evaluate.settings", func(c *Config) []string { return c.Evaluate.Settings }}
	EvaluateInstructions = CoreKey[[]string]{"evaluate.instructions", func(c *Config) []string { return c.Evaluate.Instructions }}
	// evaluate.shards and evaluate.workers are operational (hash:"-"):
	// no manifest records them, but a step reads them only as declared.
	EvaluateShards  = CoreKey[int]{"evaluate.shards", func(c *Config) int { return c.Evaluate.Shards }}
	EvaluateWorkers = CoreKey[int]{"evaluate.workers", func(c *Config) int { return c.Evaluate.Workers }}

	Seed = CoreKey[uint64]{"seed", func(c *Config) uint64 { return c.Seed }}
)

// Retriever returns the definition of the retriever name under
// `retrievers:`; false when there is none (a lexical built-in, or a name
// the config does not define). On a step's view it panics when the
// config defines name and the step did not declare retrievers.<name>.
// Finding none needs no declaration: a Uses that names the definitions
// of the retrievers it reads (RetrieverKeys) names this one once it is
// defined, and that makes the step stale.
func (c *Config) Retriever(name string) (retrievers.Spec, bool) {
	s, ok := c.Retrievers[name]
	if ok {
		c.need(MapKey("retrievers", name))
	}
	return s, ok
}

// RetrieverSpecs are the retriever definitions a step may read: on a
// step's view those it declared (retrievers.<name>), else all. A step
// that builds a registry from them and asks it for a retriever it did
// not declare finds none.
func (c *Config) RetrieverSpecs() map[string]retrievers.Spec {
	if c.view == nil || c.view.allows("retrievers") {
		return maps.Clone(c.Retrievers)
	}
	out := map[string]retrievers.Spec{}
	for name, s := range c.Retrievers {
		if c.view.allows(MapKey("retrievers", name)) {
			out[name] = s
		}
	}
	return out
}

// need panics with an *UndeclaredError when c is a step's view that did
// not declare key (or a key above it).
func (c *Config) need(key string) {
	if c.view != nil && !c.view.allows(key) {
		panic(&UndeclaredError{Step: c.view.step, Key: key, Declared: c.view.under(sectionOf(key))})
	}
}

// sectionOf is the top-level name of a key path.
func sectionOf(key string) string {
	if i := strings.IndexAny(key, ".["); i >= 0 {
		return key[:i]
	}
	return key
}
