// Package report is the report stage (paper §4.1, App. D.3, D.5, Tables 1,
// 7 and 8; SPEC §3 "nDCG@10"): it scores every retriever's rankings in
// `runs` against the `ratings`, aggregates per setting, domain and overall,
// and writes `results` and the report files under <run>/reports/.
//
// Per query, nDCG@K (report.k, 10) of the ranking by score — descending,
// ties by document id ascending — against the query's own candidates'
// ratings, with exponential gain 2^rel − 1 (the default) and linear gain rel
// (QueryNDCG, over lib/ndcg). A domain's value is the mean over its queries
// (a query's domain is the one `select` gave it); overall is the mean over
// all queries. Domains are listed in the run's order (readers.DomainOrder:
// benchmark.domains, else the ontology's top-level labels in its order),
// a query's label matched to them case-insensitively (lib/domains); a label
// that matches none is kept as its own domain after the known ones,
// alphabetically, with a warning, and queries without a domain come last. Each mean has a 95% percentile bootstrap interval from
// report.resamples resamples of the queries (lib/ndcg.Bootstrap), seeded by
// (run seed, "report", "bootstrap␀retriever␀setting␀gain␀scope"), so no
// value depends on the order of anything else or on evaluate's shard count.
//
// The sensitivity table (App. D.3) re-scores every retriever with the
// ratings rescaled from [0, 5] to [0, 3] and with linear gain, and compares
// the retrievers' overall nDCG with the default ([0, 5], exponential) by
// Pearson and Spearman correlation and by inversions: retriever pairs the two
// order strictly oppositely. It needs at least two retrievers and says so
// otherwise. Linear gain is invariant to the rescaling (nDCG is a ratio), so
// its two rows coincide up to rounding.
//
// Inputs are checked, and bad ones stop the stage with exit 2 and a message
// naming the object and row: a document ranked for a query that is not one
// of its rated candidates, a document ranked twice, ranks that are not 1…n
// in score order, a query some retriever did not rank, a retriever or
// setting in `runs` that the config does not list (or the reverse), a query
// without ratings, a rating outside [0, 5].
//
// Every Markdown and LaTeX table, report.md and leaderboard.json state which
// backends and models produced the topics, summaries and judgments, from
// the manifests of the shards that wrote them (readers.ReadProvenance), and
// say plainly when any was offline that the numbers are not model
// judgments.
//
// Files under <run>/reports/ (see the Report* constants): report.md (what
// was scored, and an index), table1, table7, table8 and sensitivity as .md,
// .csv and .tex, ndcg_per_query.csv, ndcg_by_domain.png and .svg,
// leaderboard.json, latency_queries.csv, frontier.png and .svg, and
// index.html: one self-contained page with the leaderboard (sortable, with
// intervals), the charts, the calibration grid of every domain as a heat
// map, the selection per domain and category, the deduplication clusters,
// the leakage audit and the provenance of the labels, read from the
// datasets of the stages before (thresholds, calibration, candidates,
// duplicates, audit, leaks).
//
// Latency (App. C.5): report.latency_queries (50) queries are drawn once
// from the run seed (LatencySample: the smallest seed.Derive(seed,
// "report", "latency␀"+id)) and listed in latency_queries.csv; a system's
// median seconds per query is over its timings of exactly those queries,
// or over all its timed queries when some of them were not timed (Table 1
// says so). The frontier (App. D.7) plots overall nDCG against that median
// on a log axis; bi-encoders (kind embedding) and cross-encoders (rerank,
// score, chat) each have their own Pareto frontier (Pareto), marked in
// Table 1's Frontier column; report.families overrides a family.
//
// Reproducibility: `results` and every report file except table1.* and
// leaderboard.json depend only on runs, ratings, queries and the config, so
// re-running report, or the whole pipeline, reproduces their bytes.
// table1.*, leaderboard.json, frontier.* and index.html also show the median seconds per query from
// `timings`, which are measurements: re-running report on the same timings
// (saber verify) reproduces them, but a rerun of evaluate measures new
// times and changes those files, and only those.
package report

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/domains"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/stats"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"reduce": run})

// ScopeOverall is the Scope of a result over all queries; see
// dataset.ScopeOverall.
const ScopeOverall = dataset.ScopeOverall

