package report

import (
	"context"
	"fmt"
	"math"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ndcg"
	"gonum.org/v1/plot/vg"
)

// Sizes of the report's figures.
const (
	chartWidth, chartHeight       = 9 * vg.Inch, 4.5 * vg.Inch // six groups of labels along X
	frontierWidth, frontierHeight = 8 * vg.Inch, 5 * vg.Inch
)

// domainChart is the overall and per-domain nDCG of every retriever in the
// main setting as a grouped bar chart, each bar with its 95% bootstrap
// interval as an error bar.
func (m *model) domainChart() chart.Bars {
	c := chart.Bars{
		Title:      fmt.Sprintf("nDCG@%d by domain (%s, exponential gain; bars: 95%% bootstrap intervals)", m.k, m.main),
		YLabel:     fmt.Sprintf("nDCG@%d", m.k),
		Categories: make([]string, 0, len(m.domains)+1),
		Legend:     chart.TopRight,
	}
	for _, s := range m.scopes() {
		c.Categories = append(c.Categories, scopeTitle(s))
	}
	for _, r := range m.retrievers {
		s := chart.BarSeries{Name: r}
		ok := true
		for _, sc := range m.scopes() {
			iv := m.get(r, m.main, ndcg.Exponential, sc)
			s.Values = append(s.Values, iv.Mean)
			s.Lo, s.Hi = append(s.Lo, iv.Lo), append(s.Hi, iv.Hi)
			// A scope without an interval (no queries) draws no bars
			// for the series rather than an invented one.
			ok = ok && finite(iv.Lo) && finite(iv.Hi) && iv.Lo <= iv.Hi
		}
		if !ok {
			s.Lo, s.Hi = nil, nil
		}
		c.Series = append(c.Series, s)
	}
	return c
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// writeChart draws domainChart, PNG and SVG.
func writeChart(ctx context.Context, env *stage.Env, m *model) error {
	png, svg, err := chart.RenderBoth(m.domainChart(), chartWidth, chartHeight)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if err := stage.WriteReport(ctx, env, ReportChart+".png", png); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, ReportChart+".svg", svg)
}
