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
	// Documents, when set, is the number of rows ingest stages as the
	// forecast assumes it, instead of counting the inputs: a forecast at a
	// scale whose data is not at hand (examples/paper-scale.yaml, the
	// paper's 283K problems). Only the forecast reads it.
	Documents int `yaml:"documents" json:"documents,omitempty"`
	// BesidePaper prints, after the forecast, each LLM stage's GPU-hours
	// beside the paper's App. E figures, with the saving of each mechanism
	// (jobs/forecast/paper.go).
	BesidePaper bool `yaml:"beside_paper" json:"beside_paper,omitempty"`
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
	if c.Plan.Documents < 0 {
		bad("plan.documents: must be ≥ 0 (0: count the inputs)")
	}
	for st, v := range c.Plan.CallsPerSecond {
		if !(v > 0) {
			bad("%s", fmt.Sprintf("plan.calls_per_second.%s: must be > 0 (calls per second)", st))
		}
	}
}
