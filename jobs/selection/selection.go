// Package selection is the select stage (paper §3.4; SPEC §3 "Pairs and
// selection"): at the final thresholds it finds the eligible queries — at
// least K documents in each of topic-only, summary-only and both — draws
// the configured number per domain uniformly among them, then K documents
// uniformly from each of a chosen query's three categories.
//
// Every draw is a seeded hash order: an item's rank is
// seed.Derive(run seed, "select", key) with key the query id (or query and
// document ids), and the smallest ranks are taken. That is a uniform sample
// without replacement, it depends on no shard count or scan order, and one
// query entering or leaving the eligible set never reshuffles the others.
//
// It runs as one task. It streams `pair_counts` for eligibility and
// recomputes the chosen queries' pairs to draw their candidates, or, with
// pairs.keep_all, streams `pairs` twice; either way it holds one query's
// pairs at a time, and the two give the same bytes.
package selection

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/selection/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/relevance"
	lthresholds "github.com/saber-math/saber/lib/thresholds"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"reduce": run})

// Categories in report order.
var Categories = []string{"topic", "summary", "both"}

// ShortfallError lists the domains with too few eligible queries.
type ShortfallError struct{ Short []Shortfall }

// Shortfall is one domain's: eligible queries against those wanted.
type Shortfall struct {
	Domain           string
	Eligible, Wanted int
}

func (e *ShortfallError) Error() string {
	var parts []string
	for _, s := range e.Short {
		parts = append(parts, fmt.Sprintf("%s has %d eligible queries, %d wanted (short %d)", s.Domain, s.Eligible, s.Wanted, s.Wanted-s.Eligible))
	}
	return "too few eligible queries: " + strings.Join(parts, "; ") +
		" — lower the thresholds, grow the corpus, or accept fewer queries with --allow-shortfall (select.allow_shortfall: true)"
}

