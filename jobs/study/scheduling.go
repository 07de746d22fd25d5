package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/lib/schedule"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/swiss"
)

// Defaults of the scheduling study's simulation. DefaultSchedNoise is the
// judge noise at which a 20-round Swiss tournament over 150 candidates has
// about 700 inversions against the exhaustive ranking (paper App. D.2),
// with the default position bias and invalid share; measured with
// `saber study scheduling --simulate` (see
// docs/benchmarks.md#judge-schedulers-saber-study-scheduling).
const (
	DefaultSchedNoise        = 0.39
	DefaultSchedPositionBias = 0.2
	DefaultSchedInvalidRate  = 0.02
	DefaultSchedQueries      = 24
	DefaultSchedRetrievers   = 16
)

// SchedSimConfig describes the simulated queries of the scheduling study:
// N candidates with latent scores from N(0, 1), judged exhaustively by a
// judge that prefers Sample 1 with probability σ((s₁ − s₂)/Noise + Bias)
// (Bias > 0: a preference for the sample shown first) and gives no usable
// answer with probability InvalidRate.
type SchedSimConfig struct {
	N, Queries  int
	Noise       float64
	Bias        float64
	InvalidRate float64
	Seed        uint64
}

// SimulateBiased returns Queries simulated exhaustive queries keyed
// query-0001…, each from seeds of its own.
func SimulateBiased(c SchedSimConfig) ([]*Exhaustive, error) {
	if c.N < 2 || c.Queries < 1 {
		return nil, stage.BadInput(fmt.Errorf("simulation: need --n ≥ 2 and --queries ≥ 1, have %d and %d", c.N, c.Queries))
	}
	if !(c.Noise > 0) || math.IsInf(c.Noise, 0) || math.IsNaN(c.Bias) || math.IsInf(c.Bias, 0) {
		return nil, stage.BadInput(fmt.Errorf("simulation: --noise %v, --position-bias %v: want a finite noise > 0 and a finite bias", c.Noise, c.Bias))
	}
	if !(c.InvalidRate >= 0 && c.InvalidRate < 1) {
		return nil, stage.BadInput(fmt.Errorf("simulation: --invalid-rate %v: want a value in [0, 1)", c.InvalidRate))
	}
	docs := make([]string, c.N)
	for i := range docs {
		docs[i] = "d" + strconv.Itoa(i)
	}
	out := make([]*Exhaustive, c.Queries)
	for q := range out {
		key := fmt.Sprintf("query-%04d", q+1)
		lat := make([]float64, c.N)
		lr := seed.Rand(c.Seed, "study/scheduling/latent", key)
		for i := range lat {
			lat[i] = lr.NormFloat64()
		}
		jr := seed.Rand(c.Seed, "study/scheduling/judge", key)
		js := make([]swiss.Judgment, 0, c.N*(c.N-1)/2)
		for a := range c.N {
			for b := a + 1; b < c.N; b++ {
				x, y := a, b
				if jr.IntN(2) == 1 {
					x, y = y, x
				}
				w := swiss.Invalid
				// Both draws always happen, so the stream does not depend
				// on the outcomes.
				inv, u := jr.Float64(), jr.Float64()
				if inv >= c.InvalidRate {
					p := 1 / (1 + math.Exp(-((lat[x]-lat[y])/c.Noise + c.Bias)))
					w = y
					if u < p {
						w = x
					}
				}
				js = append(js, swiss.Judgment{Match: swiss.Match{First: x, Second: y}, Winner: w})
			}
		}
		e, _, err := newExhaustive(key, docs, js)
		if err != nil {
			return nil, err
		}
		e.Latent = lat
		out[q] = e
	}
	return out, nil
}

// has reports whether the record holds a judgment of m's pair, in either
// sample order.
func (e *Exhaustive) has(m swiss.Match) bool {
	return e.out[m.First*e.n+m.Second] != none || e.out[m.Second*e.n+m.First] != none
}

