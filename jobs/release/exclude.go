package release

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	pkg "github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/seed"
)

// excludeNoTraining leaves out of c the documents whose sources forbid
// training (release.exclude_no_training), and everything derived from
// them: a query among them with all its rows; a candidate among them
// from every query (its ratings, the judgments it took part in, its run
// lines, whose ranks close up); their topics and summaries. The results
// are recomputed over what is left, means and bootstrap intervals alike,
// so that they stay the runs' nDCG@10 (release verify checks it). The
// ratings of the candidates left are the tournament's over the whole
// set: the card says so.
func excludeNoTraining(c *pkg.Contents, env *stage.Env) error {
	out := map[string]bool{}
	for _, q := range c.Queries {
		if q.NoTraining {
			out[q.ID] = true
		}
	}
	for _, d := range c.Corpus {
		if d.NoTraining {
			out[d.ID] = true
		}
	}
	if len(out) == 0 {
		return nil
	}
	keepQ := func(id string) bool { return !out[id] }
	var queries []pkg.Query
	for _, q := range c.Queries {
		if keepQ(q.ID) {
			queries = append(queries, q)
		} else {
			c.Meta.Excluded.Queries++
		}
	}
	if len(queries) == 0 {
		return stage.BadInput(fmt.Errorf("release.exclude_no_training: every query is a document whose source forbids training: nothing would be left to release"))
	}
	c.Queries = queries
	pair := func(q, d string) bool { return !out[q] && !out[d] }
	c.Candidates = slices.DeleteFunc(c.Candidates, func(k pkg.Candidate) bool { return !pair(k.Query, k.Doc) })
	c.Qrels = slices.DeleteFunc(c.Qrels, func(r pkg.Qrel) bool { return !pair(r.Query, r.Doc) })
	c.Judgments = slices.DeleteFunc(c.Judgments, func(j pkg.Judgment) bool { return out[j.Query] || out[j.Sample1] || out[j.Sample2] })
	c.Leaks = slices.DeleteFunc(c.Leaks, func(l pkg.Leak) bool { return !pair(l.Query, l.Doc) })
	inSet := map[string]bool{}
	for _, k := range c.Candidates {
		inSet[k.Doc] = true
	}
	released := map[string]bool{}
	for _, q := range c.Queries {
		released[q.ID] = true
	}
	var corpus []pkg.Doc
	for _, d := range c.Corpus {
		if out[d.ID] {
			c.Meta.Excluded.Documents++
		}
		if inSet[d.ID] && !out[d.ID] {
			corpus = append(corpus, d)
			released[d.ID] = true
		}
	}
	c.Corpus = corpus
	c.Topics = slices.DeleteFunc(c.Topics, func(t pkg.Topic) bool { return !released[t.ID] })
	c.Summaries = slices.DeleteFunc(c.Summaries, func(s pkg.Summary) bool { return !released[s.ID] })
	for s, lines := range c.Runs {
		c.Runs[s] = rerank(slices.DeleteFunc(slices.Clone(lines), func(l trec.RunLine) bool { return !pair(l.Query, l.Doc) }))
	}
	relabel(c)
	return recomputeResults(c, env)
}

// relabel recounts the labellers' rows of topics, summaries and judgments
// over the rows left.
func relabel(c *pkg.Contents) {
	count := map[[4]string]int64{}
	for _, t := range c.Topics {
		count[[4]string{"topics", t.Backend, t.Model, t.Prompt}]++
	}
	for _, s := range c.Summaries {
		count[[4]string{"summaries", s.Backend, s.Model, s.Prompt}]++
	}
	for _, j := range c.Judgments {
		count[[4]string{"judgments", j.Backend, j.Model, j.Prompt}]++
	}
	kept := c.Labellers[:0]
	for _, l := range c.Labellers {
		k := [4]string{l.What, l.Backend, l.Model, l.Prompt}
		if l.What == "topics" || l.What == "summaries" || l.What == "judgments" {
			if l.Rows = count[k]; l.Rows == 0 {
				continue
			}
		}
		kept = append(kept, l)
	}
	c.Labellers = kept
}

// rerank closes up each query's ranks after lines were removed.
func rerank(lines []trec.RunLine) []trec.RunLine {
	slices.SortStableFunc(lines, func(a, b trec.RunLine) int {
		return cmp.Or(strings.Compare(a.Query, b.Query), cmp.Compare(a.Rank, b.Rank))
	})
	n := map[string]int{}
	for i := range lines {
		n[lines[i].Query]++
		lines[i].Rank = n[lines[i].Query]
	}
	return lines
}

// recomputeResults recomputes every result over the queries and runs
// left: nDCG@10 per query by the run's ranks, the mean over the scope's
// queries, and a 95% percentile bootstrap interval seeded by the run
// seed, the release stage and the result's key.
func recomputeResults(c *pkg.Contents, env *stage.Env) error {
	sc := pkg.NewScorer(c.Queries, c.Qrels)
	for i := range c.Results {
		r := &c.Results[i]
		g, err := ndcg.ParseGain(r.Gain)
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		vals := sc.PerQuery(c.Runs[pkg.System{Retriever: r.Retriever, Setting: r.Setting}], g, r.Scope)
		r.Queries = int32(len(vals))
		if len(vals) == 0 {
			r.NDCG, r.Lo, r.Hi = 0, 0, 0
			continue
		}
		mean, _ := ndcg.Mean(vals)
		key := strings.Join([]string{"bootstrap", r.Retriever, r.Setting, r.Gain, r.Scope}, "\x00")
		iv, err := ndcg.Bootstrap(vals, ndcg.BootstrapOptions{}, seed.Rand(env.RunSeed(), "release", key))
		if err != nil {
			return fmt.Errorf("results %s/%s: %w", r.Retriever, r.Setting, err)
		}
		r.NDCG, r.Lo, r.Hi = mean, iv.Lo, iv.Hi
	}
	c.Results = slices.DeleteFunc(c.Results, func(r pkg.Result) bool { return r.Queries == 0 })
	return nil
}
