package study

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/stats"
	"github.com/saber-math/saber/lib/swiss"
	"github.com/saber-math/saber/lib/swiss/swisssim"
)

// Outcome codes of an ordered pair in Exhaustive.
const (
	none      int8 = iota // not judged in this order
	firstWon              // Sample 1 won
	secondWon             // Sample 2 won
	invalid               // no usable answer
)

// Exhaustive is one query's complete set of pairwise judgments: every pair
// of its candidates judged at least once. It answers any schedule's
// comparisons by looking up the recorded outcome, which is what makes a
// Swiss tournament over it a faithful replay of what the judge would have
// said (paper D.2).
type Exhaustive struct {
	Key  string
	Docs []string // candidate i's id; index order
	// Latent holds the simulated truth (simulations only), else nil.
	Latent []float64
	n      int
	// out[a*n+b] is the outcome of the judgment that showed a as Sample 1
	// and b as Sample 2.
	out []int8
	// games are all valid judgments as Bradley–Terry input.
	games []bt.Comparison
	// Judgments counts all judgments, invalid ones included.
	Judgments int
}

// N is the number of candidates.
func (e *Exhaustive) N() int { return e.n }

// Pairs is n(n−1)/2.
func (e *Exhaustive) Pairs() int { return e.n * (e.n - 1) / 2 }

// decide answers a scheduled comparison from the record: the judgment made
// in the same sample order when there is one, else the one made in the
// other order (its winner is the same document either way).
func (e *Exhaustive) decide(m swiss.Match) int {
	a, b := m.First, m.Second
	switch e.out[a*e.n+b] {
	case firstWon:
		return a
	case secondWon:
		return b
	case invalid:
		return swiss.Invalid
	}
	switch e.out[b*e.n+a] {
	case firstWon:
		return b
	case secondWon:
		return a
	case invalid:
		return swiss.Invalid
	}
	panic(fmt.Sprintf("study: %s: pair %d, %d was never judged", e.Key, a, b))
}

// newExhaustive indexes judgments over candidates 0..len(docs)−1. It fails
// when a pair was judged twice in the same sample order, and reports
// (missing > 0) when some pair was never judged.
func newExhaustive(key string, docs []string, js []swiss.Judgment) (e *Exhaustive, missing int, err error) {
	n := len(docs)
	e = &Exhaustive{Key: key, Docs: docs, n: n, out: make([]int8, n*n), Judgments: len(js)}
	for _, j := range js {
		a, b := j.First, j.Second
		if e.out[a*n+b] != none {
			return nil, 0, fmt.Errorf("query %s: %s vs %s judged twice in the same sample order", key, docs[a], docs[b])
		}
		switch j.Winner {
		case a:
			e.out[a*n+b] = firstWon
			e.games = append(e.games, bt.Comparison{Winner: a, Loser: b})
		case b:
			e.out[a*n+b] = secondWon
			e.games = append(e.games, bt.Comparison{Winner: b, Loser: a})
		default:
			e.out[a*n+b] = invalid
		}
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			if e.out[a*n+b] == none && e.out[b*n+a] == none {
				missing++
			}
		}
	}
	return e, missing, nil
}

// Skipped is a query of the judgments file that is not exhaustive.
type Skipped struct {
	Query         string
	Candidates    int
	PairsJudged   int
	PairsExpected int
}