// NoDomain labels queries without a domain; it comes last in the tables.
const NoDomain = "(none)"

// System is one retriever in one setting.
type System struct{ Retriever, Setting string }

func (s System) String() string { return s.Retriever + "/" + s.Setting }

// bench is the benchmark: queries, their domains and their ratings.
type bench struct {
	queries []dataset.Query // by id
	qIndex  map[string]int
	domains []string // report order
	qDomain []int    // per query, index into domains
	// Per query: rated documents sorted by id, their index, and the
	// ratings per variant (Variants order).
	docs     [][]string
	docIndex []map[string]int32
	ratings  [][][]float64 // [query][variant][doc]
}

// scored is one system's per-query nDCG for every variant.
type scored struct {
	perQuery [][]float64 // [variant][query]
	part     []int       // per query, the runs part it came from (−1: not yet)
	n        int         // queries seen
}

// Key of a bootstrap interval.
type Key struct {
	Retriever, Setting, Gain, Scope string
}

// model is everything the tables are made of.
type model struct {
	run            string
	k, resamples   int
	main           string   // the main setting: statement-full if evaluated, else the first
	settings       []string // evaluated, in config.Settings order
	retrievers     []string // by main overall nDCG (exp) descending, then name
	domains        []string
	domainQueries  []int
	queries        int
	scores         map[System]*scored
	ci             map[Key]ndcg.Interval
	median         map[System]float64 // seconds per query; absent: no timings
	timed          map[System]int
	timedAll       map[System]bool   // median over every timed query: the latency sample was not all timed
	latencyQueries []string          // the latency sample (App. C.5), in draw order
	families       map[string]string // retriever → frontier family
	frontier       map[string]bool   // retrievers on their family's frontier
	bench          *bench
	sens           []sensitivity // per setting
	hasTimings     bool
	// prov names the backends and models of the topics, summaries and
	// judgments the benchmark was built from.
	prov readers.Provenance
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := env.Config
	rc := Section.Of(cfg)
	b, err := readBench(ctx, env)
	if err != nil {
		return err
	}
	prov, err := readers.ReadProvenance(ctx, env, dataset.Topics.Name, dataset.Summaries.Name, dataset.Judgments.Name)
	if err != nil {
		return err
	}
	m := &model{run: cfg.Run, k: rc.K, resamples: rc.Resamples, bench: b, domains: b.domains, queries: len(b.queries), prov: prov}
	for _, s := range config.Settings {
		if slices.Contains(config.EvaluateSettings.Get(cfg), s) {
			m.settings = append(m.settings, s)
		}
	}
	for _, s := range config.EvaluateSettings.Get(cfg) { // any the report does not know, after
		if !slices.Contains(m.settings, s) {
			m.settings = append(m.settings, s)
		}
	}
	m.main = cfg.MainSetting() // = m.settings[0]
	m.domainQueries = make([]int, len(b.domains))
	for _, d := range b.qDomain {
		m.domainQueries[d]++
	}
	if m.scores, err = readRuns(ctx, env, b); err != nil {
		return err
	}
	if err := readTimings(ctx, env, m); err != nil {
		return err
	}
	if err := m.bootstrap(ctx, env); err != nil {
		return err
	}
	m.order(config.EvaluateRetrievers.Get(cfg))
	m.frontiers(cfg)
	m.sensitivity()
	results := m.results()
	env.Count("queries", int64(len(b.queries)))
	env.Count("systems", int64(len(m.scores)))
	env.Count("results", int64(len(results)))
	if err := writeReports(ctx, env, m); err != nil {
		return err
	}
	if err := writeJudgeAudit(ctx, env, b.domains); err != nil {
		return err
	}
	if len(m.retrievers) > 0 {
		best := m.ci[Key{m.retrievers[0], m.main, ndcg.Exponential.String(), ScopeOverall}]
		env.Log.Info().Int("queries", len(b.queries)).Int("systems", len(m.scores)).Str("best", m.retrievers[0]).
			Float64("best_ndcg", best.Mean).Msg("retrievers scored")
	}
	return stage.WriteOutput(ctx, env, dataset.Results, results)
}

