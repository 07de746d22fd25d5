package config

import (
	"slices"
	"strings"
)

// DownstreamSection is the deduplication experiment's part of the run
// config, `downstream:`, shared by its two stages: embed reads which
// bi-encoders to embed the pool with (their retrievers.<name> entries, not
// this section, determine its bytes), downstream reads all of it. It lives
// here, not in jobs/downstream, because rewrite reads it too (it runs only
// for the experiment; DownstreamEnabled), and no stage imports another.
var DownstreamSection = SectionOf[Downstream]{Name: "downstream"}

// Scales of the experiment (App. B.4, D.11).
const (
	// DownstreamScalePool ranks every unique document of the benchmark
	// (Table 11): bi-encoders and the lexical baselines only, as a
	// cross-encoder cannot score the whole pool.
	DownstreamScalePool = "pool"
	// DownstreamScaleCandidates ranks the query's own candidates and its
	// original (Table 12): every retriever.
	DownstreamScaleCandidates = "candidates"
)

// DownstreamScales are the scales, in report order.
var DownstreamScales = []string{DownstreamScalePool, DownstreamScaleCandidates}

// Downstream configures the deduplication experiment (paper §4.3, App. B.4,
// D.11).
type Downstream struct {
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

// DownstreamEnabled reports whether the config asks for the experiment.
func DownstreamEnabled(c *Config) bool { return len(DownstreamSection.Of(c).Retrievers) > 0 }

// Defaults implements Section.
func (c *Downstream) Defaults(*Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.EmbedShards == 0 {
		c.EmbedShards = 1
	}
	if len(c.Scales) == 0 {
		c.Scales = slices.Clone(DownstreamScales)
	}
	if c.Check == 0 {
		c.Check = 8
	}
}

// Validate implements Section.
func (c *Downstream) Validate(core *Config, bad func(string, ...any)) {
	if c.Shards < 1 || c.EmbedShards < 1 {
		bad("downstream: shards and embed_shards must be ≥ 1")
	}
	if c.Check < 0 || c.QueryBlock < 0 || c.DocBlock < 0 || c.Workers < 0 {
		bad("downstream: check, query_block, doc_block and workers must be ≥ 0")
	}
	seen := map[string]bool{}
	for i, r := range c.Retrievers {
		if _, ok := core.Retrievers[r]; !ok && !slices.Contains(LexicalRetrievers, r) {
			bad("downstream.retrievers[%d]: %q is not a known retriever (%s)", i, r, strings.Join(core.RetrieverNames(), ", "))
		}
		if seen[r] {
			bad("downstream.retrievers[%d]: %q listed twice", i, r)
		}
		seen[r] = true
	}
	seen = map[string]bool{}
	for i, s := range c.Scales {
		if !slices.Contains(DownstreamScales, s) {
			bad("downstream.scales[%d]: %q is not one of %s", i, s, strings.Join(DownstreamScales, ", "))
		}
		if seen[s] {
			bad("downstream.scales[%d]: %q listed twice", i, s)
		}
		seen[s] = true
	}
}