type eligibleQuery struct {
	dataset.Query
	rank uint64
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	th, err := thresholds(ctx, env, cfg)
	if err != nil {
		return err
	}
	domains, docDomain, err := readers.Domains(ctx, env, "select.domain_counts", keys(cfg.DomainCounts))
	if err != nil {
		return err
	}
	src, err := readers.Pairs(ctx, env)
	if err != nil {
		return err
	}
	prov, err := readers.ReadProvenance(ctx, env, dataset.Topics.Name, dataset.Summaries.Name)
	if err != nil {
		return err
	}
	k := config.BenchmarkK.Get(env.Config)
	rep := newReport(th, cfg.Thresholds == ThresholdsCalibrated, domains, k)
	rep.Provenance = prov

	// Pass 1: every query's category counts at the final thresholds.
	byDomain := map[string][]eligibleQuery{}
	consider := func(q string, n [3]int32) {
		d := docDomain[q]
		rep.addQuery(d)
		if n[0] >= int32(k) && n[1] >= int32(k) && n[2] >= int32(k) {
			byDomain[d] = append(byDomain[d], eligibleQuery{
				Query: dataset.Query{ID: q, Domain: d, TopicOnly: n[0], SummaryOnly: n[1], Both: n[2], TauTopic: th.TauTopic, TauSumm: th.TauSumm},
				rank:  env.Seed("query\x00" + q),
			})
		}
	}
	if src.Counts {
		err = eligibleFromCounts(ctx, env, src, th, rep, consider)
	} else {
		err = eligibleFromPairs(ctx, env, src, th, rep, consider)
	}
	if err != nil {
		return err
	}

	// The draw per domain, and the shortfall check.
	var chosen []dataset.Query
	var short []Shortfall
	total := 0
	for _, d := range domains {
		el := byDomain[d]
		want := cfg.Wanted(d)
		total += want
		sort.Slice(el, func(i, j int) bool {
			return el[i].rank < el[j].rank || el[i].rank == el[j].rank && el[i].ID < el[j].ID
		})
		take := min(want, len(el))
		if len(el) < want {
			short = append(short, Shortfall{Domain: d, Eligible: len(el), Wanted: want})
		}
		for _, e := range el[:take] {
			chosen = append(chosen, e.Query)
		}
		rep.setDomain(d, len(el), want, take)
		env.Count("eligible_"+key(d), int64(len(el)))
		env.Count("selected_"+key(d), int64(take))
	}
	if t := cfg.Total; t > 0 && t != total {
		return stage.BadInput(fmt.Errorf("select.total is %d but the domains' counts add up to %d (select.per_domain %d × %d domains, with select.domain_counts)",
			t, total, cfg.PerDomain, len(domains)))
	}
	rep.Shortfall = short
	if len(short) > 0 {
		serr := &ShortfallError{Short: short}
		if !cfg.AllowShortfall {
			// The report still helps decide what to change; it is written
			// (and replaced on the rerun), but no manifest marks select done.
			rep.Failed = serr.Error()
			if err := writeReports(ctx, env, rep); err != nil {
				return err
			}
			return stage.BadInput(serr)
		}
		env.Log.Warn().Str("shortfall", serr.Error()).Msg("--allow-shortfall: selecting every eligible query of the short domains")
	}
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].ID < chosen[j].ID })
	want := make(map[string]bool, len(chosen))
	for _, q := range chosen {
		want[q.ID] = true
	}

	// Pass 2: K documents from each category of every chosen query.
	var cands []dataset.Candidate
	draw := func(q string, rows []dataset.Pair) error {
		type ranked struct {
			c    dataset.Candidate
			rank uint64
		}
		var pool [3][]ranked
		for _, p := range rows {
			c := relevance.Category(p.SimTopic, p.SimSumm, th.TauTopic, th.TauSumm)
			if c == "" {
				continue
			}
			pool[catIndex(c)] = append(pool[catIndex(c)], ranked{
				c:    dataset.Candidate{Query: q, Doc: p.Doc, Category: c, SimTopic: p.SimTopic, SimSumm: p.SimSumm},
				rank: env.Seed("candidate\x00" + q + "\x00" + p.Doc),
			})
		}
		for _, pl := range pool {
			sort.Slice(pl, func(i, j int) bool {
				return pl[i].rank < pl[j].rank || pl[i].rank == pl[j].rank && pl[i].c.Doc < pl[j].c.Doc
			})
			if len(pl) < k {
				return fmt.Errorf("query %s: %d documents in a category at the second pass, %d at the first (pairs, topics or summaries changed while select ran?)", q, len(pl), k)
			}
			for _, r := range pl[:k] {
				cands = append(cands, r.c)
				rep.addCandidate(&r.c, docDomain[q])
			}
		}
		return nil
	}
	if src.Counts {
		err = recompute(ctx, env, chosen, draw)
	} else {
		prog := env.Progress("pairs (candidates)", src.Rows())
		err = readers.PairsByQuery(ctx, env, src.PairParts, func(q string, rows []dataset.Pair) error {
			prog.Add(int64(len(rows)))
			if !want[q] {
				return nil
			}
			return draw(q, rows)
		})
		prog.Finish()
	}
	if err != nil {
		return err
	}
	env.Count("queries", int64(len(chosen)))
	env.Count("candidates", int64(len(cands)))
	env.Log.Info().Int("queries", len(chosen)).Int("candidates", len(cands)).
		Float64("tau_topic", th.TauTopic).Float64("tau_summ", th.TauSumm).Msg("benchmark selected")
	if err := writeReports(ctx, env, rep); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Queries, chosen); err != nil {
		return err
	}
	return stage.WriteOutput(ctx, env, dataset.Candidates, cands)
}

// eligibleFromPairs counts every query's pairs of `pairs` by category
// (pairs.keep_all).
func eligibleFromPairs(ctx context.Context, env *stage.Env, src readers.PairSource, th dataset.Threshold, rep *Report, consider func(string, [3]int32)) error {
	prog := env.Progress("pairs (eligibility)", src.Rows())
	defer prog.Finish()
	return readers.PairsByQuery(ctx, env, src.PairParts, func(q string, rows []dataset.Pair) error {
		prog.Add(int64(len(rows)))
		var n [3]int32
		for i := range rows {
			p := &rows[i]
			if p.Doc == q {
				return fmt.Errorf("pairs: query %s is paired with itself (a bug in pairs)", q)
			}
			c := relevance.Category(p.SimTopic, p.SimSumm, th.TauTopic, th.TauSumm)
			rep.addPair(p, c)
			if c != "" {
				n[catIndex(c)]++
			}
		}
		consider(q, n)
		return nil
	})
}