// readBench reads the queries and every query's ratings, and checks they
// agree.
func readBench(ctx context.Context, env *stage.Env) (*bench, error) {
	qs, err := readers.Queries(ctx, env)
	if err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, stage.BadInput(fmt.Errorf("queries: the benchmark has no queries"))
	}
	b := &bench{queries: qs, qIndex: make(map[string]int, len(qs))}
	var labels []string
	none := false
	for i, q := range qs {
		if _, dup := b.qIndex[q.ID]; dup {
			return nil, stage.BadInput(fmt.Errorf("queries: query %s is listed twice", q.ID))
		}
		b.qIndex[q.ID] = i
		if q.Domain == "" {
			none = true
		} else {
			labels = append(labels, q.Domain)
		}
	}
	order, err := readers.DomainOrder(ctx, env)
	if err != nil {
		return nil, err
	}
	m := domains.Match(order, labels)
	if len(m.Unmatched) > 0 {
		env.Log.Warn().Strs("domains", m.Unmatched).Strs("known", order).
			Msg("queries have domains that match no domain of the ontology (benchmark.ontology) or of benchmark.domains, even case-insensitively; they are listed after the known ones, alphabetically (were the queries selected under another ontology?)")
	}
	b.domains = m.Order
	if none {
		b.domains = append(b.domains, NoDomain)
	}
	b.qDomain = make([]int, len(qs))
	for i, q := range qs {
		d := NoDomain
		if q.Domain != "" {
			d = m.Of[q.Domain]
		}
		b.qDomain[i] = slices.Index(b.domains, d)
	}

	parts, err := env.Upstream(ctx, dataset.Ratings.Name)
	if err != nil {
		return nil, err
	}
	type rd struct {
		doc string
		r   float64
	}
	per := make([][]rd, len(qs))
	for _, p := range parts {
		row := 0
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Rating) error {
			for _, r := range rows {
				row++
				qi, ok := b.qIndex[r.Query]
				if !ok {
					return stage.BadInput(fmt.Errorf("%s row %d: ratings hold query %s, which `queries` does not list (ratings of another selection?)", p.URI, row, r.Query))
				}
				if !(r.Rating >= 0 && r.Rating <= trec.MaxRating) {
					return stage.BadInput(fmt.Errorf("%s row %d: query %s doc %s: rating %v is outside [0, %d]", p.URI, row, r.Query, r.Doc, r.Rating, trec.MaxRating))
				}
				per[qi] = append(per[qi], rd{r.Doc, r.Rating})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	b.docs = make([][]string, len(qs))
	b.docIndex = make([]map[string]int32, len(qs))
	b.ratings = make([][][]float64, len(qs))
	for qi, rs := range per {
		if len(rs) == 0 {
			return nil, stage.BadInput(fmt.Errorf("ratings: query %s has no ratings (is rate complete, and from this selection?)", qs[qi].ID))
		}
		slices.SortFunc(rs, func(a, b rd) int { return strings.Compare(a.doc, b.doc) })
		b.docs[qi] = make([]string, len(rs))
		b.docIndex[qi] = make(map[string]int32, len(rs))
		b.ratings[qi] = make([][]float64, len(Variants))
		for v := range Variants {
			b.ratings[qi][v] = make([]float64, len(rs))
		}
		for i, r := range rs {
			if i > 0 && rs[i-1].doc == r.doc {
				return nil, stage.BadInput(fmt.Errorf("ratings: query %s rates doc %s twice", qs[qi].ID, r.doc))
			}
			b.docs[qi][i] = r.doc
			b.docIndex[qi][r.doc] = int32(i)
			for v, vr := range Variants {
				b.ratings[qi][v][i] = vr.rescale(r.r)
			}
		}
	}
	return b, nil
}

// group is one system's ranking of one query, as read from `runs`.
type group struct {
	sys    System
	query  string
	part   int
	uri    string
	row    int // row of the first line, 1-based
	docs   []string
	scores []float64
	ranks  []int32
}

// readRuns scores every (retriever, setting, query) ranking in `runs`.
// A ranking's rows are contiguous in one part (the dataset is sorted by
// retriever, setting, query, rank and evaluate shards by query range), so
// each is scored as soon as it ends and only per-query values are kept.
func readRuns(ctx context.Context, env *stage.Env, b *bench) (map[System]*scored, error) {
	cfg := env.Config
	out := map[System]*scored{}
	for _, r := range config.EvaluateRetrievers.Get(cfg) {
		for _, s := range config.EvaluateSettings.Get(cfg) {
			sc := &scored{perQuery: make([][]float64, len(Variants)), part: make([]int, len(b.queries))}
			for v := range Variants {
				sc.perQuery[v] = make([]float64, len(b.queries))
			}
			for i := range sc.part {
				sc.part[i] = -1
			}
			out[System{r, s}] = sc
		}
	}
	parts, err := env.Upstream(ctx, dataset.Runs.Name)
	if err != nil {
		return nil, err
	}
	prog := env.Progress("runs rows", int64(dataset.TotalRows(parts)))
	var g *group
	for pi, p := range parts {
		row := 0
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.RunRow) error {
			for _, r := range rows {
				row++
				sys := System{r.Retriever, r.Setting}
				if g != nil && (g.sys != sys || g.query != r.Query) {
					if err := finish(g, b, out, Section.Of(cfg).K); err != nil {
						return err
					}
					g = nil
				}
				if g == nil {
					g = &group{sys: sys, query: r.Query, part: pi, uri: p.URI, row: row}
				}
				g.docs = append(g.docs, r.Doc)
				g.scores = append(g.scores, r.Score)
				g.ranks = append(g.ranks, r.Rank)
			}
			prog.Add(int64(len(rows)))
			return nil
		})
		if err != nil {
			return nil, err
		}
		if g != nil {
			if err := finish(g, b, out, Section.Of(cfg).K); err != nil {
				return nil, err
			}
			g = nil
		}
	}
	prog.Finish()
	env.Count("run_rows", int64(dataset.TotalRows(parts)))
	for _, r := range config.EvaluateRetrievers.Get(cfg) {
		for _, s := range config.EvaluateSettings.Get(cfg) {
			sc := out[System{r, s}]
			if sc.n == len(b.queries) {
				continue
			}
			if sc.n == 0 {
				return nil, stage.BadInput(fmt.Errorf("runs: no rankings of retriever %s in setting %s, which evaluate.retrievers and evaluate.settings list (is evaluate complete, with this config?)", r, s))
			}
			var miss []string
			for qi, pt := range sc.part {
				if pt < 0 {
					miss = append(miss, b.queries[qi].ID)
				}
			}
			return nil, stage.BadInput(fmt.Errorf("runs: retriever %s in setting %s ranked %d of %d queries; missing %s%s",
				r, s, sc.n, len(b.queries), strings.Join(miss[:min(5, len(miss))], ", "), more(len(miss), 5)))
		}
	}
	return out, nil
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf(" and %d more", n-shown)
	}
	return ""
}