// ExhaustiveFromRows groups judgment rows by query and keeps the queries
// whose candidates (every document the query's rows mention) have every
// pair judged, in either sample order; the others are returned as skipped.
// A row whose winner is neither sample, or a pair judged twice in the same
// order, is bad input.
func ExhaustiveFromRows(rows []JudgmentRow) ([]*Exhaustive, []Skipped, error) {
	byQuery := map[string][]JudgmentRow{}
	for i, r := range rows {
		if r.Sample1 == "" || r.Sample2 == "" || r.Sample1 == r.Sample2 {
			return nil, nil, stage.BadInput(fmt.Errorf("judgment %d of query %q compares %q with %q", i, r.Query, r.Sample1, r.Sample2))
		}
		if !r.Invalid && r.Winner != r.Sample1 && r.Winner != r.Sample2 {
			return nil, nil, stage.BadInput(fmt.Errorf("judgment %d of query %q (%s vs %s): winner %q is neither sample and the judgment is not invalid",
				i, r.Query, r.Sample1, r.Sample2, r.Winner))
		}
		byQuery[r.Query] = append(byQuery[r.Query], r)
	}
	queries := make([]string, 0, len(byQuery))
	for q := range byQuery {
		queries = append(queries, q)
	}
	slices.Sort(queries)
	var (
		out     []*Exhaustive
		skipped []Skipped
	)
	for _, q := range queries {
		rs := byQuery[q]
		index := map[string]int{}
		var docs []string
		for _, r := range rs {
			for _, d := range []string{r.Sample1, r.Sample2} {
				if _, ok := index[d]; !ok {
					index[d] = -1
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
			a, b := index[r.Sample1], index[r.Sample2]
			w := swiss.Invalid
			if !r.Invalid {
				w = index[r.Winner]
			}
			js[i] = swiss.Judgment{Match: swiss.Match{First: a, Second: b}, Winner: w}
		}
		e, missing, err := newExhaustive(q, docs, js)
		if err != nil {
			return nil, nil, stage.BadInput(err)
		}
		if missing > 0 || len(docs) < 2 {
			skipped = append(skipped, Skipped{Query: q, Candidates: len(docs), PairsJudged: e.Pairs() - missing, PairsExpected: e.Pairs()})
			continue
		}
		out = append(out, e)
	}
	return out, skipped, nil
}

// SimConfig describes simulated queries: n candidates with latent scores
// drawn from N(0, 1) and a judge that prefers a to b with probability
// σ((s_a − s_b)/Noise) (lib/swiss/swisssim), judged exhaustively.
type SimConfig struct {
	N, Trials   int
	Noise       float64
	InvalidRate float64
	Seed        uint64
}

// Simulate returns Trials simulated exhaustive queries, keyed trial-0001…;
// each draws from seeds of its own (lib/seed), so trial k is the same
// whatever Trials is.
func Simulate(c SimConfig) ([]*Exhaustive, error) {
	if c.N < 2 || c.Trials < 1 {
		return nil, stage.BadInput(fmt.Errorf("simulation: need --n ≥ 2 and --trials ≥ 1, have %d and %d", c.N, c.Trials))
	}
	if !(c.Noise >= 0) || math.IsInf(c.Noise, 0) {
		return nil, stage.BadInput(fmt.Errorf("simulation: --noise %v: want a finite value ≥ 0", c.Noise))
	}
	if !(c.InvalidRate >= 0 && c.InvalidRate < 1) {
		return nil, stage.BadInput(fmt.Errorf("simulation: --invalid-rate %v: want a value in [0, 1)", c.InvalidRate))
	}
	docs := make([]string, c.N)
	for i := range docs {
		docs[i] = "d" + strconv.Itoa(i)
	}
	out := make([]*Exhaustive, c.Trials)
	for t := range out {
		key := fmt.Sprintf("trial-%04d", t+1)
		latent := swisssim.Latent(c.N, seed.Rand(c.Seed, "study/rounds/latent", key))
		judge := &swisssim.Judge{Scores: latent, Noise: c.Noise, InvalidRate: c.InvalidRate, Rng: seed.Rand(c.Seed, "study/rounds/judge", key)}
		js := swisssim.Exhaustive(seed.Rand(c.Seed, "study/rounds/order", key), judge)
		e, _, err := newExhaustive(key, docs, js)
		if err != nil {
			return nil, err
		}
		e.Latent = latent
		out[t] = e
	}
	return out, nil
}

// RoundsConfig tunes the rounds study.
type RoundsConfig struct {
	MaxRounds int     // R = 1..MaxRounds (paper: up to 30)
	Lambda    float64 // Bradley–Terry ridge; 0 means bt.DefaultLambda
	// Seed seeds the Swiss pairings and the random schedules, per query.
	Seed    uint64
	Workers int // queries fitted in parallel; 0 means GOMAXPROCS
}

// RoundsRow is the study at one R, averaged over queries. Inversions count
// the candidate pairs a ranking orders against the exhaustive one, a pair
// the ranking ties counting ½ (the expected count when its ties are broken
// at random); pairs the exhaustive ranking ties are left out.
type RoundsRow struct {
	Rounds int
	// Comparisons is the mean number of Swiss judgments after R rounds; the
	// random schedule gets exactly as many per query.
	Comparisons float64
	// Mean and standard deviation over queries.
	SwissInversions, SwissInversionsSD   float64
	RandomInversions, RandomInversionsSD float64
	// Mean Spearman ρ with the exhaustive θ.
	SwissSpearman, RandomSpearman float64
	// Mean pairs tied by each ranking (each counted ½ above).
	SwissTied, RandomTied float64
	// Simulations only (else NaN): mean inversions against the latent
	// truth rather than the exhaustive ranking.
	SwissLatentInversions, RandomLatentInversions float64
}

// RoundsResult is the whole study.
type RoundsResult struct {
	// Source says where the judgments came from, for the printout.
	Source    string
	Queries   int
	MeanN     float64 // mean candidates per query
	MeanPairs float64 // mean n(n−1)/2
	// MeanJudgments is the mean size of the exhaustive sets (a pair judged
	// in both orders counts twice).
	MeanJudgments float64
	// ExhaustiveLatentInversions (simulations only, else NaN) is the
	// exhaustive ranking's own mean inversions against the latent truth:
	// the floor the judge's noise leaves.
	ExhaustiveLatentInversions float64
	Skipped                    []Skipped
	Rows                       []RoundsRow
}

// perQuery is one query's curve.
type perQuery struct {
	comparisons           []int
	swissInv, randomInv   []float64
	swissTied, randomTied []int
	swissRho, randomRho   []float64
	swissLat, randomLat   []float64
	exhaustiveLat         float64
}

// Rounds runs the study on the given exhaustive queries: for each query, a
// Swiss tournament (lib/swiss, seeded by Seed and the query's key) whose
// every comparison is answered from the record, and a random schedule — a
// seeded uniform order of all pairs, of which the first m are taken, m the
// Swiss tournament's comparisons so far; after each round R both are fitted
// by Bradley–Terry and compared with the fit on all judgments.
func Rounds(ctx context.Context, qs []*Exhaustive, c RoundsConfig) (RoundsResult, error) {
	if len(qs) == 0 {
		return RoundsResult{}, stage.BadInput(errors.New("rounds study: no query with an exhaustive set of judgments"))
	}
	if c.MaxRounds < 1 {
		return RoundsResult{}, stage.BadInput(fmt.Errorf("rounds study: --max-rounds %d: want ≥ 1", c.MaxRounds))
	}
	if c.Lambda < 0 || math.IsNaN(c.Lambda) {
		return RoundsResult{}, stage.BadInput(fmt.Errorf("rounds study: --lambda %v: want > 0", c.Lambda))
	}
	res, err := perQueryWorkers(ctx, len(qs), c.Workers, func(i int, f *bt.Fitter) (perQuery, error) { return roundsOne(qs[i], c, f) })
	if err != nil {
		return RoundsResult{}, err
	}

	out := RoundsResult{Queries: len(qs), ExhaustiveLatentInversions: math.NaN()}
	latent := qs[0].Latent != nil
	var lat []float64
	for i, q := range qs {
		out.MeanN += float64(q.n)
		out.MeanPairs += float64(q.Pairs())
		out.MeanJudgments += float64(q.Judgments)
		if latent {
			lat = append(lat, res[i].exhaustiveLat)
		}
	}
	k := float64(len(qs))
	out.MeanN /= k
	out.MeanPairs /= k
	out.MeanJudgments /= k
	if latent {
		out.ExhaustiveLatentInversions, _ = meanSD(lat)
	}
	col := func(f func(p *perQuery) float64) []float64 {
		v := make([]float64, len(res))
		for i := range res {
			v[i] = f(&res[i])
		}
		return v
	}
	for r := range c.MaxRounds {
		row := RoundsRow{Rounds: r + 1, SwissLatentInversions: math.NaN(), RandomLatentInversions: math.NaN()}
		row.Comparisons, _ = meanSD(col(func(p *perQuery) float64 { return float64(p.comparisons[r]) }))
		row.SwissInversions, row.SwissInversionsSD = meanSD(col(func(p *perQuery) float64 { return p.swissInv[r] }))
		row.RandomInversions, row.RandomInversionsSD = meanSD(col(func(p *perQuery) float64 { return p.randomInv[r] }))
		row.SwissSpearman, _ = meanSD(col(func(p *perQuery) float64 { return p.swissRho[r] }))
		row.RandomSpearman, _ = meanSD(col(func(p *perQuery) float64 { return p.randomRho[r] }))
		row.SwissTied, _ = meanSD(col(func(p *perQuery) float64 { return float64(p.swissTied[r]) }))
		row.RandomTied, _ = meanSD(col(func(p *perQuery) float64 { return float64(p.randomTied[r]) }))
		if latent {
			row.SwissLatentInversions, _ = meanSD(col(func(p *perQuery) float64 { return p.swissLat[r] }))
			row.RandomLatentInversions, _ = meanSD(col(func(p *perQuery) float64 { return p.randomLat[r] }))
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

func roundsOne(q *Exhaustive, c RoundsConfig, f *bt.Fitter) (perQuery, error) {
	opt := bt.Options{Lambda: c.Lambda}
	ref, err := f.Fit(q.n, q.games, opt)
	if err != nil {
		return perQuery{}, fmt.Errorf("query %s: exhaustive fit: %w", q.Key, err)
	}
	refTheta := slices.Clone(ref.Theta)
	var p perQuery
	if q.Latent != nil {
		inv, tied := Discordance(refTheta, q.Latent)
		p.exhaustiveLat = float64(inv) + float64(tied)/2
	}
	score := func(js []swiss.Judgment) (inv float64, tied int, rho, lat float64, err error) {
		fit, err := f.Fit(q.n, swisssim.Comparisons(js), opt)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		i, t := Discordance(fit.Theta, refTheta)
		rho = spearman(fit.Theta, refTheta)
		if q.Latent != nil {
			li, lt := Discordance(fit.Theta, q.Latent)
			lat = float64(li) + float64(lt)/2
		}
		return float64(i) + float64(t)/2, t, rho, lat, nil
	}

	t, err := swiss.New(q.n, swiss.SeedRounds(c.Seed, "study/rounds/swiss", q.Key))
	if err != nil {
		return perQuery{}, err
	}
	order := randomOrder(q.n, seed.Rand(c.Seed, "study/rounds/random", q.Key))
	var random []swiss.Judgment
	for r := 1; r <= c.MaxRounds; r++ {
		if err := t.Run(1, q.decide); err != nil {
			return perQuery{}, fmt.Errorf("query %s: %w", q.Key, err)
		}
		sw := t.Judgments()
		for len(random) < len(sw) {
			m := order[len(random)]
			random = append(random, swiss.Judgment{Match: m, Winner: q.decide(m)})
		}
		si, st, sr, sl, err := score(sw)
		if err != nil {
			return perQuery{}, fmt.Errorf("query %s: swiss fit after round %d: %w", q.Key, r, err)
		}
		ri, rt, rr, rl, err := score(random)
		if err != nil {
			return perQuery{}, fmt.Errorf("query %s: random fit after round %d: %w", q.Key, r, err)
		}
		p.comparisons = append(p.comparisons, len(sw))
		p.swissInv, p.swissTied, p.swissRho, p.swissLat = append(p.swissInv, si), append(p.swissTied, st), append(p.swissRho, sr), append(p.swissLat, sl)
		p.randomInv, p.randomTied, p.randomRho, p.randomLat = append(p.randomInv, ri), append(p.randomTied, rt), append(p.randomRho, rr), append(p.randomLat, rl)
	}
	return p, nil
}

// randomOrder returns all n(n−1)/2 pairs in a uniformly random order, each
// with a random sample order.
func randomOrder(n int, rng *rand.Rand) []swiss.Match {
	ms := make([]swiss.Match, 0, n*(n-1)/2)
	for a := range n {
		for b := a + 1; b < n; b++ {
			ms = append(ms, swiss.Match{First: a, Second: b})
		}
	}
	rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	for i := range ms {
		if rng.IntN(2) == 1 {
			ms[i].First, ms[i].Second = ms[i].Second, ms[i].First
		}
	}
	return ms
}

// tieTol is the θ difference under which two candidates count as tied: θ
// is only determined to about bt.DefaultTol, so candidates the data cannot
// tell apart differ by round-off.
const tieTol = 1e-9

// Discordance compares an estimated ordering est with a reference ref over
// all pairs: inv counts the pairs est orders strictly against ref, tied
// those est ties (|Δ| ≤ 1e-9) while ref orders them. Pairs ref ties count
// in neither.
func Discordance(est, ref []float64) (inv, tied int) {
	if len(est) != len(ref) {
		panic(fmt.Sprintf("study: Discordance of %d and %d values", len(est), len(ref)))
	}
	for i := range est {
		for j := i + 1; j < len(est); j++ {
			dr := ref[i] - ref[j]
			if math.Abs(dr) <= tieTol {
				continue
			}
			de := est[i] - est[j]
			switch {
			case math.Abs(de) <= tieTol:
				tied++
			case (de > 0) != (dr > 0):
				inv++
			}
		}
	}
	return inv, tied
}

// spearman is Spearman's ρ of x and y with values within tieTol of their
// neighbour in sorted order tied (chained runs share their average rank),
// so that round-off in a fit does not split a tie. NaN when either side is
// constant.
func spearman(x, y []float64) float64 {
	return stats.Pearson(stats.Ranks(x, tieTol), stats.Ranks(y, tieTol))
}

func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// roundsCSVHeader are the columns of rounds.csv.
var roundsCSVHeader = []string{
	"rounds", "comparisons",
	"swiss_inversions", "swiss_inversions_sd", "random_inversions", "random_inversions_sd",
	"swiss_spearman", "random_spearman", "swiss_tied_pairs", "random_tied_pairs",
	"swiss_latent_inversions", "random_latent_inversions",
}

// CSV renders the rows; NaN (a column that does not apply) is empty.
func (r RoundsResult) CSV() []byte {
	var rows [][]string
	for _, x := range r.Rows {
		rows = append(rows, []string{
			strconv.Itoa(x.Rounds), num(x.Comparisons, 2),
			num(x.SwissInversions, 2), num(x.SwissInversionsSD, 2), num(x.RandomInversions, 2), num(x.RandomInversionsSD, 2),
			num(x.SwissSpearman, 5), num(x.RandomSpearman, 5), num(x.SwissTied, 2), num(x.RandomTied, 2),
			num(x.SwissLatentInversions, 2), num(x.RandomLatentInversions, 2),
		})
	}
	return csvBytes(roundsCSVHeader, rows)
}

// Text is the printed table.
func (r RoundsResult) Text() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Swiss vs random scheduling against the exhaustive Bradley–Terry ranking (paper App. D.2)\n")
	fmt.Fprintf(&b, "source: %s\n", r.Source)
	fmt.Fprintf(&b, "queries: %d, candidates: %s, pairs: %s, exhaustive judgments: %s per query\n",
		r.Queries, numAuto(r.MeanN), numAuto(r.MeanPairs), numAuto(r.MeanJudgments))
	if len(r.Skipped) > 0 {
		var some []string
		for _, s := range r.Skipped[:min(5, len(r.Skipped))] {
			some = append(some, fmt.Sprintf("%s (%d of %d pairs)", s.Query, s.PairsJudged, s.PairsExpected))
		}
		if len(r.Skipped) > 5 {
			some = append(some, "…")
		}
		fmt.Fprintf(&b, "skipped %d queries without every pair judged: %s\n", len(r.Skipped), strings.Join(some, ", "))
	}
	latent := !math.IsNaN(r.ExhaustiveLatentInversions)
	if latent {
		fmt.Fprintf(&b, "the exhaustive ranking itself has %s inversions against the latent truth\n", num(r.ExhaustiveLatentInversions, 1))
	}
	fmt.Fprintf(&b, "inversions: pairs ordered against the exhaustive ranking, mean over queries (ties count ½)\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "R\tcomparisons\tswiss inv\t±sd\trandom inv\t±sd\tswiss ρ\trandom ρ\t"
	if latent {
		head += "swiss inv (latent)\trandom inv (latent)\t"
	}
	fmt.Fprintln(tw, head)
	for _, x := range r.Rows {
		line := fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t", x.Rounds, num(x.Comparisons, 1),
			num(x.SwissInversions, 1), num(x.SwissInversionsSD, 1), num(x.RandomInversions, 1), num(x.RandomInversionsSD, 1),
			num(x.SwissSpearman, 4), num(x.RandomSpearman, 4))
		if latent {
			line += fmt.Sprintf("%s\t%s\t", num(x.SwissLatentInversions, 1), num(x.RandomLatentInversions, 1))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	return b.String()
}

// Chart is the figure (paper Fig. 7): mean inversions against R for both
// schedules.
func (r RoundsResult) Chart() chart.Line {
	xs := make([]float64, len(r.Rows))
	sw := make([]float64, len(r.Rows))
	rd := make([]float64, len(r.Rows))
	for i, x := range r.Rows {
		xs[i], sw[i], rd[i] = float64(x.Rounds), x.SwissInversions, x.RandomInversions
	}
	unit := "queries"
	if !math.IsNaN(r.ExhaustiveLatentInversions) {
		unit = "simulated queries"
	}
	return chart.Line{
		Title:  fmt.Sprintf("Inversions vs the exhaustive ranking (%d %s, n = %s)", r.Queries, unit, numAuto(r.MeanN)),
		XLabel: "Swiss rounds R (random: as many comparisons)",
		YLabel: fmt.Sprintf("mean inversions (of %s pairs)", numAuto(r.MeanPairs)),
		Series: []chart.Series{
			{Name: "Swiss tournament", X: xs, Y: sw},
			{Name: "random pairs", X: xs, Y: rd},
		},
		Points: true, YFromZero: true,
	}
}

// Files renders rounds.csv, rounds.png and rounds.svg.
func (r RoundsResult) Files() (map[string][]byte, error) {
	png, svg, err := chart.RenderBoth(r.Chart(), chart.DefaultWidth, chart.DefaultHeight)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"rounds.csv": r.CSV(), "rounds.png": png, "rounds.svg": svg}, nil
}
