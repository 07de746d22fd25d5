package decl

import "github.com/saber-math/saber/jobs/config"

// Section is pairs' part of the run config, `pairs:`. The floors pairs are
// kept above are shared with calibrate and select: benchmark.topic_floor
// and benchmark.summ_floor.
var Section = config.SectionOf[Config]{Name: "pairs"}

// Config configures candidate discovery (SPEC §3 "Pairs and selection").
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Workers is how many queries are processed at once (default: cores).
	Workers int `yaml:"workers" json:"workers" hash:"-"`
	// KeepAll writes every pair to `pairs` (O(N²) storage: 3.4 GB at 283K
	// documents) instead of each query's counts over the threshold grid to
	// `pair_counts` (O(N)); calibrate and select give the same bytes from
	// either, select recomputing the chosen queries' pairs from topics and
	// summaries when only the counts are stored.
	KeepAll bool `yaml:"keep_all" json:"keep_all"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
}

// Validate implements config.Section.
func (c *Config) Validate(_ *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 || c.Workers < 0 {
		bad("pairs: shards must be ≥ 1, workers ≥ 0")
	}
}