// RecordsFromRows groups a run's judgment rows by query, as
// ExhaustiveFromRows does, but keeps every query: the scheduling study
// replays schedulers on whatever the run judged and charges the rest.
// Candidates are the documents a query's rows mention, sorted by id — the
// judge stage's own candidate order, so that its seeds replay its
// tournaments when every candidate played.
func RecordsFromRows(rows []JudgmentRow) ([]*Exhaustive, error) {
	full, skipped, err := ExhaustiveFromRows(rows)
	if err != nil || len(skipped) == 0 {
		return full, err
	}
	partial := map[string]bool{}
	for _, s := range skipped {
		partial[s.Query] = true
	}
	byQuery := map[string][]JudgmentRow{}
	for _, r := range rows {
		if partial[r.Query] {
			byQuery[r.Query] = append(byQuery[r.Query], r)
		}
	}
	out := full
	for _, s := range skipped {
		rs := byQuery[s.Query]
		index := map[string]int{}
		var docs []string
		for _, r := range rs {
			for _, d := range []string{r.Sample1, r.Sample2} {
				if _, ok := index[d]; !ok {
					index[d] = 0
					docs = append(docs, d)
				}
			}
		}
		slices.Sort(docs)
		for i, d := range docs {
			index[d] = i
		}
		js := make([]swiss.Judgment, len(rs))
		for i, r := range rs {
			w := swiss.Invalid
			if !r.Invalid {
				w = index[r.Winner]
			}
			js[i] = swiss.Judgment{Match: swiss.Match{First: index[r.Sample1], Second: index[r.Sample2]}, Winner: w}
		}
		e, _, err := newExhaustive(s.Query, docs, js)
		if err != nil {
			return nil, stage.BadInput(err)
		}
		if len(docs) >= 2 {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *Exhaustive) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Scheduler is one schedule the study compares.
type Scheduler struct {
	Name   string
	Rounds int // the cap R
	Config schedule.Config
	// Oracle, when set, replaces Config: a design that knows the
	// exhaustive ranking, a bound rather than a scheduler (see Oracle).
	Oracle *Oracle
}

// kind is the scheduler kind of the row, KindOracle for an oracle.
func (s Scheduler) kind() string {
	if s.Oracle != nil {
		return KindOracle
	}
	return s.Config.Kind
}

// DefaultSchedulers are the study's schedules: the paper's Swiss R = 20
// (the reference, first), Swiss cut at two thirds and at half of its
// rounds (the naive ways to save as much), Swiss with adaptive stopping at
// its defaults and at looser settings that do stop early, and the
// information-driven, refining and top-Swiss schedulers at their defaults.
func DefaultSchedulers() []Scheduler {
	return []Scheduler{
		{Name: "swiss R=20", Rounds: 20, Config: schedule.Config{Kind: schedule.Swiss}},
		{Name: "swiss R=13", Rounds: 13, Config: schedule.Config{Kind: schedule.Swiss}},
		{Name: "swiss R=10", Rounds: 10, Config: schedule.Config{Kind: schedule.Swiss}},
		{Name: "swiss-adaptive", Rounds: 20, Config: schedule.Config{Kind: schedule.SwissAdaptive}.WithDefaults()},
		{Name: "swiss-adaptive loose", Rounds: 20, Config: schedule.Config{Kind: schedule.SwissAdaptive, StableRounds: 3, Epsilon: 0.01, MinRounds: 6}.WithDefaults()},
		{Name: "active", Rounds: 20, Config: schedule.Config{Kind: schedule.Active}.WithDefaults()},
		{Name: "refine", Rounds: 20, Config: schedule.Config{Kind: schedule.Refine}.WithDefaults()},
		{Name: "swiss-top", Rounds: 20, Config: schedule.Config{Kind: schedule.SwissTop}.WithDefaults()},
	}
}

// SchedConfig tunes the study.
type SchedConfig struct {
	Schedulers []Scheduler // the first is the reference
	Retrievers int
	Seed       uint64 // tournaments, retrievers and charged answers
	// JudgeSeed seeds every tournament as the judge stage does, from
	// (Seed, "judge", query): with Seed the run's seed, Swiss replays the
	// run's own tournaments exactly.
	JudgeSeed bool
	// Oracle adds OracleSchedulers' rows after Schedulers: the information
	// bound, never judged against the goal. OracleWindow and OracleJitter
	// tune them (0: the defaults).
	Oracle       bool
	OracleWindow int
	OracleJitter float64
	Lambda       float64
	Workers      int
}

// SchedRow is one scheduler, averaged over queries.
type SchedRow struct {
	Name   string
	Kind   string
	Params string
	// Comparisons per query and their share of the reference's.
	Comparisons, Share float64
	// Charged is the comparisons per query the record did not hold (a
	// replayed run that never judged the pair): new calls, answered by a
	// draw from the Bradley–Terry fit of all the query's judgments.
	Charged float64
	Rounds  float64 // rounds with at least one match, mean
	// Inversions against the exhaustive ranking (ties ½), mean.
	Inversions float64
	// TopTau is Kendall's τ between the scheduler's θ and the exhaustive
	// θ over the union of both top 10s, mean over queries.
	TopTau float64
	// NDCGError is the mean |nDCG@10 − nDCG@10 with the exhaustive
	// ratings| over retrievers and queries.
	NDCGError float64
	// Spearman of the retriever leaderboard (mean nDCG@10) against the
	// reference's and against the exhaustive ratings'.
	SpearmanRef, SpearmanExhaustive float64
	// Goal: see MeetsGoal.
	Goal bool
}

// GoalShare is the most comparisons, as a share of the reference's, that a
// scheduler may make and still meet the study's goal (issue 41).
const GoalShare = 0.5

// MeetsGoal is the study's goal (issue 41): at most GoalShare of the
// reference's comparisons, and against the exhaustive ranking no more
// inversions, no larger mean |ΔnDCG@10| and no lower top-10 τ than the
// reference. It judges fidelity, not the leaderboard Spearman: over many
// queries that saturates near 1 for every scheduler and so cannot tell
// them apart.
func MeetsGoal(r, ref SchedRow) bool {
	return r.Comparisons <= GoalShare*ref.Comparisons && r.Inversions <= ref.Inversions &&
		r.NDCGError <= ref.NDCGError && r.TopTau >= ref.TopTau
}

// SchedResult is the whole study.
type SchedResult struct {
	Source     string
	Queries    int
	MeanN      float64
	MeanPairs  float64
	Retrievers int
	// Partial is the queries whose record lacks some pair (a replayed
	// run): their "exhaustive" ranking is the fit of what was judged.
	Partial int
	Rows    []SchedRow
}

type schedOne struct {
	comparisons, rounds, charged []int
	inv, tau                     []float64
	ndcg                         [][]float64 // [scheduler][retriever]
	ndcgExh                      []float64   // [retriever]
}

// Scheduling runs every scheduler on every query, each comparison answered
// from the query's exhaustive record, and scores the ratings (see
// SchedRow).
func Scheduling(ctx context.Context, qs []*Exhaustive, c SchedConfig) (SchedResult, error) {
	if len(qs) == 0 {
		return SchedResult{}, stage.BadInput(errors.New("scheduling study: no query with an exhaustive set of judgments"))
	}
	if len(c.Schedulers) == 0 {
		c.Schedulers = DefaultSchedulers()
	}
	if c.Oracle {
		if c.OracleWindow < 0 || !(c.OracleJitter >= 0) || math.IsInf(c.OracleJitter, 0) {
			return SchedResult{}, stage.BadInput(fmt.Errorf("scheduling study: --oracle-window %d, --oracle-jitter %v: want ≥ 0 and a finite ≥ 0", c.OracleWindow, c.OracleJitter))
		}
		c.Schedulers = append(slices.Clip(c.Schedulers), OracleSchedulers(c.OracleWindow, c.OracleJitter)...)
	}
	if c.Retrievers < 2 {
		return SchedResult{}, stage.BadInput(fmt.Errorf("scheduling study: --retrievers %d: want ≥ 2 (a leaderboard)", c.Retrievers))
	}
	res, err := perQueryWorkers(ctx, len(qs), c.Workers, func(i int, f *bt.Fitter) (schedOne, error) { return schedQuery(qs[i], c, f) })
	if err != nil {
		return SchedResult{}, err
	}
	out := SchedResult{Queries: len(qs), Retrievers: c.Retrievers}
	for _, q := range qs {
		if q.Judgments < q.Pairs() {
			out.Partial++
		}
		out.MeanN += float64(q.n)
		out.MeanPairs += float64(q.Pairs())
	}
	out.MeanN /= float64(len(qs))
	out.MeanPairs /= float64(len(qs))
	board := func(f func(p *schedOne) []float64) []float64 {
		b := make([]float64, c.Retrievers)
		for i := range res {
			for k, v := range f(&res[i]) {
				b[k] += v / float64(len(res))
			}
		}
		return b
	}
	exh := board(func(p *schedOne) []float64 { return p.ndcgExh })
	ref := board(func(p *schedOne) []float64 { return p.ndcg[0] })
	for s, sc := range c.Schedulers {
		row := SchedRow{Name: sc.Name, Kind: sc.kind(), Params: params(sc)}
		for i := range res {
			p := &res[i]
			row.Comparisons += float64(p.comparisons[s])
			row.Charged += float64(p.charged[s])
			row.Rounds += float64(p.rounds[s])
			row.Inversions += p.inv[s]
			row.TopTau += p.tau[s]
			for k := range c.Retrievers {
				row.NDCGError += math.Abs(p.ndcg[s][k]-p.ndcgExh[k]) / float64(c.Retrievers)
			}
		}
		k := float64(len(res))
		row.Comparisons /= k
		row.Charged /= k
		row.Rounds /= k
		row.Inversions /= k
		row.TopTau /= k
		row.NDCGError /= k
		b := board(func(p *schedOne) []float64 { return p.ndcg[s] })
		row.SpearmanRef = spearman(b, ref)
		row.SpearmanExhaustive = spearman(b, exh)
		out.Rows = append(out.Rows, row)
	}
	r0 := out.Rows[0]
	for i := range out.Rows {
		r := &out.Rows[i]
		r.Share = r.Comparisons / r0.Comparisons
		// An oracle is a bound, not a scheduler a judge could run.
		r.Goal = i > 0 && r.Kind != KindOracle && MeetsGoal(*r, r0)
	}
	return out, nil
}

func params(s Scheduler) string {
	if o := s.Oracle; o != nil {
		return fmt.Sprintf("knows the exhaustive θ (a bound, not a scheduler): matchings within %d ranks, jitter %g, %g games per candidate", o.Window, o.Jitter, o.Games)
	}
	c := s.Config
	switch c.Kind {
	case schedule.SwissAdaptive:
		return fmt.Sprintf("R≤%d, k=%d, ε=%g, top %d, min %d", s.Rounds, c.StableRounds, c.Epsilon, c.TopK, c.MinRounds)
	case schedule.Active:
		return fmt.Sprintf("R≤%d, k=%d, ε=%g, top %d, min %d, %d Swiss rounds, %d matches of ≤ %d per candidate", s.Rounds, c.StableRounds, c.Epsilon, c.TopK, c.MinRounds, c.SwissRounds, c.Matches, c.PerCandidate)
	case schedule.Refine:
		return fmt.Sprintf("R≤%d, %d Swiss rounds, %g games per candidate, window %d, top weight %g", s.Rounds, c.SwissRounds, c.Games, c.Window, c.TopWeight)
	case schedule.SwissTop:
		return fmt.Sprintf("R≤%d, %d Swiss rounds, then Swiss pairing among the top %g by wins, %g games per candidate", s.Rounds, c.SwissRounds, c.TopShare, c.Games)
	}
	return fmt.Sprintf("R=%d", s.Rounds)
}

// retrieverTop lists simulated retriever k's top 10 of query q: its score
// of candidate i is q_k·z_i + N(0, 1), z the latent scores (or, replaying
// a run, its exhaustive θ standardised) and q_k from 0.4 to 1.9 in even
// steps, so that neighbours on the leaderboard are close.
func retrieverTop(q *Exhaustive, z []float64, k, retrievers int, s uint64) []int {
	quality := 0.4 + 1.5*float64(k)/float64(max(1, retrievers-1))
	rng := seed.Rand(s, "study/scheduling/retriever", q.Key+"/"+strconv.Itoa(k))
	score := make([]float64, len(z))
	for i := range z {
		score[i] = quality*z[i] + rng.NormFloat64()
	}
	return schedule.TopK(score, ndcg.DefaultK)
}

func schedQuery(q *Exhaustive, c SchedConfig, f *bt.Fitter) (schedOne, error) {
	opt := bt.Options{Lambda: c.Lambda}
	ref, err := f.Fit(q.n, q.games, opt)
	if err != nil {
		return schedOne{}, fmt.Errorf("query %s: exhaustive fit: %w", q.Key, err)
	}
	refTheta := slices.Clone(ref.Theta)
	z := q.Latent
	if z == nil {
		z = standardise(refTheta)
	}
	tops := make([][]int, c.Retrievers)
	for k := range tops {
		tops[k] = retrieverTop(q, z, k, c.Retrievers, c.Seed)
	}
	scoreAll := func(theta []float64) []float64 {
		rating := make([]float64, len(theta))
		bt.Rescale(rating, theta)
		ideal := ndcg.IdealDCG(rating, ndcg.DefaultK, ndcg.Exponential)
		out := make([]float64, len(tops))
		for k, top := range tops {
			ranked := make([]float64, len(top))
			for i, d := range top {
				ranked[i] = rating[d]
			}
			if ideal > 0 {
				out[k] = ndcg.DCG(ranked, ndcg.DefaultK, ndcg.Exponential) / ideal
			}
		}
		return out
	}
	p := schedOne{ndcgExh: scoreAll(refTheta)}
	// Every scheduler draws its rounds from the same generators, so that
	// they share their Swiss opening and differ only where they choose to.
	rnd := swiss.SeedRounds(c.Seed, "study/scheduling", q.Key)
	if c.JudgeSeed {
		rnd = swiss.SeedRounds(c.Seed, "judge", q.Key)
	}
	for _, sc := range c.Schedulers {
		charged := 0
		decide := func(m swiss.Match) int {
			if q.has(m) {
				return q.decide(m)
			}
			// Not in the record: a new call, answered as the record's
			// own Bradley–Terry model would, by a draw seeded by the pair.
			charged++
			a, b := min(m.First, m.Second), max(m.First, m.Second)
			u := seed.Rand(c.Seed, "study/scheduling/charge", q.Key+"/"+strconv.Itoa(a)+"/"+strconv.Itoa(b)).Float64()
			if u < 1/(1+math.Exp(refTheta[b]-refTheta[a])) {
				return a
			}
			return b
		}
		var (
			js     []swiss.Judgment
			rounds int
			err    error
		)
		if sc.Oracle != nil {
			js, rounds = playOracle(*sc.Oracle, refTheta, rnd, decide)
		} else if js, rounds, err = play(sc, q.n, rnd, decide); err != nil {
			return schedOne{}, fmt.Errorf("query %s: %s: %w", q.Key, sc.Name, err)
		}
		fit, err := f.Fit(q.n, schedule.Comparisons(js), opt)
		if err != nil {
			return schedOne{}, fmt.Errorf("query %s: %s fit: %w", q.Key, sc.Name, err)
		}
		inv, tied := Discordance(fit.Theta, refTheta)
		p.comparisons = append(p.comparisons, len(js))
		p.charged = append(p.charged, charged)
		p.rounds = append(p.rounds, rounds)
		p.inv = append(p.inv, float64(inv)+float64(tied)/2)
		p.tau = append(p.tau, topTau(fit.Theta, refTheta, ndcg.DefaultK))
		p.ndcg = append(p.ndcg, scoreAll(fit.Theta))
	}
	return p, nil
}

// play runs sc's tournament of n candidates for at most sc.Rounds rounds
// and returns its judgments and the rounds with at least one match.
func play(sc Scheduler, n int, rnd swiss.RoundRand, decide swiss.Judge) ([]swiss.Judgment, int, error) {
	t, err := schedule.New(sc.Config, n, rnd)
	if err != nil {
		return nil, 0, err
	}
	rounds := 0
	for range sc.Rounds {
		before := len(t.Judgments())
		if err := schedule.Run(t, 1, decide); err != nil {
			return nil, 0, err
		}
		if len(t.Judgments()) > before {
			rounds++
		}
		if t.Stopped() {
			break
		}
	}
	return t.Judgments(), rounds, nil
}

// playOracle judges the oracle's design on theta (the exhaustive θ) and
// returns its judgments and rounds.
func playOracle(o Oracle, theta []float64, rnd swiss.RoundRand, decide swiss.Judge) ([]swiss.Judgment, int) {
	ms := o.Design(theta, rnd)
	js := make([]swiss.Judgment, len(ms))
	rounds := 0
	for i, m := range ms {
		js[i] = swiss.Judgment{Match: m, Winner: decide(m)}
		rounds = max(rounds, m.Round)
	}
	return js, rounds
}

func standardise(x []float64) []float64 {
	m, sd := meanSD(x)
	out := make([]float64, len(x))
	for i, v := range x {
		if sd > 0 {
			out[i] = (v - m) / sd
		}
	}
	return out
}

// topTau is Kendall's τ-a between est and ref over the union of their top
// k: (concordant − discordant) / pairs, a pair tied (within 1e-9) in
// either counting as neither. It sees both a wrong order inside the top
// and a wrong member of it.
func topTau(est, ref []float64, k int) float64 {
	set := map[int]bool{}
	for _, i := range schedule.TopK(est, k) {
		set[i] = true
	}
	for _, i := range schedule.TopK(ref, k) {
		set[i] = true
	}
	items := make([]int, 0, len(set))
	for i := range set {
		items = append(items, i)
	}
	slices.Sort(items)
	var c, d, pairs int
	for x := range items {
		for y := x + 1; y < len(items); y++ {
			a, b := items[x], items[y]
			pairs++
			de, dr := est[a]-est[b], ref[a]-ref[b]
			if math.Abs(de) <= tieTol || math.Abs(dr) <= tieTol {
				continue
			}
			if (de > 0) == (dr > 0) {
				c++
			} else {
				d++
			}
		}
	}
	if pairs == 0 {
		return math.NaN()
	}
	return float64(c-d) / float64(pairs)
}

// schedCSVHeader are the columns of scheduling.csv.
var schedCSVHeader = []string{
	"scheduler", "kind", "params", "comparisons_per_query", "share_of_reference", "charged_per_query", "rounds",
	"inversions", "top10_kendall_tau", "ndcg10_abs_error", "leaderboard_spearman_vs_reference",
	"leaderboard_spearman_vs_exhaustive", "goal_met",
}

// CSV renders the rows.
func (r SchedResult) CSV() []byte {
	var rows [][]string
	for _, x := range r.Rows {
		rows = append(rows, []string{x.Name, x.Kind, x.Params, num(x.Comparisons, 1), num(x.Share, 4), num(x.Charged, 1), num(x.Rounds, 2),
			num(x.Inversions, 1), num(x.TopTau, 4), num(x.NDCGError, 5), num(x.SpearmanRef, 4), num(x.SpearmanExhaustive, 4),
			strconv.FormatBool(x.Goal)})
	}
	return csvBytes(schedCSVHeader, rows)
}

func (r SchedResult) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "source: %s\n", r.Source)
	fmt.Fprintf(&b, "queries: %d, candidates: %s, pairs: %s per query, %d simulated retrievers\n",
		r.Queries, numAuto(r.MeanN), numAuto(r.MeanPairs), r.Retrievers)
	if r.Partial > 0 {
		fmt.Fprintf(&b, "%d queries not judged exhaustively: their exhaustive ranking is the Bradley–Terry fit of all their judgments, and comparisons they lack are charged\n", r.Partial)
	}
	fmt.Fprintf(&b, "reference: %s; goal: ≤ %g of its comparisons with no more inversions, no larger |ΔnDCG@10| and no lower top-10 τ\n", r.Rows[0].Name, GoalShare)
	return b.String()
}

