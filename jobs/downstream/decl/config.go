package decl

import (
	"slices"

	"github.com/saber-math/saber/jobs/config"
)

// Section is the deduplication experiment's part of the run config,
// `downstream:`. Its definition lives in jobs/config (config.Downstream)
// because rewrite reads it too, and no stage imports another; these names
// keep downstream's callers as they were.
var Section = config.DownstreamSection

// Scales of the experiment (App. B.4, D.11); see config.DownstreamScalePool.
const (
	ScalePool       = config.DownstreamScalePool
	ScaleCandidates = config.DownstreamScaleCandidates
)

// Scales are the scales, in report order.
var Scales = config.DownstreamScales

// Config configures the deduplication experiment; see config.Downstream.
type Config = config.Downstream

// Enabled reports whether the config asks for the experiment.
func Enabled(c *config.Config) bool { return config.DownstreamEnabled(c) }

// Off is the hint for a main line that leaves the experiment out.
const Off = "set downstream.retrievers to run the deduplication experiment (App. B.4)"

// BiEncoders are the retrievers of the experiment that embed (their kind
// is declared retrievers.Kind.BiEncoder), in config order: the models the
// embed stage runs.
func BiEncoders(c *config.Config) []string {
	var out []string
	for _, r := range Section.Of(c).Retrievers {
		if s, ok := c.Retrievers[r]; ok && s.BiEncoder() {
			out = append(out, r)
		}
	}
	return out
}

// OnPool reports whether the retriever ranks the whole pool: a lexical
// baseline (one index over the pool) or a bi-encoder.
func OnPool(c *config.Config, name string) bool {
	if slices.Contains(config.LexicalRetrievers, name) {
		return true
	}
	s, ok := c.Retrievers[name]
	return ok && s.BiEncoder()
}

// retrieverKeys are the config keys of the configured retrievers among
// names.
func retrieverKeys(c *config.Config, names []string) []string {
	var out []string
	for _, r := range names {
		if _, ok := c.Retrievers[r]; ok {
			out = append(out, config.MapKey("retrievers", r))
		}
	}
	return out
}
