package report

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/stats"
)

// The page is one file with its styles, script and charts inside (charts
// as data: URIs), so that it opens from disk, from a release folder or an
// e-mail attachment with no server and no network. Everything it shows is
// read from datasets; its numbers are those of `results` and of the
// tables, formatted the same way.
//
//go:embed index.html.tmpl
var pageTemplate string

var page = template.Must(template.New(ReportHTML).Funcs(template.FuncMap{
	"f3":  f3,
	"raw": func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) },
	"pct": func(a, b int) string {
		if b == 0 {
			return "–"
		}
		return strconv.FormatFloat(100*float64(a)/float64(b), 'f', 1, 64) + "%"
	},
	"secs": seconds,
	// prop is a share with its 95% interval, "–" without a count.
	"prop": func(p stats.Proportion) string {
		if p.N == 0 || math.IsNaN(p.P) {
			return "–"
		}
		return fmt.Sprintf("%.3f [%.3f, %.3f]", p.P, p.Lo, p.Hi)
	},
	// amount is a forecast or actual: GPU-hours to three digits, a count
	// to the unit (thousands apart).
	"amount": func(hours bool, v float64) string {
		switch {
		case math.IsInf(v, 0) || math.IsNaN(v):
			return "–"
		case hours:
			return strconv.FormatFloat(v, 'g', 3, 64)
		}
		return plan.GroupDigits(strconv.FormatFloat(math.Round(v), 'f', 0, 64), "\u2009") // thin spaces
	},
	"ratio": func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return "–"
		}
		return strconv.FormatFloat(v, 'f', 3, 64)
	},
}).Parse(pageTemplate))

// site is what the page shows.
type site struct {
	Run, Metric, Main, Code string
	Prov                    readers.Provenance
	Queries                 int
	Domains                 []string
	Rows                    []siteRow
	Chart, Frontier         template.URL // data: URIs of the SVG charts; "" when absent
	Final                   dataset.Threshold
	Picks                   []dataset.Threshold
	Grids                   []heatmap
	Selection               []selRow
	SelTotal                selRow
	Dedup                   dedupSummary
	Audit                   auditSummary
	JudgeAudit              readers.AuditSummary
	Plan                    planSummary
}

type siteRow struct {
	Rank          int
	Retriever     string
	NDCG, Lo, Hi  float64
	Domains       []siteCell
	Median        float64
	Timed         bool
	Family        string
	Frontier      bool
	Best          bool
	SettingValues []siteCell
}

type siteCell struct {
	V, Lo, Hi float64
	Best      bool
}

// heatmap is one domain's calibration grid: eligible queries at every
// (τ_topic, τ_summ), the final point and the domain's own pick marked.
type heatmap struct {
	Domain string
	Summ   []float64
	Rows   []heatRow
	Max    int64
}

type heatRow struct {
	Topic float64
	Cells []heatCell
}

type heatCell struct {
	Eligible    int64
	Style       template.CSS
	Final, Pick bool
	Enough      bool // at least the minimum eligible queries
}

type selRow struct {
	Domain                string
	Queries               int
	Topic, Summary, Both  int
	Candidates            int
	PairsTopic, PairsSumm int64
}

type dedupSummary struct {
	Clusters, Dropped int
	BySource          []countRow
	Largest           []clusterRow
}

type countRow struct {
	Name  string
	Count int
}

type clusterRow struct {
	Kept    string
	Size    int
	MinSim  float64
	Sources string
}

type auditSummary struct {
	Rows, Flagged, Invalid, Leaks int
	Verdicts                      []countRow
	Top                           []dataset.AuditRow
}

// writeHTML writes reports/index.html from the model and the datasets of
// the stages before report; the charts are the SVGs writeReports has just
// written.
func writeHTML(ctx context.Context, env *stage.Env, m *model) error {
	s := &site{Run: m.run, Metric: fmt.Sprintf("nDCG@%d", m.k), Main: m.main, Code: stage.CodeVersion(), Prov: m.prov,
		Queries: m.queries, Domains: m.domains}
	s.leaderboard(m)
	var err error
	if s.Chart, err = svgURI(ctx, env, ReportChart+".svg"); err != nil {
		return err
	}
	if s.Frontier, err = svgURI(ctx, env, ReportFrontier+".svg"); err != nil {
		return err
	}
	if err := s.calibration(ctx, env, m); err != nil {
		return err
	}
	if err := s.selection(ctx, env, m); err != nil {
		return err
	}
	if err := s.dedup(ctx, env); err != nil {
		return err
	}
	if err := s.audit(ctx, env); err != nil {
		return err
	}
	rows, _, err := readers.ReadAudit(ctx, env)
	if err != nil {
		return err
	}
	s.JudgeAudit = readers.SummarizeAudit(rows, m.domains)
	if err := s.plan(ctx, env); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Execute(&b, s); err != nil {
		return fmt.Errorf("render %s: %w", ReportHTML, err)
	}
	return stage.WriteReport(ctx, env, ReportHTML, b.Bytes())
}

