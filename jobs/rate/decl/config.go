package decl

import "github.com/saber-math/saber/jobs/config"

// Section is rate's part of the run config, `rate:`.
var Section = config.SectionOf[Config]{Name: "rate"}

// Config configures the Bradley–Terry fit of the judgments.
type Config struct {
	Shards int `yaml:"shards" json:"shards" hash:"-"`
	// Lambda is the ridge penalty (SPEC §3: 0.01).
	Lambda float64 `yaml:"lambda" json:"lambda"`
}

// Defaults implements config.Section.
func (c *Config) Defaults(*config.Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.Lambda == 0 {
		c.Lambda = 0.01
	}
}

// Validate implements config.Section.
func (c *Config) Validate(_ *config.Config, bad func(string, ...any)) {
	if c.Shards < 1 {
		bad("rate.shards: must be ≥ 1")
	}
	if c.Lambda <= 0 {
		bad("rate.lambda: %v must be > 0 (it keeps all-win and all-loss candidates finite)", c.Lambda)
	}
}
