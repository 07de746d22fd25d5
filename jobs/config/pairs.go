package config

// Pairs configures candidate discovery (SPEC §3 "Pairs and selection").
type Pairs struct {
	Shards int `yaml:"shards" json:"shards"`
	// TopicFloor and SummFloor are the thresholds pairs are kept above
	// (strictly). They may sit below the final thresholds so calibration can
	// search above them without a second pass. Defaults: the paper's 0.858
	// and 0.211.
	TopicFloor float64 `yaml:"topic_floor" json:"topic_floor"`
	SummFloor  float64 `yaml:"summ_floor" json:"summ_floor"`
	// Workers is how many queries are processed at once (default: cores).
	Workers int `yaml:"workers" json:"workers"`
}

func (c *Config) defaultsPairs() {
	if c.Pairs.Shards == 0 {
		c.Pairs.Shards = 1
	}
	if c.Pairs.TopicFloor == 0 {
		c.Pairs.TopicFloor = 0.858
	}
	if c.Pairs.SummFloor == 0 {
		c.Pairs.SummFloor = 0.211
	}
}

func (c *Config) validatePairs(bad func(string, ...any)) {
	if c.Pairs.Shards < 1 || c.Pairs.Workers < 0 {
		bad("pairs: shards must be ≥ 1, workers ≥ 0")
	}
	if c.Pairs.TopicFloor <= 0 || c.Pairs.TopicFloor >= 1 {
		bad("pairs.topic_floor: %v must be in (0, 1)", c.Pairs.TopicFloor)
	}
	if c.Pairs.SummFloor <= 0 || c.Pairs.SummFloor >= 1 {
		bad("pairs.summ_floor: %v must be in (0, 1)", c.Pairs.SummFloor)
	}
}
