package analyze

import (
	"context"
	"fmt"
	"slices"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/analysis"
	"github.com/saber-math/saber/lib/chart"
	"gonum.org/v1/plot/vg"
)

// The candidate categories of select (dataset.Candidate.Category) and
// their titles.
var categories = []string{"topic", "summary", "both"}

var categoryTitle = map[string]string{"topic": "topic-only", "summary": "summary-only", "both": "both"}

// SignalCurves are the signal groups' cumulative curves (App. D.1) of a
// benchmark: each query's candidates ranked by its final ratings, the
// ranks pooled per category over the queries.
func SignalCurves(b *bench) ([]analysis.Curve, error) {
	ranks := map[string][]int{}
	for _, q := range b.queries {
		cat := map[string]string{}
		for _, c := range b.cands[q.ID] {
			if !slices.Contains(categories, c.Category) {
				return nil, stage.BadInput(fmt.Errorf("candidates: query %s doc %s has category %q, not one of topic, summary, both", q.ID, c.Doc, c.Category))
			}
			cat[c.Doc] = c.Category
		}
		var rated []analysis.Rated
		for _, r := range b.ratings[q.ID] {
			if _, ok := cat[r.Doc]; !ok {
				return nil, stage.BadInput(fmt.Errorf("ratings: query %s rates doc %s, which is not one of its candidates", q.ID, r.Doc))
			}
			rated = append(rated, r)
		}
		for c, rs := range analysis.CategoryRanks(rated, cat) {
			ranks[c] = append(ranks[c], rs...)
		}
	}
	return analysis.Cumulative(ranks, categories), nil
}

func writeSignalGroups(ctx context.Context, env *stage.Env, b *bench, idx *index) error {
	curves, err := SignalCurves(b)
	if err != nil {
		return err
	}
	if len(curves) == 0 {
		idx.skip("signal groups: no candidate has a rating")
		return nil
	}
	n := len(curves[0].Frac)
	header := []string{"rank"}
	fig := chart.Line{Title: "Candidates within the top r of the final ratings, by signal group", XLabel: "rank r",
		YLabel: "cumulative fraction of the group", Legend: chart.BottomRight, YFromZero: true}
	for _, c := range curves {
		header = append(header, c.Category)
		s := chart.Series{Name: fmt.Sprintf("%s (%d)", categoryTitle[c.Category], c.N)}
		for r := 1; r <= n; r++ {
			s.X, s.Y = append(s.X, float64(r)), append(s.Y, c.Frac[r-1])
		}
		fig.Series = append(fig.Series, s)
	}
	rows := [][]string{header}
	for r := 1; r <= n; r++ {
		row := []string{fmt.Sprint(r)}
		for _, c := range curves {
			row = append(row, fmt.Sprintf("%.6f", c.Frac[r-1]))
		}
		rows = append(rows, row)
	}
	if err := writeCSV(ctx, env, ReportSignalGroups+".csv", rows); err != nil {
		return err
	}
	if err := writeFigure(ctx, env, ReportSignalGroups, fig, 7*vg.Inch, 4.5*vg.Inch); err != nil {
		return err
	}
	// The Markdown: the fraction at a few ranks and which rises fastest.
	at := []int{1, max(1, n/10), max(1, n/4), max(1, n/2), n}
	at = slices.Compact(at)
	var md []byte
	md = fmt.Appendf(md, "# Signal groups (App. D.1, Figure 6)\n\n%s", b.prov.Markdown())
	md = fmt.Appendf(md, "For each category of candidates, the fraction of its candidates ranked within the top r by the final ratings (rating descending, ties by document id), pooled over the %d queries. A faster rising curve is a group the judge placed higher. Curve: %s.csv, figure: %s.png.\n\n",
		len(b.queries), ReportSignalGroups, ReportSignalGroups)
	md = append(md, "| group | candidates | mean over r |"...)
	for _, r := range at {
		md = fmt.Appendf(md, " r ≤ %d |", r)
	}
	md = append(md, "\n|---|--:|--:|"...)
	for range at {
		md = append(md, "--:|"...)
	}
	md = append(md, '\n')
	best := curves[0]
	for _, c := range curves {
		md = fmt.Appendf(md, "| %s | %d | %.3f |", categoryTitle[c.Category], c.N, c.Area())
		for _, r := range at {
			md = fmt.Appendf(md, " %.3f |", c.Frac[r-1])
		}
		md = append(md, '\n')
		if c.Area() > best.Area() {
			best = c
		}
	}
	md = fmt.Appendf(md, "\nFastest rising (largest mean over r): %s.\n", categoryTitle[best.Category])
	if err := stage.WriteReport(ctx, env, ReportSignalGroups+".md", md); err != nil {
		return err
	}
	idx.add("Signal groups (D.1, Figure 6)", ReportSignalGroups+".md", "fastest rising: "+categoryTitle[best.Category])
	return nil
}
