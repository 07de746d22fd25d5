package report

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ndcg"
)

// Frontier families (config.Families); see retrievers.Families.
const (
	FamilyBiEncoder    = retrievers.FamilyBiEncoder
	FamilyCrossEncoder = retrievers.FamilyCrossEncoder
	FamilyOther        = retrievers.FamilyOther
)

// FamilyOf is a retriever's family on the quality–latency frontier, as
// report.families sets it (decl.FamilyOf).
var FamilyOf = decl.FamilyOf

// FrontierPoint is one system by median seconds per query and nDCG.
type FrontierPoint struct {
	Name          string
	Seconds, NDCG float64
}

// Pareto reports which points lie on the quality–latency frontier: those no
// other point dominates, where q dominates p when q is at least as fast and
// at least as good (Seconds ≤, NDCG ≥) and strictly better in one. Two
// identical points are both on it.
func Pareto(pts []FrontierPoint) []bool {
	on := make([]bool, len(pts))
	for i, p := range pts {
		on[i] = true
		for j, q := range pts {
			if j != i && q.Seconds <= p.Seconds && q.NDCG >= p.NDCG && (q.Seconds < p.Seconds || q.NDCG > p.NDCG) {
				on[i] = false
				break
			}
		}
	}
	return on
}

// frontiers assigns every retriever its family and marks those on their
// family's frontier (bi-encoders and cross-encoders apart; retrievers
// without timings are on none).
func (m *model) frontiers(cfg *config.Config) {
	m.families, m.frontier = map[string]string{}, map[string]bool{}
	for _, r := range m.retrievers {
		m.families[r] = FamilyOf(cfg, r)
	}
	for _, fam := range []string{FamilyBiEncoder, FamilyCrossEncoder} {
		var names []string
		var pts []FrontierPoint
		for _, r := range m.retrievers {
			med, ok := m.median[System{r, m.main}]
			if m.families[r] != fam || !ok {
				continue
			}
			names = append(names, r)
			pts = append(pts, FrontierPoint{r, med, m.get(r, m.main, ndcg.Exponential, ScopeOverall).Mean})
		}
		for i, on := range Pareto(pts) {
			if on {
				m.frontier[names[i]] = true
			}
		}
	}
}

// frontierMark is Table 1's Frontier cell.
func (m *model) frontierMark(r string) string {
	if m.frontier[r] {
		return m.families[r]
	}
	return ""
}

var familyTitle = map[string]string{FamilyBiEncoder: "Bi-encoders", FamilyCrossEncoder: "Cross-encoders / rerankers", FamilyOther: "Other"}

// frontierChart is App. D.7's figure: overall nDCG against median seconds
// per query (log scale), every timed retriever a labelled point, and each
// family's frontier a named line. ok is false when no retriever was timed
// with a positive time.
func (m *model) frontierChart() (c chart.Scatter, ok bool) {
	c = chart.Scatter{
		Title:  fmt.Sprintf("Quality vs latency (%s)", m.main),
		XLabel: "median seconds per query (log scale)",
		YLabel: fmt.Sprintf("nDCG@%d", m.k),
		LogX:   true,
		Legend: chart.TopLeft, // fast and good is the rarest corner
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	type pt struct{ x, y float64 }
	front := map[string][]pt{}
	for _, fam := range []string{FamilyBiEncoder, FamilyCrossEncoder, FamilyOther} {
		for _, r := range m.retrievers {
			med, timed := m.median[System{r, m.main}]
			if m.families[r] != fam || !timed || !(med > 0) {
				continue
			}
			y := m.get(r, m.main, ndcg.Exponential, ScopeOverall).Mean
			c.Points = append(c.Points, chart.Point{Label: r, X: med, Y: y, Group: familyTitle[fam]})
			lo, hi = math.Min(lo, med), math.Max(hi, med)
			if m.frontier[r] {
				front[fam] = append(front[fam], pt{med, y})
			}
		}
	}
	for _, fam := range []string{FamilyBiEncoder, FamilyCrossEncoder} {
		ps := front[fam]
		if len(ps) == 0 {
			continue
		}
		slices.SortFunc(ps, func(a, b pt) int { return cmp.Or(cmp.Compare(a.x, b.x), cmp.Compare(a.y, b.y)) })
		s := chart.Series{Name: strings.TrimSuffix(strings.Split(familyTitle[fam], " ")[0], "s") + " frontier"}
		for _, p := range ps {
			s.X, s.Y = append(s.X, p.x), append(s.Y, p.y)
		}
		c.Lines = append(c.Lines, s)
	}
	if len(c.Points) == 0 {
		return c, false
	}
	if lo == hi { // one time only: a log axis needs a range
		c.LogX = false
		c.XLabel = "median seconds per query"
	}
	return c, true
}

func writeFrontier(ctx context.Context, env *stage.Env, m *model) error {
	c, ok := m.frontierChart()
	if !ok {
		return nil
	}
	png, svg, err := chart.RenderBoth(c, frontierWidth, frontierHeight)
	if err != nil {
		return fmt.Errorf("frontier chart: %w", err)
	}
	if err := stage.WriteReport(ctx, env, ReportFrontier+".png", png); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, ReportFrontier+".svg", svg)
}
