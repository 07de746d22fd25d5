package decl

import (
	"slices"
	"sort"
	"strings"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/retrievers"
)

// Section is report's part of the run config, `report:`. It lives
// here, not in jobs/report, because analyze reads it too (report.families,
// for its score-over-time chart); see Benchmark on why no stage reads
// another's package. The systems report scores are evaluate's: it also
// reads evaluate.retrievers, evaluate.settings, evaluate.instructions and
// retrievers.
var Section = config.SectionOf[Config]{Name: "report"}

// Config configures the final tables.
type Config struct {
	// Resamples of queries for the 95% bootstrap interval (SPEC §3: 1000).
	Resamples int `yaml:"resamples" json:"resamples"`
	// K of nDCG@K (10).
	K int `yaml:"k" json:"k"`
	// LatencyQueries is the size of the latency sample (App. C.5: 50
	// queries drawn once with the run seed, written to
	// reports/latency_queries.csv); Table 1's median seconds per query is
	// over those queries' timings.
	LatencyQueries int `yaml:"latency_queries" json:"latency_queries"`
	// Families overrides a retriever's family on the quality–latency
	// frontier (App. D.7): bi-encoder, cross-encoder or other. By default
	// kind embedding is bi-encoder; rerank, score and chat are
	// cross-encoder; lexical built-ins and plugins are other (on no
	// frontier).
	Families map[string]string `yaml:"families" json:"families,omitempty"`
	// Plan is a forecast saved before the run with `saber plan --json >
	// FILE` (a path resolved like the sources'); the page (index.html)
	// shows it beside what the manifests of the steps before report
	// recorded, with the ratio — the forecast checked, not a recount.
	// Empty: the page says how to add one.
	Plan string `yaml:"plan" json:"plan,omitempty"`
}

// Defaults implements Section.
func (c *Config) Defaults(*config.Config) {
	if c.Resamples == 0 {
		c.Resamples = 1000
	}
	if c.K == 0 {
		c.K = 10
	}
	if c.LatencyQueries == 0 {
		c.LatencyQueries = 50
	}
}

// Validate implements Section.
func (c *Config) Validate(core *config.Config, bad func(string, ...any)) {
	if c.Resamples < 1 || c.K < 1 {
		bad("report: resamples and k must be ≥ 1")
	}
	if c.LatencyQueries < 1 {
		bad("report: latency_queries must be ≥ 1")
	}
	names := make([]string, 0, len(c.Families))
	for n := range c.Families {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains(config.EvaluateRetrievers.Get(core), name) {
			bad("report.families: %q is not in evaluate.retrievers", name)
		}
		if f := c.Families[name]; !slices.Contains(retrievers.Families, f) {
			bad("report.families.%s: %q is not one of %s", name, f, strings.Join(retrievers.Families, ", "))
		}
	}
}

// FamilyOf is a retriever's family on the quality–latency frontier:
// report.families if it names one; else by its config kind
// (retrievers.KindFamily); the lexical built-ins are other, on neither
// frontier. It panics when cfg was loaded without the report section.
func FamilyOf(cfg *config.Config, name string) string {
	if f, ok := FamiliesKey.Get(cfg)[name]; ok {
		return f
	}
	spec, ok := cfg.Retriever(name)
	if !ok {
		return retrievers.FamilyOther
	}
	return retrievers.KindFamily(spec.Kind)
}

// Families of the frontier, the values of Config.Families.
var Families = retrievers.Families

// The keys of this section that other stages read (config.KeyOf): analyze
// groups retrievers by family, evaluate times the latency sample.
var (
	FamiliesKey       = config.KeyOf[Config, map[string]string]{Section: Section, Name: "families", Field: func(c *Config) map[string]string { return c.Families }}
	LatencyQueriesKey = config.KeyOf[Config, int]{Section: Section, Name: "latency_queries", Field: func(c *Config) int { return c.LatencyQueries }}
)