// finish checks one ranking and scores it under every variant.
func finish(g *group, b *bench, out map[System]*scored, k int) error {
	where := fmt.Sprintf("%s row %d: retriever %s setting %s query %s", g.uri, g.row, g.sys.Retriever, g.sys.Setting, g.query)
	sc, ok := out[g.sys]
	if !ok {
		return stage.BadInput(fmt.Errorf("%s: retriever %s in setting %s is not in the config's evaluate.retrievers × evaluate.settings (was the config changed after evaluate ran?)", where, g.sys.Retriever, g.sys.Setting))
	}
	qi, ok := b.qIndex[g.query]
	if !ok {
		return stage.BadInput(fmt.Errorf("%s: the query is not in `queries` (runs of another selection?)", where))
	}
	if sc.part[qi] >= 0 {
		return stage.BadInput(fmt.Errorf("%s: this query's ranking appears twice (again from this row on; runs must hold one ranking per retriever, setting and query)", where))
	}
	rated := make([][]float64, len(Variants))
	for v := range Variants {
		rated[v] = make([]float64, len(g.docs))
	}
	seen := make(map[int32]bool, len(g.docs))
	for i, d := range g.docs {
		di, ok := b.docIndex[qi][d]
		if !ok {
			return stage.BadInput(fmt.Errorf("%s row %d: doc %s is not among the query's rated candidates", g.uri, g.row+i, d))
		}
		if seen[di] {
			return stage.BadInput(fmt.Errorf("%s row %d: doc %s is ranked twice for the query", g.uri, g.row+i, d))
		}
		seen[di] = true
		if want := int32(i + 1); g.ranks[i] != want {
			return stage.BadInput(fmt.Errorf("%s row %d: rank %d where %d was due (ranks must run 1…n)", g.uri, g.row+i, g.ranks[i], want))
		}
		for v := range Variants {
			rated[v][i] = b.ratings[qi][v][di]
		}
	}
	order, err := ndcg.Ranking(g.docs, g.scores)
	if err != nil {
		return stage.BadInput(fmt.Errorf("%s: %w", where, err))
	}
	for i, o := range order {
		if o != i {
			return stage.BadInput(fmt.Errorf("%s row %d: rank %d is doc %s (score %v), but by score, descending with ties by doc id ascending, rank %d is doc %s (score %v)",
				g.uri, g.row+i, i+1, g.docs[i], g.scores[i], i+1, g.docs[o], g.scores[o]))
		}
	}
	for v, vr := range Variants {
		sc.perQuery[v][qi] = ofOrder(order, rated[v], b.ratings[qi][v], ndcg.Options{K: k, Gain: vr.Gain})
	}
	sc.part[qi] = g.part
	sc.n++
	return nil
}

