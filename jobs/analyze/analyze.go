// Package analyze is the analyze stage: the benchmark's analyses beyond
// the leaderboard, each a report under <run>/reports/.
//
//   - Maths against words (paper §4.2, App. D.10, Figure 9, Table 10):
//     each query statement is normalised so that every expression is
//     delimited (analyze.backend: rules, offline, lib/text.DelimitMath —
//     the Math tokeniser's delimiter rules, with bare maths in prose
//     delimited by rule; or llm, prompt F.5), then split into its
//     maths-only and words-only parts (lib/text.SplitMath). A query with
//     an empty side is dropped and counted, by reason. For each retriever
//     each part is scored against the full text (statement, blank line,
//     solution) of the query's analyze.top (5) best-rated candidates and
//     the scores averaged; maths wins when its mean is higher. Reported:
//     the percentage of queries where maths wins, overall and per domain,
//     with the mean maths-token ratio (mathtext.*), the percentage against
//     the ratio per retriever (mathtext_ratio.csv, mathtext.png/.svg), and
//     Table 10: the same percentage per instruction for the retrievers
//     evaluated with instructions (table10.*). The rows go to `mathtext`.
//   - Signal groups (App. D.1, Figure 6): for the topic-only, summary-only
//     and both categories, the cumulative fraction of their candidates
//     within the top r of the final ratings, pooled over all queries
//     (signal_groups.*).
//   - Distributions (App. A.6, Figure 5; A.7): the domain and subdomain
//     distributions of the queries and of the corpus, each problem's
//     weight of 1 split equally over its categories (distribution.*), and
//     one query's subdomains against its ten best-rated candidates'
//     (example_query.md).
//   - Score over time (App. D.8, Figure 10): main-setting nDCG@10 against
//     each retriever's release date from analyze.release_dates (the CSV
//     `saber mteb` reads), with the bi-encoder and cross-encoder frontiers
//     over time and the models below them in grey (score_over_time.*).
//
// analyze.md indexes them. Every report states who made the topics,
// summaries and judgments (readers.ReadProvenance).
package analyze

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/analyze/decl"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/analysis"
	"github.com/saber-math/saber/lib/ontology"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"reduce": run})

// bench is what the analyses read.
type bench struct {
	queries []dataset.Query // by id
	domains []string        // report order
	qDomain map[string]string
	cands   map[string][]dataset.Candidate // by query, by doc id
	ratings map[string][]analysis.Rated    // by query
	texts   map[string]*readers.Doc
	topics  map[string]dataset.TopicRow // every corpus document's
	corpus  []string                    // corpus ids, sorted
	tree    *ontology.Tree
	results []dataset.Result
	prov    readers.Provenance
}

func run(ctx context.Context, env *stage.Env) error {
	b, err := read(ctx, env)
	if err != nil {
		return err
	}
	idx := &index{prov: b.prov}
	mt, err := mathText(ctx, env, b)
	if err != nil {
		return err
	}
	if err := writeMathText(ctx, env, b, mt, idx); err != nil {
		return err
	}
	if err := writeSignalGroups(ctx, env, b, idx); err != nil {
		return err
	}
	if err := writeDistributions(ctx, env, b, idx); err != nil {
		return err
	}
	if err := writeOverTime(ctx, env, b, idx); err != nil {
		return err
	}
	if err := stage.WriteReport(ctx, env, ReportIndex, idx.markdown(env.Config.Run)); err != nil {
		return err
	}
	env.Count("queries", int64(len(b.queries)))
	env.Count("mathtext_rows", int64(len(mt.rows)))
	return stage.WriteOutput(ctx, env, dataset.MathText, mt.rows)
}

