package report

import (
	"testing"

	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ndcg"
	"gonum.org/v1/plot/vg"
)

// readableChart renders c at w × h and checks chart.Layout.Readable.
func readableChart(t *testing.T, name string, c chart.Chart, w, h vg.Length) {
	t.Helper()
	_, svg, err := chart.RenderBoth(c, w, h)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	l, err := chart.Inspect(svg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := l.Readable(2); err != nil {
		t.Errorf("%s:\n%v", name, err)
	}
}

// The report's figures with long names and narrow ranges, as a user found
// them: long domain labels overlapped in ndcg_by_domain, and a frontier
// whose times all lie in one decade had no X tick label.
func TestReportChartsReadable(t *testing.T) {
	exp := ndcg.Exponential.String()
	m := &model{main: "statement-full", k: 10, ci: map[Key]ndcg.Interval{}, median: map[System]float64{},
		families: map[string]string{}, frontier: map[string]bool{},
		domains: []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis", "Mathematical Logic and Foundations"}}
	names := []string{"Reason-ModernColBERT-long-name", "Qwen3-Embedding-8B-with-instructions", "bm25"}
	for i, r := range names {
		m.retrievers = append(m.retrievers, r)
		m.families[r] = []string{FamilyCrossEncoder, FamilyBiEncoder, FamilyOther}[i]
		m.frontier[r] = i < 2
		m.median[System{r, m.main}] = 0.2 + 0.1*float64(i) // one decade
		for j, sc := range m.scopes() {
			v := 0.300 + 0.001*float64(i+j)
			m.ci[Key{r, m.main, exp, sc}] = ndcg.Interval{Mean: v, Lo: v - 0.002, Hi: v + 0.002}
		}
	}
	bars := m.domainChart()
	if bars.Series[0].Lo == nil {
		t.Error("the domain chart has no error bars though every interval is known")
	}
	readableChart(t, "ndcg_by_domain", bars, chartWidth, chartHeight)
	c, ok := m.frontierChart()
	if !ok {
		t.Fatal("no frontier chart")
	}
	readableChart(t, "frontier", c, frontierWidth, frontierHeight)
}
