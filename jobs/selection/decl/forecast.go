package decl

import (
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/domains"
)

// forecast: the wanted queries per domain, capped by the eligible ones
// calibrate counted when it has run and select may fall short.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	cfg := Section.Of(in.Config())
	wanted := func(label string) float64 {
		for d, n := range cfg.DomainCounts {
			if domains.Key(d) == domains.Key(label) {
				return float64(n)
			}
		}
		return float64(cfg.PerDomain)
	}
	var labels []string
	basis := "select.per_domain (or domain_counts) per domain"
	eligible := map[string]float64{}
	if st := in.Stats(ctx, dataset.Thresholds.Name); st != nil {
		for k, v := range st {
			if d, ok := strings.CutPrefix(k, "eligible_at_final_"); ok {
				labels = append(labels, d)
				eligible[d] = float64(v)
			}
		}
		basis += ", capped by calibrate's eligible queries"
	}
	if len(labels) == 0 {
		tree, err := in.Ontology(ctx)
		if err != nil {
			return err
		}
		labels, err = readers.DomainOrderOf(tree, config.BenchmarkDomains.Get(in.Config()))
		if err != nil {
			return err
		}
	}
	var queries float64
	for _, l := range labels {
		n := wanted(strings.ReplaceAll(l, "_", " "))
		if e, ok := eligible[l]; ok && cfg.AllowShortfall && e < n {
			n = e
		}
		queries += n
	}
	k := float64(3 * config.BenchmarkK.Get(in.Config()))
	out.Metrics = append(out.Metrics,
		plan.Metric{Name: "queries", Value: queries, Stats: []string{"queries"}, Basis: fmt.Sprintf("%s over %d domains", basis, len(labels))},
		plan.Metric{Name: "candidates", Value: queries * k, Stats: []string{"candidates"}, Basis: fmt.Sprintf("3 × benchmark.k = %.0f per query", k)})
	out.Rows[dataset.Queries.Name] = queries
	out.Rows[dataset.Candidates.Name] = queries * k
	return nil
}
