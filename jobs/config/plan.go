package config

import "fmt"

// Plan configures `saber plan`'s forecast (jobs/forecast); it never
// changes what a stage writes.
type Plan struct {
	// CallsPerSecond is the LLM server's throughput per stage — calls
	// answered per second with the stage's concurrency in flight — from
	// which the forecast derives a call's time (concurrency/throughput)
	// and, by the stage's phases and waves, the server's hours and
	// GPU-hours; `saber plan --measure` measures it on a sample and prints
	// the value to put here. A stage without one gets no time forecast.
	CallsPerSecond map[string]float64 `yaml:"calls_per_second" json:"calls_per_second,omitempty"`
	// GPUs is the number of GPUs the server runs on (GPU-hours = wall
	// hours × GPUs); default 1.
	GPUs int `yaml:"gpus" json:"gpus"`
	// Sample is how many documents (or queries) the forecast reads, and
	// --measure sends, per stage to measure per-row costs; default 200.
	Sample int `yaml:"sample" json:"sample"`
}

func (c *Config) defaultsPlan() {
	if c.Plan.GPUs == 0 {
		c.Plan.GPUs = 1
	}
	if c.Plan.Sample == 0 {
		c.Plan.Sample = 200
	}
}

func (c *Config) validatePlan(bad func(string, ...any)) {
	if c.Plan.GPUs < 0 {
		bad("plan.gpus: must be ≥ 1")
	}
	if c.Plan.Sample < 0 {
		bad("plan.sample: must be ≥ 1")
	}
	for st, v := range c.Plan.CallsPerSecond {
		if !(v > 0) {
			bad("%s", fmt.Sprintf("plan.calls_per_second.%s: must be > 0 (calls per second)", st))
		}
	}
}