func (s *site) leaderboard(m *model) {
	exp := ndcg.Exponential
	best := m.best(func(r string) float64 { return m.get(r, m.main, exp, ScopeOverall).Mean })
	dbest := make([]float64, len(m.domains))
	for j, d := range m.domains {
		dbest[j] = m.best(func(r string) float64 { return m.get(r, m.main, exp, d).Mean })
	}
	for i, r := range m.retrievers {
		iv := m.get(r, m.main, exp, ScopeOverall)
		row := siteRow{Rank: i + 1, Retriever: r, NDCG: iv.Mean, Lo: iv.Lo, Hi: iv.Hi, Best: iv.Mean == best,
			Family: m.families[r], Frontier: m.frontier[r]}
		for j, d := range m.domains {
			dv := m.get(r, m.main, exp, d)
			row.Domains = append(row.Domains, siteCell{V: dv.Mean, Lo: dv.Lo, Hi: dv.Hi, Best: dv.Mean == dbest[j]})
		}
		if med, ok := m.median[System{r, m.main}]; ok {
			row.Median, row.Timed = med, true
		}
		s.Rows = append(s.Rows, row)
	}
}

// svgURI reads a chart report back as a data: URI, "" when the step did
// not write it (the frontier, when nothing was timed).
func svgURI(ctx context.Context, env *stage.Env, name string) (template.URL, error) {
	key := layout.ReportKey(env.Config.Run, name)
	b, err := store.ReadAll(ctx, env.Out, key)
	if errors.Is(err, store.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", env.Out.URI(key), err)
	}
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(b)), nil
}

