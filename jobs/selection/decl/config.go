package decl

import (
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/domains"
)

// Section is select's part of the run config, `select:`. It lives
// here, not in jobs/selection, because pairs reads it too: with fixed
// thresholds the per-query counts are made over them as well (see
// Benchmark on why no stage reads another's package). K and the domains
// are shared with calibrate: benchmark.k, benchmark.domains.
var Section = config.SectionOf[Config]{Name: "select"}

// Config configures benchmark selection (paper §3.4, SPEC §3).
type Config struct {
	// PerDomain queries are drawn from each domain (paper: 200);
	// DomainCounts overrides it per domain label.
	PerDomain    int            `yaml:"per_domain" json:"per_domain"`
	DomainCounts map[string]int `yaml:"domain_counts" json:"domain_counts"`
	// Total, when set, must equal the sum over domains (a guard against a
	// per_domain edit that silently changes the benchmark's size).
	Total int `yaml:"total" json:"total"`
	// Thresholds is "calibrated" (read the calibrate stage's `thresholds`)
	// or "fixed" (TauTopic and TauSumm below; default the paper's).
	Thresholds string  `yaml:"thresholds" json:"thresholds"`
	TauTopic   float64 `yaml:"tau_topic" json:"tau_topic"`
	TauSumm    float64 `yaml:"tau_summ" json:"tau_summ"`
	// AllowShortfall selects every eligible query of a domain that has too
	// few instead of failing (the select binary's --allow-shortfall).
	AllowShortfall bool `yaml:"allow_shortfall" json:"allow_shortfall"`
}

// Threshold sources of Config.Thresholds.
const (
	ThresholdsCalibrated = "calibrated"
	ThresholdsFixed      = "fixed"
)

// Defaults implements Section.
func (s *Config) Defaults(*config.Config) {
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

// Validate implements Section.
func (s *Config) Validate(core *config.Config, bad func(string, ...any)) {
	doms := config.BenchmarkDomains.Get(core)
	if s.PerDomain < 0 {
		bad("select.per_domain: must be ≥ 0")
	}
	names := make([]string, 0, len(s.DomainCounts))
	for d := range s.DomainCounts {
		names = append(names, d)
	}
	sort.Strings(names)
	seen := map[string]string{}
	for _, d := range names {
		if o, dup := seen[domains.Key(d)]; dup {
			bad("select.domain_counts: %q and %q name the same domain (domains match case-insensitively)", o, d)
		}
		seen[domains.Key(d)] = d
		if s.DomainCounts[d] < 0 {
			bad("select.domain_counts.%s: must be ≥ 0", d)
		}
		if len(doms) > 0 && !slices.ContainsFunc(doms, func(c string) bool { return domains.Key(c) == domains.Key(d) }) {
			bad("select.domain_counts.%s: not one of benchmark.domains (%s; matched case-insensitively)", d, strings.Join(doms, ", "))
		}
	}
	if s.Total < 0 {
		bad("select.total: must be ≥ 0")
	}
	switch s.Thresholds {
	case ThresholdsCalibrated:
	case ThresholdsFixed:
		if floor := config.BenchmarkTopicFloor.Get(core); s.TauTopic < floor {
			bad("select.tau_topic: %v is below benchmark.topic_floor %v (pairs holds nothing under the floor)", s.TauTopic, floor)
		}
		if floor := config.BenchmarkSummFloor.Get(core); s.TauSumm < floor {
			bad("select.tau_summ: %v is below benchmark.summ_floor %v (pairs holds nothing under the floor)", s.TauSumm, floor)
		}
		if s.TauTopic >= 1 || s.TauSumm >= 1 {
			bad("select.tau_topic, select.tau_summ: must be < 1")
		}
	default:
		bad("select.thresholds: %q is not one of %s, %s", s.Thresholds, ThresholdsCalibrated, ThresholdsFixed)
	}
}

// Wanted returns how many queries select draws from each domain; a
// domain_counts key names its domain case-insensitively, as
// benchmark.domains does.
func (s *Config) Wanted(domain string) int {
	if n, ok := s.DomainCounts[domain]; ok {
		return n
	}
	for d, n := range s.DomainCounts {
		if domains.Key(d) == domains.Key(domain) {
			return n
		}
	}
	return s.PerDomain
}

// The keys of this section that pairs reads (config.KeyOf): fixed
// thresholds are cell boundaries of its counts.
var (
	ThresholdsKey = config.KeyOf[Config, string]{Section: Section, Name: "thresholds", Field: func(c *Config) string { return c.Thresholds }}
	TauTopicKey   = config.KeyOf[Config, float64]{Section: Section, Name: "tau_topic", Field: func(c *Config) float64 { return c.TauTopic }}
	TauSummKey    = config.KeyOf[Config, float64]{Section: Section, Name: "tau_summ", Field: func(c *Config) float64 { return c.TauSumm }}
)
