package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
)

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
