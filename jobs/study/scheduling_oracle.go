package study

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/saber-math/saber/lib/schedule"
	"github.com/saber-math/saber/lib/swiss"
)

// Oracle is a study-only design that no judge can run: it pairs by the
// exhaustive Bradley–Terry θ, which a scheduler would need every judgment
// to know. It measures how far the information bound lets a schedule of a
// given size go (issue 41): if even a design that knows the answer's
// ranking has more inversions than Swiss R = 20 at half its calls, no
// scheduler that learns the ranking from its own judgments is expected to
// have as few. (It spreads its calls over the whole ranking, as
// inversions want; it is no bound on a design aimed at the top 10.)
//
// Each round is a matching over the candidates: every pair not yet met
// and at most Window apart in the order by θ scores log p(1−p) (p = σ(θ_a
// − θ_b), the Fisher information of its judgment) plus Jitter times a
// Gumbel draw from the round's generator, and pairs are taken greedily by
// score, each candidate once, until ⌊Games·n/2⌋ comparisons. The jitter
// adds the longer edges that tie the ranking together (a design of only
// nearest neighbours is a chain whose far ends are poorly compared); the
// design does not depend on the outcomes, so it is fixed before any
// judgment.
type Oracle struct {
	Games  float64
	Window int
	Jitter float64
}

// Defaults of the oracle rows: at half the calls in `saber study
// scheduling --simulate --oracle`, over windows 10–150 and jitters
// 0.25–1000, the smallest |ΔnDCG@10| and within 2% of the fewest
// inversions; at Swiss R = 20's calls the same design has fewer
// inversions than Swiss R = 20, so it is no weak design
// (docs/algorithms.md#scheduling-study-issues-24-41).
const (
	DefaultOracleWindow = 40
	DefaultOracleJitter = 0.5
	// KindOracle is the Kind of the oracle rows.
	KindOracle = "oracle"
)

// OracleSchedulers are the rows of --oracle, window and jitter as given
// (0: the defaults): the oracle at the calls of the goal (refine's 9.9
// games per candidate, under half of Swiss R = 20's) and at about Swiss
// R = 20's own (19.8 games: ⌊19.8·150/2⌋ = 1,485 calls where Swiss R = 20
// makes ~1,491).
func OracleSchedulers(window int, jitter float64) []Scheduler {
	if window == 0 {
		window = DefaultOracleWindow
	}
	if jitter == 0 {
		jitter = DefaultOracleJitter
	}
	return []Scheduler{
		{Name: "oracle, half the calls", Oracle: &Oracle{Games: schedule.DefaultGames, Window: window, Jitter: jitter}},
		{Name: "oracle, Swiss R=20's calls", Oracle: &Oracle{Games: 19.8, Window: window, Jitter: jitter}},
	}
}

// Design returns the oracle's comparisons of candidates ranked by theta,
// round by round (Round numbered from 1), one coin per match for Sample 1
// as in lib/swiss. It is deterministic in (theta, rnd). It panics on a
// Window < 1 or Games < 0, a caller's mistake.
func (o Oracle) Design(theta []float64, rnd swiss.RoundRand) []swiss.Match {
	if o.Window < 1 || !(o.Games >= 0) {
		panic(fmt.Sprintf("study: oracle window %d, games %v", o.Window, o.Games))
	}
	n := len(theta)
	budget := int(o.Games * float64(n) / 2)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(theta[b], theta[a]) })
	met := make([]bool, n*n)
	type pair struct {
		a, b  int
		score float64
	}
	var out []swiss.Match
	for r := 1; len(out) < budget; r++ {
		rng := rnd(r)
		var cs []pair
		for i, a := range order {
			for _, b := range order[i+1 : min(n, i+1+o.Window)] {
				if met[a*n+b] {
					continue
				}
				p := 1 / (1 + math.Exp(theta[b]-theta[a]))
				u := (float64(rng.Uint64()>>11) + 0.5) / (1 << 53)
				cs = append(cs, pair{a, b, math.Log(p*(1-p)) - o.Jitter*math.Log(-math.Log(u))})
			}
		}
		slices.SortStableFunc(cs, func(x, y pair) int { return cmp.Compare(y.score, x.score) })
		placed := make([]bool, n)
		before := len(out)
		for _, c := range cs {
			if len(out) == budget {
				break
			}
			if placed[c.a] || placed[c.b] {
				continue
			}
			placed[c.a], placed[c.b] = true, true
			met[c.a*n+c.b], met[c.b*n+c.a] = true, true
			m := swiss.Match{Round: r, First: c.a, Second: c.b}
			if rng.IntN(2) == 1 {
				m.First, m.Second = m.Second, m.First
			}
			out = append(out, m)
		}
		if len(out) == before {
			break // every pair within the window has met
		}
	}
	return out
}