// readTimings reads the median seconds per query of every system: over the
// latency sample's queries (App. C.5) when the system was timed on all of
// them, else over every query it was timed on (m.timedAll records which).
func readTimings(ctx context.Context, env *stage.Env, m *model) error {
	parts, err := env.Upstream(ctx, dataset.Timings.Name)
	if err != nil {
		return err
	}
	ids := make([]string, len(m.bench.queries))
	for i, q := range m.bench.queries {
		ids[i] = q.ID
	}
	m.latencyQueries = LatencySample(env.RunSeed(), ids, Section.Of(env.Config).LatencyQueries)
	inSample := make(map[string]bool, len(m.latencyQueries))
	for _, id := range m.latencyQueries {
		inSample[id] = true
	}
	secs, sample := map[System][]float64{}, map[System]map[string]float64{}
	for _, p := range parts {
		err := stage.ScanPart(ctx, env, p, func(rows []dataset.Timing) error {
			for _, r := range rows {
				s := System{r.Retriever, r.Setting}
				if _, ok := m.scores[s]; ok && !math.IsNaN(r.Seconds) {
					secs[s] = append(secs[s], r.Seconds)
					if inSample[r.Query] {
						if sample[s] == nil {
							sample[s] = map[string]float64{}
						}
						sample[s][r.Query] = r.Seconds
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	m.median, m.timed, m.timedAll = map[System]float64{}, map[System]int{}, map[System]bool{}
	for s, v := range secs {
		if len(sample[s]) == len(m.latencyQueries) {
			v = make([]float64, 0, len(sample[s]))
			for _, id := range m.latencyQueries {
				v = append(v, sample[s][id])
			}
		} else {
			m.timedAll[s] = true
		}
		m.median[s], m.timed[s] = median(v), len(v)
		m.hasTimings = true
	}
	env.Count("timings", int64(dataset.TotalRows(parts)))
	return nil
}

// Gains reported in `results` and the tables, with their Variants index.
var gains = []struct {
	g ndcg.Gain
	v int
}{{ndcg.Exponential, vExp}, {ndcg.Linear, vLin}}

// bootstrap computes every mean and interval.
func (m *model) bootstrap(ctx context.Context, env *stage.Env) error {
	type job struct {
		key  Key
		vals []float64
	}
	var jobs []job
	for _, s := range m.systems() {
		sc := m.scores[s]
		for _, g := range gains {
			all := sc.perQuery[g.v]
			jobs = append(jobs, job{Key{s.Retriever, s.Setting, g.g.String(), ScopeOverall}, all})
			byDomain := make([][]float64, len(m.domains))
			for qi, v := range all {
				d := m.bench.qDomain[qi]
				byDomain[d] = append(byDomain[d], v)
			}
			for d, name := range m.domains {
				jobs = append(jobs, job{Key{s.Retriever, s.Setting, g.g.String(), name}, byDomain[d]})
			}
		}
	}
	res := make([]ndcg.Interval, len(jobs))
	err := parallel.For(ctx, len(jobs), runtime.GOMAXPROCS(0), func(_ context.Context, i int) error {
		iv, err := ndcg.Bootstrap(jobs[i].vals, ndcg.BootstrapOptions{Resamples: m.resamples}, seed.Rand(env.RunSeed(), env.Stage, BootstrapKey(jobs[i].key)))
		if err != nil {
			return fmt.Errorf("bootstrap %+v: %w", jobs[i].key, err)
		}
		res[i] = iv
		return nil
	})
	if err != nil {
		return err
	}
	m.ci = make(map[Key]ndcg.Interval, len(jobs))
	for i, j := range jobs {
		m.ci[j.key] = res[i]
	}
	return nil
}

// BootstrapKey is the seed key of one interval: the bootstrap of k draws
// from seed.Rand(run seed, "report", BootstrapKey(k)).
func BootstrapKey(k Key) string {
	return strings.Join([]string{"bootstrap", k.Retriever, k.Setting, k.Gain, k.Scope}, "\x00")
}

// systems lists the scored systems in config order (retriever, then
// setting in report order).
func (m *model) systems() []System {
	var out []System
	for s := range m.scores {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b System) int {
		return cmp.Or(strings.Compare(a.Retriever, b.Retriever), cmp.Compare(slices.Index(m.settings, a.Setting), slices.Index(m.settings, b.Setting)))
	})
	return out
}

// order sorts the retrievers by main-setting overall nDCG (exponential),
// descending, ties by name.
func (m *model) order(retrievers []string) {
	m.retrievers = slices.Clone(retrievers)
	exp := ndcg.Exponential.String()
	slices.SortFunc(m.retrievers, func(a, b string) int {
		va := m.ci[Key{a, m.main, exp, ScopeOverall}].Mean
		vb := m.ci[Key{b, m.main, exp, ScopeOverall}].Mean
		return cmp.Or(cmp.Compare(vb, va), strings.Compare(a, b))
	})
}

// results are the `results` rows.
func (m *model) results() []dataset.Result {
	var out []dataset.Result
	for _, s := range m.systems() {
		for _, g := range gains {
			scopes := append([]string{ScopeOverall}, m.domains...)
			for i, sc := range scopes {
				n := m.queries
				if i > 0 {
					n = m.domainQueries[i-1]
				}
				iv := m.ci[Key{s.Retriever, s.Setting, g.g.String(), sc}]
				out = append(out, dataset.Result{Retriever: s.Retriever, Setting: s.Setting, Gain: g.g.String(), Scope: sc,
					Queries: int32(n), NDCG: iv.Mean, Lo: iv.Lo, Hi: iv.Hi})
			}
		}
	}
	return out
}

// sensitivity is App. D.3's table for one setting.
type sensitivity struct {
	setting string
	// overall[v][i] is retriever i's (m.retrievers order) overall nDCG
	// under Variants[v].
	overall [][]float64
	rows    []sensRow // one per non-default variant
}

type sensRow struct {
	variant           Variant
	pearson, spearman float64
	inversions, pairs int
}

func (m *model) sensitivity() {
	for _, set := range m.settings {
		s := sensitivity{setting: set, overall: make([][]float64, len(Variants))}
		for v := range Variants {
			for _, r := range m.retrievers {
				mean, _ := ndcg.Mean(m.scores[System{r, set}].perQuery[v])
				s.overall[v] = append(s.overall[v], mean)
			}
		}
		for v := 1; v < len(Variants); v++ {
			row := sensRow{variant: Variants[v], pearson: math.NaN(), spearman: math.NaN()}
			if len(m.retrievers) >= 2 {
				row.pearson = stats.Pearson(s.overall[0], s.overall[v])
				row.spearman = stats.Spearman(s.overall[0], s.overall[v])
				row.inversions, row.pairs = Inversions(s.overall[0], s.overall[v])
			}
			s.rows = append(s.rows, row)
		}
		m.sens = append(m.sens, s)
	}
}
