package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"slices"
	"strconv"

	"github.com/saber-math/saber/lib/seed"
)

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

// latencyCSV is reports/latency_queries.csv: draw order, query id, domain.
func (m *model) latencyCSV() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"draw", "query", "domain"})
	for i, id := range m.latencyQueries {
		qi := m.bench.qIndex[id]
		w.Write([]string{strconv.Itoa(i + 1), id, m.domains[m.bench.qDomain[qi]]})
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// median of v (sorted in place); NaN for none.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n == 0 {
		return 0
	}
	if n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[n/2]
}
