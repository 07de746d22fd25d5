package decl

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// fewQueries is the per-domain query count under which a domain's nDCG
// interval is wide: the bootstrap over 30 queries spans about ±0.05 on
// the demo's scores, the paper's 200 about ±0.02.
const fewQueries = 30

// summary is select's part of the run summary: the queries and
// candidates it chose, per domain, with a warning for a domain too small
// for narrow intervals and for a selection short of what was asked.
func summary(ctx context.Context, s *stage.Summarizer) error {
	st := s.Stats(ctx, dataset.Candidates.Name)
	if st == nil {
		return nil
	}
	var doms, few []string
	for k, v := range st {
		if d, ok := strings.CutPrefix(k, "selected_"); ok {
			doms = append(doms, fmt.Sprintf("%s %d", d, v))
			if v < fewQueries {
				few = append(few, fmt.Sprintf("%s %d (%d eligible)", d, v, st["eligible_"+d]))
			}
		}
	}
	sort.Strings(doms)
	sort.Strings(few)
	if len(few) > 0 {
		s.Warn(fmt.Sprintf("domains with fewer than %d queries, whose intervals are wide: %s (more: select.per_domain, a larger corpus or lower thresholds)", fewQueries, strings.Join(few, ", ")))
	}
	s.Line("benchmark", "%d queries, %d candidates; per domain: %s", st["queries"], st["candidates"], strings.Join(doms, ", "))
	s.Warn(shortfall(s.Config, st))
	return nil
}

// shortfall names the domains whose selection fell short of what was
// wanted (select.allow_shortfall let it through).
func shortfall(cfg *config.Config, st map[string]int64) string {
	vals := cfg.Values("select")
	want := vals["select.per_domain"]
	var short []string
	for k, n := range st {
		if d, ok := strings.CutPrefix(k, "selected_"); ok && want != "" && fmt.Sprint(n) != want {
			var w int64
			fmt.Sscan(want, &w)
			for k, override := range vals {
				if dom, ok := strings.CutPrefix(k, "select.domain_counts."); ok && strings.ReplaceAll(strings.ToLower(dom), " ", "_") == d {
					fmt.Sscan(override, &w)
				}
			}
			if n < w {
				short = append(short, fmt.Sprintf("%s %d of %d", d, n, w))
			}
		}
	}
	if len(short) == 0 {
		return ""
	}
	sort.Strings(short)
	return "selection fell short of select.per_domain: " + strings.Join(short, ", ")
}
