package pairs

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/topics"
)

type domainProj struct {
	ID     string `parquet:"id"`
	Domain string `parquet:"domain"`
}

// Domains returns the domains queries are drawn from — select.domains, or
// every top-level domain of the configured ontology in SPEC §3's order —
// and each document's main domain from `topics` ("" when it has none).
// A configured domain the ontology lacks is bad input: it could never
// have a query.
func Domains(ctx context.Context, env *stage.Env) ([]string, map[string]string, error) {
	tree, objs, err := tag.LoadTree(ctx, env.Config)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objs {
		env.AddInput(o)
	}
	all := topics.DomainLabels(tree)
	list := all
	if want := env.Config.Select.Domains; len(want) > 0 {
		for _, d := range want {
			if !slices.Contains(all, d) {
				return nil, nil, stage.BadInput(fmt.Errorf("select.domains: %q is not a top-level domain of the ontology (%s)", d, strings.Join(all, ", ")))
			}
		}
		list = want
	}
	for _, d := range slices.Sorted(maps.Keys(env.Config.Select.DomainCounts)) {
		if !slices.Contains(list, d) {
			return nil, nil, stage.BadInput(fmt.Errorf("select.domain_counts: %q is not one of the domains (%s)", d, strings.Join(list, ", ")))
		}
	}
	parts, err := env.Upstream(ctx, dataset.Topics.Name)
	if err != nil {
		return nil, nil, err
	}
	dom := map[string]string{}
	for _, p := range parts {
		err := dataset.Scan(ctx, env.In, p.Key, func(rows []domainProj) error {
			for _, r := range rows {
				dom[r.ID] = r.Domain
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return list, dom, nil
}