func readAll[T any](ctx context.Context, env *stage.Env, ds string) ([]T, error) {
	parts, err := env.Upstream(ctx, ds)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, p := range parts {
		rows, err := stage.ReadPart[T](ctx, env, p)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

func (s *site) calibration(ctx context.Context, env *stage.Env, m *model) error {
	th, err := readAll[dataset.Threshold](ctx, env, dataset.Thresholds.Name)
	if err != nil {
		return err
	}
	pick := map[string]dataset.Threshold{}
	for _, t := range th {
		if t.Scope == dataset.ScopeFinal {
			s.Final = t
		} else {
			s.Picks = append(s.Picks, t)
			pick[t.Scope] = t
		}
	}
	order := func(d string) int {
		if i := slices.Index(m.domains, d); i >= 0 {
			return i
		}
		return len(m.domains)
	}
	slices.SortStableFunc(s.Picks, func(a, b dataset.Threshold) int { return cmp.Compare(order(a.Scope), order(b.Scope)) })
	points, err := readAll[dataset.GridPoint](ctx, env, dataset.Calibration.Name)
	if err != nil {
		return err
	}
	byDomain := map[string][]dataset.GridPoint{}
	var doms []string
	for _, p := range points {
		if _, ok := byDomain[p.Scope]; !ok {
			doms = append(doms, p.Scope)
		}
		byDomain[p.Scope] = append(byDomain[p.Scope], p)
	}
	slices.SortStableFunc(doms, func(a, b string) int { return cmp.Compare(order(a), order(b)) })
	for _, d := range doms {
		s.Grids = append(s.Grids, newHeatmap(d, byDomain[d], s.Final, pick[d]))
	}
	return nil
}

// newHeatmap lays a domain's grid points out with τ_topic down and τ_summ
// across, shaded by eligible queries (linear in the count, up to the
// domain's maximum).
func newHeatmap(domain string, pts []dataset.GridPoint, final, pick dataset.Threshold) heatmap {
	h := heatmap{Domain: domain}
	var topics []float64
	for _, p := range pts {
		if !slices.Contains(topics, p.TauTopic) {
			topics = append(topics, p.TauTopic)
		}
		if !slices.Contains(h.Summ, p.TauSumm) {
			h.Summ = append(h.Summ, p.TauSumm)
		}
		h.Max = max(h.Max, p.Eligible)
	}
	slices.Sort(topics)
	slices.Sort(h.Summ)
	at := map[[2]float64]int64{}
	for _, p := range pts {
		at[[2]float64{p.TauTopic, p.TauSumm}] = p.Eligible
	}
	for _, tt := range topics {
		row := heatRow{Topic: tt}
		for _, ts := range h.Summ {
			e := at[[2]float64{tt, ts}]
			share := 0.0
			if h.Max > 0 {
				share = float64(e) / float64(h.Max)
			}
			// From near white to the page's blue; dark cells get white text.
			l := 97 - 57*share
			style := fmt.Sprintf("background:hsl(212,70%%,%.0f%%)", l)
			if l < 60 {
				style += ";color:#fff"
			}
			row.Cells = append(row.Cells, heatCell{Eligible: e, Style: template.CSS(style),
				Final:  tt == final.TauTopic && ts == final.TauSumm,
				Pick:   pick.Feasible && tt == pick.TauTopic && ts == pick.TauSumm,
				Enough: final.MinEligible > 0 && e >= int64(final.MinEligible)})
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

func (s *site) selection(ctx context.Context, env *stage.Env, m *model) error {
	cands, err := readAll[dataset.Candidate](ctx, env, dataset.Candidates.Name)
	if err != nil {
		return err
	}
	rows := make([]selRow, len(m.domains))
	for i, d := range m.domains {
		rows[i].Domain = d
	}
	qd := map[string]int{}
	for qi, q := range m.bench.queries {
		d := m.bench.qDomain[qi]
		qd[q.ID] = d
		rows[d].Queries++
		rows[d].PairsTopic += int64(q.TopicOnly)
		rows[d].PairsSumm += int64(q.SummaryOnly)
	}
	for _, c := range cands {
		d, ok := qd[c.Query]
		if !ok {
			continue
		}
		rows[d].Candidates++
		switch c.Category {
		case "topic":
			rows[d].Topic++
		case "summary":
			rows[d].Summary++
		case "both":
			rows[d].Both++
		}
	}
	s.SelTotal.Domain = "All"
	for _, r := range rows {
		s.SelTotal.Queries += r.Queries
		s.SelTotal.Candidates += r.Candidates
		s.SelTotal.Topic += r.Topic
		s.SelTotal.Summary += r.Summary
		s.SelTotal.Both += r.Both
	}
	s.Selection = rows
	return nil
}

// maxListed bounds the clusters and audit rows the page lists; the
// Markdown reports (dedup.md, audit.md) have them all.
const maxListed = 15

func (s *site) dedup(ctx context.Context, env *stage.Env) error {
	dups, err := readAll[dataset.Duplicate](ctx, env, dataset.Duplicates.Name)
	if err != nil {
		return err
	}
	type cl struct {
		size    int
		minSim  float64
		sources map[string]bool
	}
	clusters := map[string]*cl{}
	bySource := map[string]int{}
	for _, d := range dups {
		c := clusters[d.Cluster]
		if c == nil {
			c = &cl{size: 1, minSim: math.Inf(1), sources: map[string]bool{}}
			clusters[d.Cluster] = c
		}
		c.size++
		c.minSim = min(c.minSim, d.Similarity)
		c.sources[d.DroppedSource] = true
		bySource[d.DroppedSource]++
	}
	s.Dedup.Clusters, s.Dedup.Dropped = len(clusters), len(dups)
	for name, n := range bySource {
		s.Dedup.BySource = append(s.Dedup.BySource, countRow{name, n})
	}
	slices.SortFunc(s.Dedup.BySource, func(a, b countRow) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Name, b.Name)) })
	for kept, c := range clusters {
		srcs := slices.Sorted(func(yield func(string) bool) {
			for k := range c.sources {
				if !yield(k) {
					return
				}
			}
		})
		s.Dedup.Largest = append(s.Dedup.Largest, clusterRow{Kept: kept, Size: c.size, MinSim: c.minSim, Sources: fmt.Sprint(srcs)})
	}
	slices.SortFunc(s.Dedup.Largest, func(a, b clusterRow) int { return cmp.Or(cmp.Compare(b.Size, a.Size), cmp.Compare(a.Kept, b.Kept)) })
	s.Dedup.Largest = s.Dedup.Largest[:min(len(s.Dedup.Largest), maxListed)]
	return nil
}

func (s *site) audit(ctx context.Context, env *stage.Env) error {
	rows, err := readAll[dataset.AuditRow](ctx, env, dataset.Audit.Name)
	if err != nil {
		return err
	}
	leaks, err := readAll[dataset.Leak](ctx, env, dataset.Leaks.Name)
	if err != nil {
		return err
	}
	verdicts := map[string]int{}
	for _, r := range rows {
		verdicts[r.Verdict]++
		if r.Flagged {
			s.Audit.Flagged++
			s.Audit.Top = append(s.Audit.Top, r)
		}
		if r.Verdict == "invalid" {
			s.Audit.Invalid++
		}
	}
	s.Audit.Rows, s.Audit.Leaks = len(rows), len(leaks)
	for v, n := range verdicts {
		s.Audit.Verdicts = append(s.Audit.Verdicts, countRow{v, n})
	}
	slices.SortFunc(s.Audit.Verdicts, func(a, b countRow) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Audit.Top, func(a, b dataset.AuditRow) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Query, b.Query), cmp.Compare(a.Doc, b.Doc))
	})
	s.Audit.Top = s.Audit.Top[:min(len(s.Audit.Top), maxListed)]
	return nil
}