// Text is the printed table.
func (r SchedResult) Text() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Judge tournament schedulers against the exhaustive Bradley–Terry ranking (issue 24)\n")
	b.WriteString(r.header())
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scheduler\tcalls/query\tshare\tcharged\trounds\tinversions\ttop-10 τ\t|ΔnDCG@10|\tρ vs ref\tρ vs exh\tgoal\t")
	for _, x := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", x.Name, num(x.Comparisons, 1), num(x.Share, 3), num(x.Charged, 1), num(x.Rounds, 1),
			num(x.Inversions, 1), num(x.TopTau, 4), num(x.NDCGError, 4), num(x.SpearmanRef, 4), num(x.SpearmanExhaustive, 4), goal(x.Goal))
	}
	tw.Flush()
	b.WriteString("\n")
	for _, x := range r.Rows {
		fmt.Fprintf(&b, "%s: %s\n", x.Name, x.Params)
	}
	return b.String()
}

func goal(ok bool) string {
	if ok {
		return "met"
	}
	return "-"
}

// Markdown is scheduling.md.
func (r SchedResult) Markdown() []byte {
	var b bytes.Buffer
	b.WriteString("# Judge tournament schedulers\n\n")
	for _, l := range strings.Split(strings.TrimSpace(r.header()), "\n") {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	b.WriteString("\n| scheduler | parameters | calls/query | share | charged | rounds | inversions | top-10 τ | mean abs ΔnDCG@10 | leaderboard ρ vs reference | vs exhaustive | goal |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, x := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", x.Name, x.Params, num(x.Comparisons, 1), num(x.Share, 3), num(x.Charged, 1),
			num(x.Rounds, 1), num(x.Inversions, 1), num(x.TopTau, 4), num(x.NDCGError, 4), num(x.SpearmanRef, 4), num(x.SpearmanExhaustive, 4), goal(x.Goal))
	}
	return b.Bytes()
}

// Chart is fidelity (top-10 τ) against calls per query, one point per
// scheduler.
func (r SchedResult) Chart() chart.Scatter {
	var pts []chart.Point
	for _, x := range r.Rows {
		pts = append(pts, chart.Point{Label: x.Name, X: x.Comparisons, Y: x.TopTau, Group: x.Kind})
	}
	return chart.Scatter{
		Title:  fmt.Sprintf("Top-10 fidelity against judge calls (%d queries, n = %s)", r.Queries, numAuto(r.MeanN)),
		XLabel: "judge calls per query",
		YLabel: "Kendall τ of the top 10 vs exhaustive",
		Points: pts,
	}
}

// Files renders scheduling.csv, scheduling.md, scheduling.png and .svg.
func (r SchedResult) Files() (map[string][]byte, error) {
	png, svg, err := chart.RenderBoth(r.Chart(), chart.DefaultWidth, chart.DefaultHeight)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"scheduling.csv": r.CSV(), "scheduling.md": r.Markdown(), "scheduling.png": png, "scheduling.svg": svg}, nil
}
