package decl

import (
	"slices"
	"strings"

	"github.com/saber-math/saber/jobs/config"
)

// Section is the deduplication experiment's part of the run
// config, `downstream:`, shared by its two stages: embed reads which
// bi-encoders to embed the pool with (their retrievers.<name> entries, not
// this section, determine its bytes), downstream reads all of it. It lives
// here, not in jobs/downstream, because rewrite reads it too (it runs only
// for the experiment; Enabled), and no stage imports another.
var Section = config.SectionOf[Config]{Name: "downstream"}

// Scales of the experiment (App. B.4, D.11).
const (
	// ScalePool ranks every unique document of the benchmark
	// (Table 11): bi-encoders and the lexical baselines only, as a
	// cross-encoder cannot score the whole pool.
	ScalePool = "pool"
	// ScaleCandidates ranks the query's own candidates and its
	// original (Table 12): every retriever.
	ScaleCandidates = "candidates"
)

// Scales are the scales, in report order.
var Scales = []string{ScalePool, ScaleCandidates}

// Config configures the deduplication experiment (paper §4.3, App. B.4,
// D.11).
type Config struct {
	// Shards is the query ranges per retriever: downstream runs Shards ×
	// len(Retrievers) tasks.
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Retrievers are registry names, as evaluate.retrievers; empty (the
	// default) leaves the experiment off.
	Retrievers []string `yaml:"retrievers" json:"retrievers"`
	// Scales are pool and candidates (default both).
	Scales []string `yaml:"scales" json:"scales"`
	// EmbedShards is the document ranges per bi-encoder of the embed
	// stage: it runs EmbedShards × (bi-encoders in Retrievers) tasks.
	EmbedShards int `yaml:"embed_shards" json:"embed_shards" hash:"-"`
	// Check is how many queries of each full-pool bi-encoder shard have
	// their scores against the whole pool recomputed by a naive loop and
	// compared with the blocked product's, bit for bit (default 8; a
	// mismatch fails the shard as a bug).
	Check int `yaml:"check" json:"check" hash:"-"`
	// QueryBlock and DocBlock are the blocked product's block (defaults
	// 64 and 512): its scratch memory is workers × QueryBlock × DocBlock
	// scores, whatever the pool's size.
	QueryBlock int `yaml:"query_block" json:"query_block" hash:"-"`
	DocBlock   int `yaml:"doc_block" json:"doc_block" hash:"-"`
	// Workers is the cores of the ranking and the lexical queries scored
	// at once (default: every core); a configured retriever's requests
	// follow its own workers.
	Workers int `yaml:"workers" json:"workers" hash:"-"`
}

// Enabled reports whether the config asks for the experiment.
func Enabled(c *config.Config) bool { return len(Section.Of(c).Retrievers) > 0 }

// Defaults implements Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.EmbedShards == 0 {
		c.EmbedShards = 1
	}
	if len(c.Scales) == 0 {
		c.Scales = slices.Clone(Scales)
	}
	if c.Check == 0 {
		c.Check = 8
	}
}

// Validate implements Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 || c.EmbedShards < 1 {
		bad("downstream: shards and embed_shards must be ≥ 1")
	}
	if c.Check < 0 || c.QueryBlock < 0 || c.DocBlock < 0 || c.Workers < 0 {
		bad("downstream: check, query_block, doc_block and workers must be ≥ 0")
	}
	seen := map[string]bool{}
	for i, r := range c.Retrievers {
		if _, ok := core.Retriever(r); !ok && !slices.Contains(config.LexicalRetrievers, r) {
			bad("downstream.retrievers[%d]: %q is not a known retriever (%s)", i, r, strings.Join(core.RetrieverNames(), ", "))
		}
		if seen[r] {
			bad("downstream.retrievers[%d]: %q listed twice", i, r)
		}
		seen[r] = true
	}
	seen = map[string]bool{}
	for i, s := range c.Scales {
		if !slices.Contains(Scales, s) {
			bad("downstream.scales[%d]: %q is not one of %s", i, s, strings.Join(Scales, ", "))
		}
		if seen[s] {
			bad("downstream.scales[%d]: %q listed twice", i, s)
		}
		seen[s] = true
	}
}

// Off is the hint for a main line that leaves the experiment out.
const Off = "set downstream.retrievers to run the deduplication experiment (App. B.4)"

// BiEncoders are the retrievers of the experiment that embed (their kind
// is declared retrievers.Kind.BiEncoder), in config order: the models the
// embed stage runs.
func BiEncoders(c *config.Config) []string {
	var out []string
	for _, r := range RetrieversKey.Get(c) {
		if s, ok := c.Retriever(r); ok && s.BiEncoder() {
			out = append(out, r)
		}
	}
	return out
}

// OnPool reports whether the retriever ranks the whole pool: a lexical
// baseline (one index over the pool) or a bi-encoder.
func OnPool(c *config.Config, name string) bool {
	if slices.Contains(config.LexicalRetrievers, name) {
		return true
	}
	s, ok := c.Retriever(name)
	return ok && s.BiEncoder()
}

// retrieverKeys are the config keys of the configured retrievers among
// names.
func retrieverKeys(c *config.Config, names []string) []string {
	var out []string
	for _, r := range names {
		if _, ok := c.Retriever(r); ok {
			out = append(out, config.MapKey("retrievers", r))
		}
	}
	return out
}

// The keys of this section that the embed stage reads (config.KeyOf):
// which retrievers are bi-encoders to embed with, and its shards.
var (
	RetrieversKey  = config.KeyOf[Config, []string]{Section: Section, Name: "retrievers", Field: func(c *Config) []string { return c.Retrievers }}
	EmbedShardsKey = config.KeyOf[Config, int]{Section: Section, Name: "embed_shards", Field: func(c *Config) int { return c.EmbedShards }}
)