// eligibleFromCounts reads every query's category counts off its
// histogram of `pair_counts`, whose grid holds the final thresholds (a
// grid point of calibrate's, or select's fixed pair, both among pairs'
// edges), and the report's tallies of all pairs.
func eligibleFromCounts(ctx context.Context, env *stage.Env, src readers.PairSource, th dataset.Threshold, rep *Report, consider func(string, [3]int32)) error {
	prog := env.Progress("queries (eligibility)", src.Rows())
	defer prog.Finish()
	return readers.PairCountsByQuery(ctx, env, src.CountsParts, func(row *dataset.PairCount, g lthresholds.Grid) error {
		prog.Add(1)
		n, err := g.Categories(row.Cells, row.Counts, th.TauTopic, th.TauSumm)
		if err != nil {
			return stage.BadInput(fmt.Errorf("pair_counts: %w (the thresholds changed since pairs ran: rerun pairs)", err))
		}
		if sum := n[0] + n[1] + n[2] + n[3]; sum != row.Pairs {
			return stage.BadInput(fmt.Errorf("pair_counts: query %s has %d pairs but its cells hold %d", row.Query, row.Pairs, sum))
		}
		if len(row.HistTopic) != histBins || len(row.HistSumm) != histBins {
			return stage.BadInput(fmt.Errorf("pair_counts: query %s has histograms of %d and %d bins, not %d", row.Query, len(row.HistTopic), len(row.HistSumm), histBins))
		}
		rep.addCounts(n, row.HistTopic, row.HistSumm)
		consider(row.Query, [3]int32{int32(n[0]), int32(n[1]), int32(n[2])})
		return nil
	})
}

// recompute finds the pairs of the chosen queries again from topics and
// summaries, exactly as the pairs stage did (the same finder at the same
// floors), and hands each to draw: with only counts stored, the pairs of
// the 1,000 queries chosen are all select needs of the N².
func recompute(ctx context.Context, env *stage.Env, chosen []dataset.Query, draw func(string, []dataset.Pair) error) error {
	c, err := readers.Relevance(ctx, env)
	if err != nil {
		return err
	}
	pos := make(map[string]int, len(c.IDs))
	for i, id := range c.IDs {
		pos[id] = i
	}
	f := relevance.NewFinder(c, config.BenchmarkTopicFloor.Get(env.Config), config.BenchmarkSummFloor.Get(env.Config))
	prog := env.Progress("queries (candidates, recomputed)", int64(len(chosen)))
	defer prog.Finish()
	for _, q := range chosen {
		i, ok := pos[q.ID]
		if !ok {
			return stage.BadInput(fmt.Errorf("query %s is in pair_counts but has no topics or summary row (topics or summaries changed since pairs ran: rerun pairs)", q.ID))
		}
		ps := f.Query(i)
		rows := make([]dataset.Pair, len(ps))
		for j, p := range ps {
			rows[j] = dataset.Pair{Query: q.ID, Doc: p.Doc, SimTopic: p.SimTopic, SimSumm: p.SimSumm, Category: p.Category}
		}
		if err := draw(q.ID, rows); err != nil {
			return err
		}
		prog.Add(1)
	}
	return nil
}

func catIndex(c string) int {
	switch c {
	case relevance.CategoryTopic:
		return 0
	case relevance.CategorySummary:
		return 1
	}
	return 2
}

// thresholds returns the final thresholds: calibrate's `thresholds`, or
// the fixed pair of the config.
func thresholds(ctx context.Context, env *stage.Env, cfg *Config) (dataset.Threshold, error) {
	if cfg.Thresholds == ThresholdsFixed {
		return dataset.Threshold{Scope: dataset.ScopeFinal, TauTopic: cfg.TauTopic, TauSumm: cfg.TauSumm, Feasible: true}, nil
	}
	th, err := readers.Thresholds(ctx, env)
	if err != nil {
		return dataset.Threshold{}, fmt.Errorf("select.thresholds is %q: %w (run calibrate first, or set select.thresholds: fixed)", cfg.Thresholds, err)
	}
	return th, nil
}

func keys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func key(domain string) string { return strings.ReplaceAll(strings.ToLower(domain), " ", "_") }
