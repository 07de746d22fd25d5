package analyze

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/readers"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/analysis"
	"github.com/saber-math/saber/lib/chart"
	"gonum.org/v1/plot/vg"
)

// ReadReleaseDates reads the release dates of the CSV `saber mteb` reads:
// a header naming retriever and release_date (other columns, mteb_score
// among them, are ignored, and may be empty); a row with an empty date is
// a model whose date is unknown, left out.
func ReadReleaseDates(r io.Reader, name string) (map[string]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty (want a header: retriever,release_date)", name)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, c := range []string{"retriever", "release_date"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s line 1: no column %q (want a header: retriever,release_date)", name, c)
		}
	}
	out := map[string]string{}
	for i, row := range rows[1:] {
		get := func(c string) string {
			if j := col[c]; j < len(row) {
				return strings.TrimSpace(row[j])
			}
			return ""
		}
		r, d := get("retriever"), get("release_date")
		switch {
		case r == "":
			return nil, fmt.Errorf("%s line %d: empty retriever", name, i+2)
		case out[r] != "":
			return nil, fmt.Errorf("%s line %d: retriever %s again", name, i+2, r)
		case d == "":
			continue
		}
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return nil, fmt.Errorf("%s line %d: release_date %q is not YYYY-MM-DD", name, i+2, d)
		}
		out[r] = d
	}
	return out, nil
}

// decimalYear is 2024.5 for 2024-07-02.
func decimalYear(date string) float64 {
	t, _ := time.Parse(time.DateOnly, date)
	days := time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)).Hours() / 24
	return float64(t.Year()) + float64(t.YearDay()-1)/days
}

// overTime is App. D.8's figure data.
type overTime struct {
	setting string
	pts     []analysis.Dated
	family  []string
	on      []bool
	undated []string
}

// OverTimeChart draws the scores over release dates: each family's
// frontier over time as a staircase (bi-encoders and cross-encoders
// apart), its members coloured, every other system in grey.
func (o overTime) chart() chart.Scatter {
	c := chart.Scatter{Title: fmt.Sprintf("SABER-Math score over time (%s)", o.setting), XLabel: "release date (year)", YLabel: "nDCG@10",
		Legend: chart.TopLeft, Muted: []string{"below the frontier"}}
	for _, fam := range []string{retrievers.FamilyBiEncoder, retrievers.FamilyCrossEncoder} {
		var idx []int
		for i := range o.pts {
			if o.family[i] == fam && o.on[i] {
				idx = append(idx, i)
			}
		}
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(o.pts[a].Date, o.pts[b].Date) })
		if len(idx) == 0 {
			continue
		}
		s := chart.Series{Name: map[string]string{retrievers.FamilyBiEncoder: "bi-encoder frontier", retrievers.FamilyCrossEncoder: "cross-encoder frontier"}[fam]}
		for k, i := range idx {
			x, y := decimalYear(o.pts[i].Date), o.pts[i].Score
			if k > 0 {
				s.X, s.Y = append(s.X, x), append(s.Y, s.Y[len(s.Y)-1])
			}
			s.X, s.Y = append(s.X, x), append(s.Y, y)
		}
		c.Lines = append(c.Lines, s)
	}
	for i, p := range o.pts {
		g := "below the frontier"
		if o.on[i] {
			g = map[string]string{retrievers.FamilyBiEncoder: "bi-encoders", retrievers.FamilyCrossEncoder: "cross-encoders"}[o.family[i]]
		}
		c.Points = append(c.Points, chart.Point{Label: p.Name, X: decimalYear(p.Date), Y: p.Score, Group: g})
	}
	return c
}

