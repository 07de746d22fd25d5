package decl

import (
	"math"

	"github.com/saber-math/saber/jobs/config"
)

// Section is calibrate's part of the run config, `calibrate:`. It
// lives here, not in jobs/calibrate, because pairs reads it too: the
// per-query counts are made over its grid (see Benchmark on why no stage
// reads another's package).
var Section = config.SectionOf[Config]{Name: "calibrate"}

// Config configures threshold calibration (paper App. B.2, SPEC §3).
type Config struct {
	// TopicGrid and SummGrid are the thresholds tried. Each starts at or
	// above its floor (benchmark.topic_floor, benchmark.summ_floor; the
	// default start): pairs holds nothing below the floors, so a grid
	// point under one would silently miss pairs.
	TopicGrid Grid `yaml:"topic_grid" json:"topic_grid"`
	SummGrid  Grid `yaml:"summ_grid" json:"summ_grid"`
	// MinEligible is the eligible queries a domain needs at a grid point
	// for the point to be feasible for it (paper: 150).
	MinEligible int `yaml:"min_eligible" json:"min_eligible"`
}

// Grid is the arithmetic sequence From, From+Step, ... up to To.
type Grid struct {
	From float64 `yaml:"from" json:"from"`
	To   float64 `yaml:"to" json:"to"`
	Step float64 `yaml:"step" json:"step"`
}

// MaxGridPoints bounds each grid axis: calibration costs O(points²) per query.
const MaxGridPoints = 1000

// Values lists the grid's thresholds, each rounded to 6 decimals so that
// 0.858 + 3·0.01 prints and compares as 0.888, not 0.8880000000000001.
func (g Grid) Values() []float64 {
	var out []float64
	for k := 0; k <= MaxGridPoints; k++ {
		v := math.Round((g.From+float64(k)*g.Step)*1e6) / 1e6
		if v > g.To+1e-12 || g.Step <= 0 && k > 0 {
			break
		}
		out = append(out, v)
	}
	return out
}

// Defaults implements Section.
func (c *Config) Defaults(core *config.Config) {
	g := &c.TopicGrid
	if g.From == 0 {
		g.From = config.BenchmarkTopicFloor.Get(core)
	}
	if g.To == 0 {
		g.To = 0.99
	}
	if g.Step == 0 {
		g.Step = 0.01
	}
	g = &c.SummGrid
	if g.From == 0 {
		g.From = config.BenchmarkSummFloor.Get(core)
	}
	if g.To == 0 {
		g.To = 0.6
	}
	if g.Step == 0 {
		g.Step = 0.01
	}
	if c.MinEligible == 0 {
		c.MinEligible = 150
	}
}

// Validate implements Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	grid := func(name string, g Grid, floor float64, floorKey string) {
		switch {
		case g.Step <= 0:
			bad("calibrate.%s.step: %v must be > 0", name, g.Step)
		case g.From < floor:
			bad("calibrate.%s.from: %v is below %s %v (pairs holds nothing under it; lower the floor and rerun pairs)", name, g.From, floorKey, floor)
		case g.To < g.From || g.To >= 1:
			bad("calibrate.%s.to: %v must be in [from, 1)", name, g.To)
		case (g.To-g.From)/g.Step > MaxGridPoints:
			bad("calibrate.%s: more than %d points; raise step", name, MaxGridPoints)
		}
	}
	grid("topic_grid", c.TopicGrid, config.BenchmarkTopicFloor.Get(core), config.BenchmarkTopicFloor.Path)
	grid("summ_grid", c.SummGrid, config.BenchmarkSummFloor.Get(core), config.BenchmarkSummFloor.Path)
	if c.MinEligible < 1 {
		bad("calibrate.min_eligible: must be ≥ 1")
	}
}

// The keys of this section that pairs reads (config.KeyOf): its counts are
// made over these thresholds.
var (
	TopicGridKey = config.KeyOf[Config, Grid]{Section: Section, Name: "topic_grid", Field: func(c *Config) Grid { return c.TopicGrid }}
	SummGridKey  = config.KeyOf[Config, Grid]{Section: Section, Name: "summ_grid", Field: func(c *Config) Grid { return c.SummGrid }}
)
