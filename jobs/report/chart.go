package report

import (
	"context"
	"fmt"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ndcg"
	"gonum.org/v1/plot/vg"
)

// writeChart draws the overall and per-domain nDCG of every retriever in
// the main setting as a grouped bar chart, PNG and SVG.
func writeChart(ctx context.Context, env *stage.Env, m *model) error {
	c := chart.Bars{
		Title:      fmt.Sprintf("nDCG@%d by domain (%s, exponential gain)", m.k, m.main),
		YLabel:     fmt.Sprintf("nDCG@%d", m.k),
		Categories: make([]string, 0, len(m.domains)+1),
		Legend:     chart.TopRight,
	}
	for _, s := range m.scopes() {
		c.Categories = append(c.Categories, scopeTitle(s))
	}
	for _, r := range m.retrievers {
		s := chart.BarSeries{Name: r}
		for _, sc := range m.scopes() {
			s.Values = append(s.Values, m.get(r, m.main, ndcg.Exponential, sc).Mean)
		}
		c.Series = append(c.Series, s)
	}
	// Wider than the default: six groups of labels along X.
	png, svg, err := chart.RenderBoth(c, 9*vg.Inch, 4.5*vg.Inch)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	if err := stage.WriteReport(ctx, env, ReportChart+".png", png); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, ReportChart+".svg", svg)
}
