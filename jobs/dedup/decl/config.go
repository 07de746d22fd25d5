package decl

import (
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
)

// Section is dedup's part of the run config, `dedup:`.
var Section = config.SectionOf[Config]{Name: "dedup"}

// Config configures near-duplicate removal (App. A.1, A.4; SPEC §3).
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// NGram is the word n-gram size of shingles (datatrove: 5).
	NGram int `yaml:"ngram" json:"ngram"`
	// Bands × Rows permutations (datatrove: 14 × 8).
	Bands int `yaml:"bands" json:"bands"`
	Rows  int `yaml:"rows" json:"rows"`
	// Threshold confirms an LSH candidate pair at exact Jaccard of the
	// shingle sets ≥ Threshold (the MinHash estimate only pre-filters).
	Threshold float64 `yaml:"threshold" json:"threshold"`
	// Guard (default true) keeps a confirmed pair apart unless the two
	// statements have the same numbers, figures and sentences but for
	// instructions (minhash.Guard).
	Guard *bool `yaml:"guard" json:"guard"`
	// Clustering is star (default: a member joins only a kept member it is a
	// confirmed duplicate of, so nothing chains) or union_find (transitive).
	Clustering string `yaml:"clustering" json:"clustering"`
	// Priority orders sources: the first present in a cluster is kept.
	Priority []string `yaml:"priority" json:"priority"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.NGram == 0 {
		c.NGram = 5
	}
	if c.Bands == 0 {
		c.Bands = 14
	}
	if c.Rows == 0 {
		c.Rows = 8
	}
	if c.Threshold == 0 {
		c.Threshold = 0.8
	}
	if c.Guard == nil {
		on := true
		c.Guard = &on
	}
	if c.Clustering == "" {
		c.Clustering = ClusterStar
	}
	if len(c.Priority) == 0 {
		c.Priority = slices.Clone(dataset.Sources)
	}
}

// Validate implements config.Section.
func (c *Config) Validate(_ *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 {
		bad("dedup.shards: must be ≥ 1")
	}
	if c.NGram < 1 {
		bad("dedup.ngram: must be ≥ 1")
	}
	if c.Bands < 1 || c.Rows < 1 {
		bad("dedup.bands, dedup.rows: must be ≥ 1")
	}
	if c.Threshold <= 0 || c.Threshold > 1 {
		bad("dedup.threshold: %v must be in (0, 1]", c.Threshold)
	}
	if c.Clustering != ClusterStar && c.Clustering != ClusterUnionFind {
		bad("dedup.clustering: %q must be %s or %s", c.Clustering, ClusterStar, ClusterUnionFind)
	}
	seen := map[string]bool{}
	for i, p := range c.Priority {
		if !slices.Contains(dataset.Sources, p) {
			bad("dedup.priority[%d]: %q is not one of %s", i, p, strings.Join(dataset.Sources, ", "))
		}
		if seen[p] {
			bad("dedup.priority[%d]: %q listed twice", i, p)
		}
		seen[p] = true
	}
}

// The values of dedup.clustering.
const (
	ClusterStar      = "star"
	ClusterUnionFind = "union_find"
)

// GuardOn reports whether dedup.guard is on (it is by default).
func (c *Config) GuardOn() bool { return c.Guard == nil || *c.Guard }
