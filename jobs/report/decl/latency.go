package decl

import (
	"cmp"
	"slices"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/seed"
)

// The latency sample is declared here because two stages draw it: evaluate
// times these queries cold (App. C.5, no caching) and report takes its
// medians over them.

// LatencyQueries is the size of the latency sample under cfg: the report
// section's latency_queries, or its default when the config was loaded
// without the section (a test's config of a few stages).
func LatencyQueries(cfg *config.Config) int {
	if slices.Contains(cfg.Sections(), Section.Name) {
		return LatencyQueriesKey.Get(cfg)
	}
	var c Config
	c.Defaults(cfg)
	return c.LatencyQueries
}

// LatencyKey is the seed key of query id in the latency sample: a query's
// draw is seed.Derive(run seed, "report", LatencyKey(id)).
func LatencyKey(id string) string { return "latency\x00" + id }

// LatencySample draws the latency protocol's queries (App. C.5): the n
// queries with the smallest seed.Derive(runSeed, "report", LatencyKey(id)),
// ties by id, in that order. It depends only on the seed and the set of
// ids, so every retriever is timed on the same queries and a rerun draws
// them again identically. With n ≥ len(ids) it is every query.
func LatencySample(runSeed uint64, ids []string, n int) []string {
	type drawn struct {
		id string
		h  uint64
	}
	all := make([]drawn, len(ids))
	for i, id := range ids {
		all[i] = drawn{id, seed.Derive(runSeed, "report", LatencyKey(id))}
	}
	slices.SortFunc(all, func(a, b drawn) int { return cmp.Or(cmp.Compare(a.h, b.h), cmp.Compare(a.id, b.id)) })
	out := make([]string, 0, min(n, len(all)))
	for _, d := range all[:min(n, len(all))] {
		out = append(out, d.id)
	}
	return out
}
