package config

import (
	"math"
	"sort"
	"strings"
)

// Calibrate configures threshold calibration (paper App. B.2, SPEC §3).
type Calibrate struct {
	// TopicGrid and SummGrid are the thresholds tried. Each starts at or
	// above its pairs floor: pairs holds nothing below the floors, so a grid
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

// Select configures benchmark selection (paper §3.4, SPEC §3).
type Select struct {
	// K documents are drawn from each category (topic-only, summary-only,
	// both); a query is eligible with at least K in each (paper: 50).
	K int `yaml:"k" json:"k"`
	// PerDomain queries are drawn from each domain (paper: 200);
	// DomainCounts overrides it per domain label.
	PerDomain    int            `yaml:"per_domain" json:"per_domain"`
	DomainCounts map[string]int `yaml:"domain_counts" json:"domain_counts"`
	// Total, when set, must equal the sum over domains (a guard against a
	// per_domain edit that silently changes the benchmark's size).
	Total int `yaml:"total" json:"total"`
	// Domains are the top-level ontology labels queries are drawn from;
	// default every top-level domain of the ontology.
	Domains []string `yaml:"domains" json:"domains"`
	// Thresholds is "calibrated" (read the calibrate stage's `thresholds`)
	// or "fixed" (TauTopic and TauSumm below; default the paper's).
	Thresholds string  `yaml:"thresholds" json:"thresholds"`
	TauTopic   float64 `yaml:"tau_topic" json:"tau_topic"`
	TauSumm    float64 `yaml:"tau_summ" json:"tau_summ"`
	// AllowShortfall selects every eligible query of a domain that has too
	// few instead of failing (the select binary's --allow-shortfall).
	AllowShortfall bool `yaml:"allow_shortfall" json:"allow_shortfall"`
}

// Threshold sources of Select.Thresholds.
const (
	ThresholdsCalibrated = "calibrated"
	ThresholdsFixed      = "fixed"
)

func (c *Config) defaultsSelect() {
	g := &c.Calibrate.TopicGrid
	if g.From == 0 {
		g.From = c.Pairs.TopicFloor
	}
	if g.To == 0 {
		g.To = 0.99
	}
	if g.Step == 0 {
		g.Step = 0.01
	}
	g = &c.Calibrate.SummGrid
	if g.From == 0 {
		g.From = c.Pairs.SummFloor
	}
	if g.To == 0 {
		g.To = 0.6
	}
	if g.Step == 0 {
		g.Step = 0.01
	}
	if c.Calibrate.MinEligible == 0 {
		c.Calibrate.MinEligible = 150
	}
	s := &c.Select
	if s.K == 0 {
		s.K = 50
	}
	if s.PerDomain == 0 {
		s.PerDomain = 200
	}
	if s.Thresholds == "" {
		s.Thresholds = ThresholdsCalibrated
	}
	if s.TauTopic == 0 {
		s.TauTopic = 0.858
	}
	if s.TauSumm == 0 {
		s.TauSumm = 0.211
	}
}

func (c *Config) validateSelect(bad func(string, ...any)) {
	grid := func(name string, g Grid, floor float64) {
		switch {
		case g.Step <= 0:
			bad("calibrate.%s.step: %v must be > 0", name, g.Step)
		case g.From < floor:
			bad("calibrate.%s.from: %v is below the pairs floor %v (pairs holds nothing under it; lower the floor and rerun pairs)", name, g.From, floor)
		case g.To < g.From || g.To >= 1:
			bad("calibrate.%s.to: %v must be in [from, 1)", name, g.To)
		case (g.To-g.From)/g.Step > MaxGridPoints:
			bad("calibrate.%s: more than %d points; raise step", name, MaxGridPoints)
		}
	}
	grid("topic_grid", c.Calibrate.TopicGrid, c.Pairs.TopicFloor)
	grid("summ_grid", c.Calibrate.SummGrid, c.Pairs.SummFloor)
	if c.Calibrate.MinEligible < 1 {
		bad("calibrate.min_eligible: must be ≥ 1")
	}
	s := c.Select
	if s.K < 1 {
		bad("select.k: must be ≥ 1")
	}
	if s.PerDomain < 0 {
		bad("select.per_domain: must be ≥ 0")
	}
	for _, d := range sortedKeysOf(s.DomainCounts) {
		if s.DomainCounts[d] < 0 {
			bad("select.domain_counts.%s: must be ≥ 0", d)
		}
		if len(s.Domains) > 0 && !contains(s.Domains, d) {
			bad("select.domain_counts.%s: not one of select.domains (%s)", d, strings.Join(s.Domains, ", "))
		}
	}
	if s.Total < 0 {
		bad("select.total: must be ≥ 0")
	}
	switch s.Thresholds {
	case ThresholdsCalibrated:
	case ThresholdsFixed:
		if s.TauTopic < c.Pairs.TopicFloor {
			bad("select.tau_topic: %v is below pairs.topic_floor %v (pairs holds nothing under the floor)", s.TauTopic, c.Pairs.TopicFloor)
		}
		if s.TauSumm < c.Pairs.SummFloor {
			bad("select.tau_summ: %v is below pairs.summ_floor %v (pairs holds nothing under the floor)", s.TauSumm, c.Pairs.SummFloor)
		}
		if s.TauTopic >= 1 || s.TauSumm >= 1 {
			bad("select.tau_topic, select.tau_summ: must be < 1")
		}
	default:
		bad("select.thresholds: %q is not one of %s, %s", s.Thresholds, ThresholdsCalibrated, ThresholdsFixed)
	}
}

// Wanted returns how many queries select draws from each domain.
func (s Select) Wanted(domain string) int {
	if n, ok := s.DomainCounts[domain]; ok {
		return n
	}
	return s.PerDomain
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
