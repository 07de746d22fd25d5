package analyze

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/analysis"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ontology"
	"gonum.org/v1/plot/vg"
)

// exampleTop is how many best-rated candidates App. A.7's example shows.
const exampleTop = 10

// Subdomains are a document's distinct depth-2 categories, "Domain /
// Subdomain" by label, from its topics' tree paths; a topic that is a
// domain itself has none.
func Subdomains(tree *ontology.Tree, t dataset.TopicRow) []string {
	var out []string
	for _, p := range t.Topics {
		parts := strings.Split(p, ontology.PathSep)
		if len(parts) < 2 {
			continue
		}
		d, ok1 := tree.Lookup(parts[0])
		s, ok2 := tree.Lookup(parts[0] + ontology.PathSep + parts[1])
		if !ok1 || !ok2 {
			continue // a topic of another ontology: not a category here
		}
		if l := tree.Label(d) + " / " + tree.Label(s); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// level is one distribution: the queries' and the corpus' weight per
// category.
type level struct {
	name                 string
	queries, corpus      map[string]float64
	qNone, cNone, nQ, nC int
	order                []string
}

func (b *bench) level(name string, labels func(dataset.TopicRow) []string) level {
	var q, c [][]string
	for _, x := range b.queries {
		q = append(q, labels(b.topics[x.ID]))
	}
	for _, id := range b.corpus {
		c = append(c, labels(b.topics[id]))
	}
	l := level{name: name, nQ: len(q), nC: len(c)}
	l.queries, l.qNone = analysis.SplitWeights(q)
	l.corpus, l.cNone = analysis.SplitWeights(c)
	for k := range l.corpus {
		l.order = append(l.order, k)
	}
	for k := range l.queries {
		if _, ok := l.corpus[k]; !ok {
			l.order = append(l.order, k)
		}
	}
	// Domains in the run's order, the rest after; within, by corpus
	// weight descending, then label.
	rank := func(s string) int {
		d, _, _ := strings.Cut(s, " / ")
		if i := slices.Index(b.domains, d); i >= 0 {
			return i
		}
		return len(b.domains)
	}
	slices.SortFunc(l.order, func(x, y string) int {
		return cmp.Or(cmp.Compare(rank(x), rank(y)), cmp.Compare(l.corpus[y], l.corpus[x]), strings.Compare(x, y))
	})
	return l
}

func share(w float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * w / float64(n)
}

func writeDistributions(ctx context.Context, env *stage.Env, b *bench, idx *index) error {
	dom := b.level("domain", func(t dataset.TopicRow) []string { return t.Domains })
	sub := b.level("subdomain", func(t dataset.TopicRow) []string { return Subdomains(b.tree, t) })
	rows := [][]string{{"level", "category", "queries_weight", "queries_pct", "corpus_weight", "corpus_pct"}}
	var md []byte
	md = fmt.Appendf(md, "# Domain and subdomain distributions (App. A.6, Figure 5)\n\n%s", b.prov.Markdown())
	md = fmt.Appendf(md, "Each problem contributes a total weight of 1, split equally among its assigned categories (its topics' domains, and their depth-2 categories for subdomains). %d queries, %d corpus documents. Figure: %s.png.\n\n",
		len(b.queries), len(b.corpus), ReportDistribution)
	for _, l := range []level{dom, sub} {
		md = fmt.Appendf(md, "## By %s\n\n| %s | queries | %% | corpus | %% |\n|---|--:|--:|--:|--:|\n", l.name, l.name)
		for _, k := range l.order {
			qp, cp := share(l.queries[k], l.nQ), share(l.corpus[k], l.nC)
			md = fmt.Appendf(md, "| %s | %.2f | %.1f | %.2f | %.1f |\n", k, l.queries[k], qp, l.corpus[k], cp)
			rows = append(rows, []string{l.name, k, fmt.Sprintf("%.4f", l.queries[k]), fmt.Sprintf("%.4f", qp), fmt.Sprintf("%.4f", l.corpus[k]), fmt.Sprintf("%.4f", cp)})
		}
		md = fmt.Appendf(md, "\nWithout a %s: %d queries, %d corpus documents.\n\n", l.name, l.qNone, l.cNone)
	}
	if err := stage.WriteReport(ctx, env, ReportDistribution+".md", md); err != nil {
		return err
	}
	if err := writeCSV(ctx, env, ReportDistribution+".csv", rows); err != nil {
		return err
	}
	if len(dom.order) > 0 {
		fig := chart.Bars{Title: "Domains of the queries and of the corpus (weight split over a problem's domains)", YLabel: "share of problems (%)",
			Categories: dom.order, Legend: chart.TopRight}
		q, c := chart.BarSeries{Name: "queries"}, chart.BarSeries{Name: "corpus"}
		for _, k := range dom.order {
			q.Values = append(q.Values, share(dom.queries[k], dom.nQ))
			c.Values = append(c.Values, share(dom.corpus[k], dom.nC))
		}
		fig.Series = []chart.BarSeries{q, c}
		if err := writeFigure(ctx, env, ReportDistribution, fig, 8*vg.Inch, 4.5*vg.Inch); err != nil {
			return err
		}
	}
	idx.add("Domain and subdomain distributions (A.6, Figure 5)", ReportDistribution+".md", fmt.Sprintf("%d domains, %d subdomains", len(dom.order), len(sub.order)))
	return writeExample(ctx, env, b, idx)
}

// exampleQuery is analyze.example_query, or the first query by id of the
// first domain.
func exampleQuery(b *bench, want string) (dataset.Query, error) {
	if want != "" {
		for _, q := range b.queries {
			if q.ID == want {
				return q, nil
			}
		}
		return dataset.Query{}, stage.BadInput(fmt.Errorf("analyze.example_query: %s is not a query of the benchmark", want))
	}
	for _, d := range b.domains {
		for _, q := range b.queries {
			if q.Domain == d {
				return q, nil
			}
		}
	}
	return b.queries[0], nil
}

// writeExample is App. A.7: one query's subdomains against those of its
// ten best-rated candidates.
func writeExample(ctx context.Context, env *stage.Env, b *bench, idx *index) error {
	q, err := exampleQuery(b, Section.Of(env.Config).ExampleQuery)
	if err != nil {
		return err
	}
	top := analysis.TopRated(b.ratings[q.ID], exampleTop)
	qSubs := Subdomains(b.tree, b.topics[q.ID])
	var labels [][]string
	has := map[string]int{}
	for _, d := range top {
		s := Subdomains(b.tree, b.topics[d])
		labels = append(labels, s)
		for _, l := range s {
			has[l]++
		}
	}
	w, none := analysis.SplitWeights(labels)
	var cats []string
	for k := range w {
		cats = append(cats, k)
	}
	for _, k := range qSubs {
		if !slices.Contains(cats, k) {
			cats = append(cats, k)
		}
	}
	slices.SortFunc(cats, func(x, y string) int {
		return cmp.Or(cmp.Compare(w[y], w[x]), strings.Compare(x, y))
	})
	rows := [][]string{{"subdomain", "query", "top_docs_weight", "top_docs_with_it"}}
	var md []byte
	md = fmt.Appendf(md, "# Topics of a query against its best-rated documents (App. A.7)\n\n%s", b.prov.Markdown())
	md = fmt.Appendf(md, "Query %s (domain %s; analyze.example_query picks another). Its subdomains are marked ✓; the weight column splits each of its %d best-rated candidates' weight of 1 over its subdomains (%d without one).\n\n",
		q.ID, q.Domain, len(top), none)
	md = append(md, "| subdomain | query | weight among the top documents | top documents with it |\n|---|:-:|--:|--:|\n"...)
	for _, k := range cats {
		mark := ""
		if slices.Contains(qSubs, k) {
			mark = "✓"
		}
		md = fmt.Appendf(md, "| %s | %s | %.2f | %d |\n", k, mark, w[k], has[k])
		rows = append(rows, []string{k, fmt.Sprint(mark != ""), fmt.Sprintf("%.4f", w[k]), fmt.Sprint(has[k])})
	}
	md = fmt.Appendf(md, "\nTop documents, best first: %s.\n", strings.Join(top, ", "))
	if err := stage.WriteReport(ctx, env, ReportExample+".md", md); err != nil {
		return err
	}
	if err := writeCSV(ctx, env, ReportExample+".csv", rows); err != nil {
		return err
	}
	idx.add("Example query's topics (A.7)", ReportExample+".md", "query "+q.ID)
	return nil
}