// read reads every input and checks they agree.
func read(ctx context.Context, env *stage.Env) (*bench, error) {
	qs, err := readers.Queries(ctx, env)
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, stage.BadInput(fmt.Errorf("queries: the benchmark has no queries"))
	}
	b := &bench{queries: qs, qDomain: map[string]string{}, cands: map[string][]dataset.Candidate{}, ratings: map[string][]analysis.Rated{}}
	known := map[string]bool{}
	var labels []string
	for _, q := range qs {
		known[q.ID] = true
		b.qDomain[q.ID] = q.Domain
		if q.Domain != "" && !slices.Contains(labels, q.Domain) {
			labels = append(labels, q.Domain)
		}
	}
	order, err := readers.DomainOrder(ctx, env)
	if err != nil {
		return nil, err
	}
	for _, d := range order { // the run's order, then any other, sorted
		if slices.Contains(labels, d) {
			b.domains = append(b.domains, d)
		}
	}
	slices.Sort(labels)
	for _, d := range labels {
		if !slices.Contains(b.domains, d) {
			b.domains = append(b.domains, d)
		}
	}
	if err := scan(ctx, env, dataset.Candidates.Name, func(uri string, row int, c dataset.Candidate) error {
		if !known[c.Query] {
			return stage.BadInput(fmt.Errorf("%s row %d: candidate of query %s, which `queries` does not list", uri, row, c.Query))
		}
		b.cands[c.Query] = append(b.cands[c.Query], c)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := scan(ctx, env, dataset.Ratings.Name, func(uri string, row int, r dataset.Rating) error {
		if !known[r.Query] {
			return stage.BadInput(fmt.Errorf("%s row %d: rating of query %s, which `queries` does not list (ratings of another selection?)", uri, row, r.Query))
		}
		b.ratings[r.Query] = append(b.ratings[r.Query], analysis.Rated{Doc: r.Doc, Rating: r.Rating})
		return nil
	}); err != nil {
		return nil, err
	}
	ids := map[string][]string{}
	for _, q := range qs {
		if len(b.ratings[q.ID]) == 0 {
			return nil, stage.BadInput(fmt.Errorf("ratings: query %s has no ratings (is rate complete, and from this selection?)", q.ID))
		}
		for _, c := range b.cands[q.ID] {
			ids[q.ID] = append(ids[q.ID], c.Doc)
		}
	}
	if b.texts, err = readers.Texts(ctx, env, qs, ids); err != nil {
		return nil, err
	}
	b.topics = map[string]dataset.TopicRow{}
	if err := scan(ctx, env, dataset.Topics.Name, func(_ string, _ int, t dataset.TopicRow) error {
		b.topics[t.ID] = t
		b.corpus = append(b.corpus, t.ID)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.Sort(b.corpus)
	if err := scan(ctx, env, dataset.Results.Name, func(_ string, _ int, r dataset.Result) error {
		b.results = append(b.results, r)
		return nil
	}); err != nil {
		return nil, err
	}
	if b.tree, err = readers.Ontology(ctx, env); err != nil {
		return nil, err
	}
	if b.prov, err = readers.ReadProvenance(ctx, env, dataset.Topics.Name, dataset.Summaries.Name, dataset.Judgments.Name); err != nil {
		return nil, err
	}
	return b, nil
}

// scan calls fn on every row of a dataset, with the part's URI and the
// 1-based row.
func scan[T any](ctx context.Context, env *stage.Env, ds string, fn func(uri string, row int, r T) error) error {
	parts, err := env.Upstream(ctx, ds)
	if err != nil {
		return err
	}
	for _, p := range parts {
		row := 0
		if err := stage.ScanPart(ctx, env, p, func(rows []T) error {
			for _, r := range rows {
				row++
				if err := fn(p.URI, row, r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// workers is how many queries a retriever scores at once.
func workers(configured, retriever int) int {
	switch {
	case configured > 0:
		return configured
	case retriever > 0:
		return retriever
	}
	return runtime.GOMAXPROCS(0)
}

// pct formats a percentage with one decimal, "–" for none.
func pct(s analysis.Share) string {
	p := s.Percent()
	if math.IsNaN(p) {
		return "–"
	}
	return fmt.Sprintf("%.1f", p)
}