func writeOverTime(ctx context.Context, env *stage.Env, b *bench, idx *index) error {
	cfg := Section.Of(env.Config)
	if cfg.ReleaseDates == "" {
		idx.skip("score over time (D.8): set analyze.release_dates to the CSV `saber mteb` reads (retriever, release_date)")
		return nil
	}
	uri := env.Config.Resolve(cfg.ReleaseDates)
	f, err := layout.OpenFile(ctx, uri, env.Config.Storage)
	if err != nil {
		return stage.BadInput(fmt.Errorf("analyze.release_dates: %w", err))
	}
	raw, err := store.ReadAll(ctx, f.Store, f.Key)
	if err != nil {
		return stage.BadInput(fmt.Errorf("analyze.release_dates: %w", err))
	}
	sum := sha256.Sum256(raw)
	env.AddFile(layout.Object{URI: uri, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(raw))})
	dates, err := ReadReleaseDates(strings.NewReader(string(raw)), cfg.ReleaseDates)
	if err != nil {
		return stage.BadInput(fmt.Errorf("analyze.release_dates: %w", err))
	}
	scores, setting, err := readers.ResultsScores(b.results)
	if err != nil {
		return stage.BadInput(fmt.Errorf("results: %w", err))
	}
	o := overTime{setting: setting}
	var names []string
	for r := range scores {
		names = append(names, r)
	}
	slices.Sort(names)
	for _, r := range names {
		d, ok := dates[r]
		if !ok {
			o.undated = append(o.undated, r)
			continue
		}
		o.pts = append(o.pts, analysis.Dated{Name: r, Date: d, Score: scores[r]})
		o.family = append(o.family, reportdecl.FamilyOf(env.Config, r))
	}
	// The frontier of each family over time.
	o.on = make([]bool, len(o.pts))
	for _, fam := range []string{retrievers.FamilyBiEncoder, retrievers.FamilyCrossEncoder} {
		var sub []analysis.Dated
		var at []int
		for i, p := range o.pts {
			if o.family[i] == fam {
				sub, at = append(sub, p), append(at, i)
			}
		}
		on, err := analysis.TimeFrontier(sub)
		if err != nil {
			return err
		}
		for k, i := range at {
			o.on[i] = on[k]
		}
	}
	rows := [][]string{{"retriever", "family", "release_date", "ndcg", "on_frontier"}}
	var md []byte
	md = fmt.Appendf(md, "# SABER-Math score over time (App. D.8, Figure 10)\n\n%s", b.prov.Markdown())
	md = fmt.Appendf(md, "Overall nDCG@10 (%s, exponential gain) against each retriever's release date (%s). A retriever is on its family's frontier when it scores above every earlier one of the family (bi-encoders and cross-encoders apart; others are on neither).\n\n", setting, cfg.ReleaseDates)
	md = append(md, "| retriever | family | released | nDCG@10 | frontier |\n|---|---|---|--:|:-:|\n"...)
	order := make([]int, len(o.pts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(o.pts[a].Date, o.pts[b].Date) })
	for _, i := range order {
		p, mark := o.pts[i], ""
		if o.on[i] {
			mark = "✓"
		}
		md = fmt.Appendf(md, "| %s | %s | %s | %.3f | %s |\n", p.Name, o.family[i], p.Date, p.Score, mark)
		rows = append(rows, []string{p.Name, o.family[i], p.Date, fmt.Sprintf("%.6f", p.Score), fmt.Sprint(o.on[i])})
	}
	if len(o.undated) > 0 {
		md = fmt.Appendf(md, "\nWithout a release date in %s (left out): %s.\n", cfg.ReleaseDates, strings.Join(o.undated, ", "))
	}
	if err := stage.WriteReport(ctx, env, ReportOverTime+".md", md); err != nil {
		return err
	}
	if err := writeCSV(ctx, env, ReportOverTime+".csv", rows); err != nil {
		return err
	}
	if len(o.pts) == 0 {
		idx.skip("score over time figure: no scored retriever has a release date in " + cfg.ReleaseDates)
		return nil
	}
	if err := writeFigure(ctx, env, ReportOverTime, o.chart(), 8*vg.Inch, 5*vg.Inch); err != nil {
		return err
	}
	idx.add("Score over time (D.8, Figure 10)", ReportOverTime+".md", fmt.Sprintf("%d dated retrievers", len(o.pts)))
	return nil
}
