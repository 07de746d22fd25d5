package study

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/stats"
)

// Item is one comparison the humans labelled: two candidates for a target
// (query), A < B by id whatever order the annotators saw them in.
type Item struct {
	Target, A, B string
}

// Verdict is a preference between an Item's candidates: the preferred
// document's id, or Tie ("").
type Verdict = string

// Tie is the Verdict of no preference.
const Tie Verdict = ""

// Score is the agreement of two verdicts (paper D.4): 1 when they are the
// same (both ties included), 0.5 when exactly one is a tie, 0 when they
// prefer different documents.
func Score(x, y Verdict) float64 {
	switch {
	case x == y:
		return 1
	case x == Tie || y == Tie:
		return 0.5
	}
	return 0
}

// System is one ranking or judging procedure whose view of an item is
// compared with the humans'.
type System struct {
	Name string
	// Answer returns the system's verdict on the pair, or ok = false and
	// the reason when it has none (the item is then excluded from this
	// system's agreement and counted under the reason).
	Answer func(target, a, b string) (v Verdict, ok bool, why string)
}

// Reasons a system has no answer.
const (
	ReasonNotJudged = "pair not judged"
	ReasonInvalid   = "judgment invalid"
	ReasonNotRated  = "candidate not rated"
)

// JudgeSystem answers from judgments: the judgment of the same target and
// the same two documents, in either sample order. Several valid judgments
// of one pair (a majority-vote run) give the majority's winner, a tie when
// the votes split evenly; invalid judgments are no answer when the pair
// has no valid one.
func JudgeSystem(name string, rows []JudgmentRow) (System, error) {
	type tally struct {
		votes          map[string]int
		valid, invalid int
	}
	byPair := map[Item]*tally{}
	for i, r := range rows {
		if r.Sample1 == r.Sample2 {
			return System{}, stage.BadInput(fmt.Errorf("%s: judgment %d of query %q compares %q with itself", name, i, r.Query, r.Sample1))
		}
		if !r.Invalid && r.Winner != r.Sample1 && r.Winner != r.Sample2 {
			return System{}, stage.BadInput(fmt.Errorf("%s: judgment %d of query %q (%s vs %s): winner %q is neither sample and the judgment is not invalid",
				name, i, r.Query, r.Sample1, r.Sample2, r.Winner))
		}
		it := itemOf(r.Query, r.Sample1, r.Sample2)
		t := byPair[it]
		if t == nil {
			t = &tally{votes: map[string]int{}}
			byPair[it] = t
		}
		if r.Invalid {
			t.invalid++
			continue
		}
		t.valid++
		t.votes[r.Winner]++
	}
	return System{Name: name, Answer: func(target, a, b string) (Verdict, bool, string) {
		t := byPair[itemOf(target, a, b)]
		switch {
		case t == nil:
			return Tie, false, ReasonNotJudged
		case t.valid == 0:
			return Tie, false, ReasonInvalid
		}
		it := itemOf(target, a, b)
		switch va, vb := t.votes[it.A], t.votes[it.B]; {
		case va > vb:
			return it.A, true, ""
		case vb > va:
			return it.B, true, ""
		}
		return Tie, true, ""
	}}, nil
}

// Ranking is each target's candidates ranked by a ratings file: rank 1 is
// the highest θ, ties in θ broken by document id.
type Ranking map[string]map[string]rated

type rated struct {
	theta float64
	rank  int
}

// NewRanking ranks ratings rows. A document rated twice for one query is
// bad input.
func NewRanking(name string, rows []RatingRow) (Ranking, error) {
	byQuery := map[string][]RatingRow{}
	for _, r := range rows {
		byQuery[r.Query] = append(byQuery[r.Query], r)
	}
	out := Ranking{}
	for q, rs := range byQuery {
		slices.SortFunc(rs, func(x, y RatingRow) int { return cmp.Or(cmp.Compare(y.Theta, x.Theta), strings.Compare(x.Doc, y.Doc)) })
		m := make(map[string]rated, len(rs))
		for i, r := range rs {
			if _, dup := m[r.Doc]; dup {
				return nil, stage.BadInput(fmt.Errorf("%s: query %s rates %s twice", name, q, r.Doc))
			}
			if math.IsNaN(r.Theta) {
				return nil, stage.BadInput(fmt.Errorf("%s: query %s: %s has θ = NaN", name, q, r.Doc))
			}
			m[r.Doc] = rated{theta: r.Theta, rank: i + 1}
		}
		out[q] = m
	}
	return out, nil
}

// Delta is |rank(a) − rank(b)| for the target, ok = false when either is
// not ranked.
func (r Ranking) Delta(target, a, b string) (int, bool) {
	m := r[target]
	x, ok1 := m[a]
	y, ok2 := m[b]
	if !ok1 || !ok2 {
		return 0, false
	}
	return max(x.rank-y.rank, y.rank-x.rank), true
}

// System answers with the higher-θ document; θ within 1e-9 is a tie.
func (r Ranking) System(name string) System {
	return System{Name: name, Answer: func(target, a, b string) (Verdict, bool, string) {
		m := r[target]
		x, ok1 := m[a]
		y, ok2 := m[b]
		if !ok1 || !ok2 {
			return Tie, false, ReasonNotRated
		}
		switch d := x.theta - y.theta; {
		case math.Abs(d) <= tieTol:
			return Tie, true, ""
		case d > 0:
			return a, true, ""
		}
		return b, true, ""
	}}
}

func verdictString(v Verdict) string {
	if v == Tie {
		return "tie"
	}
	return v
}

func itemOf(target, x, y string) Item {
	if y < x {
		x, y = y, x
	}
	return Item{Target: target, A: x, B: y}
}

// labelled is an item with its annotations, in file order.
type labelled struct {
	Item
	annotators []string
	verdicts   []Verdict
}

// AgreementConfig tunes the agreement study.
type AgreementConfig struct {
	// Deltas are the rank-difference thresholds of the Table 5 columns
	// (paper: 0, 25, 50): a column keeps items with Δ ≥ the threshold.
	Deltas []int
	// DeltaRanking gives Δ; DeltaFrom names it for the report. Nil: no
	// Table 5.
	DeltaRanking Ranking
	DeltaFrom    string
}

// Agreement is one row of Table 6 (and its Table 5 cells).
type Agreement struct {
	Name string
	// N items scored; Mean their mean score; Sum the total.
	N    int
	Mean float64
	Sum  float64
	// K is the successes the binomial test uses: Sum rounded to an integer
	// toward N/2 (see AgreementResult).
	K      int
	Lo, Hi float64 // 95% Wilson interval of Mean over N
	P      float64 // two-sided exact binomial p-value of K of N against 0.5
	// Half counts the items scored strictly between 0 and 1 (a tie on one
	// side only, or annotators who differ).
	Half int
	// Excluded counts the items without an answer, by reason.
	Excluded map[string]int
	// ByDelta[i] is agreement over the items with Δ ≥ Deltas[i].
	ByDelta []Cell
}

// Cell is an agreement over a subset.
type Cell struct {
	N    int
	Mean float64
}

// AgreementResult is the whole study.
type AgreementResult struct {
	Labels     int      // label rows
	Items      int      // distinct items
	Annotators []string // sorted
	MultiItems int      // items labelled by ≥ 2 annotators
	Deltas     []int
	DeltaFrom  string
	NoDelta    int // items without a Δ (a candidate not in the Δ ranking)
	Inter      Agreement
	Systems    []Agreement
	// PerItem is every item with the humans' and each system's verdicts,
	// for auditing (agreement_items.csv).
	PerItem []ItemRow
}

// ItemRow is one item's detail.
type ItemRow struct {
	Item
	Humans []string // "annotator=verdict", verdict a document id or "tie"
	Delta  int      // −1: unknown
	// Answers[i] is Systems[i]'s verdict ("tie", a document id, or
	// "none: reason"); Scores[i] its score (NaN without an answer).
	Answers []string
	Scores  []float64
}

// Agreements scores each system against the human labels.
//
// Scoring. Each (system, annotator) pair of verdicts on an item scores
// Score (1 / 0.5 / 0); an item labelled by several annotators scores the
// mean over them, so every item weighs the same and n is the number of
// items, as in the paper's n = 200. An item the system has no answer for is
// excluded from its n and counted by reason.
//
// Inter-annotator agreement is over the items labelled by ≥ 2 annotators:
// each scores the mean Score over its pairs of annotators.
//
// Intervals and tests. The Wilson interval is of the mean score over n (it
// reproduces the paper's Table 6 intervals). The binomial test needs an
// integer count of successes, so half-points are rounded: k = the sum of
// scores rounded to the nearest integer, an exact half rounded toward n/2
// — the direction that never makes agreement look further from chance than
// the scores say. p is the exact two-sided binomial test of k of n against
// 0.5 (SciPy's binomtest).
func Agreements(labels []Label, systems []System, c AgreementConfig) (AgreementResult, error) {
	if len(labels) == 0 {
		return AgreementResult{}, stage.BadInput(errors.New("agreement study: no labels"))
	}
	items, err := groupLabels(labels)
	if err != nil {
		return AgreementResult{}, err
	}
	res := AgreementResult{Labels: len(labels), Items: len(items), Deltas: c.Deltas, DeltaFrom: c.DeltaFrom}
	ann := map[string]bool{}
	for _, l := range labels {
		ann[l.Annotator] = true
	}
	for a := range ann {
		res.Annotators = append(res.Annotators, a)
	}
	slices.Sort(res.Annotators)

	delta := make([]int, len(items)) // −1: unknown
	for i, it := range items {
		delta[i] = -1
		if c.DeltaRanking != nil {
			if d, ok := c.DeltaRanking.Delta(it.Target, it.A, it.B); ok {
				delta[i] = d
			} else {
				res.NoDelta++
			}
		}
	}

	// Inter-annotator.
	acc := newAccumulator("Inter-annotator", c.Deltas)
	for i, it := range items {
		if len(it.verdicts) < 2 {
			continue
		}
		res.MultiItems++
		var s float64
		pairs := 0
		for x := range it.verdicts {
			for y := x + 1; y < len(it.verdicts); y++ {
				s += Score(it.verdicts[x], it.verdicts[y])
				pairs++
			}
		}
		acc.add(s/float64(pairs), delta[i])
	}
	res.Inter = acc.finish()

	res.PerItem = make([]ItemRow, len(items))
	for i, it := range items {
		row := ItemRow{Item: it.Item, Delta: delta[i]}
		for k, a := range it.annotators {
			row.Humans = append(row.Humans, a+"="+verdictString(it.verdicts[k]))
		}
		res.PerItem[i] = row
	}
	for _, sys := range systems {
		acc := newAccumulator(sys.Name, c.Deltas)
		for i, it := range items {
			row := &res.PerItem[i]
			v, ok, why := sys.Answer(it.Target, it.A, it.B)
			if !ok {
				acc.exclude(why)
				row.Answers = append(row.Answers, "none: "+why)
				row.Scores = append(row.Scores, math.NaN())
				continue
			}
			var s float64
			for _, h := range it.verdicts {
				s += Score(v, h)
			}
			s /= float64(len(it.verdicts))
			acc.add(s, delta[i])
			row.Answers = append(row.Answers, verdictString(v))
			row.Scores = append(row.Scores, s)
		}
		res.Systems = append(res.Systems, acc.finish())
	}
	return res, nil
}

// groupLabels turns label rows into items, in order of first appearance.
// The same annotator labelling one item twice is bad input.
func groupLabels(labels []Label) ([]labelled, error) {
	index := map[Item]int{}
	var items []labelled
	type annotation struct {
		item      Item
		annotator string
	}
	seen := map[annotation]int{} // → line
	for _, l := range labels {
		it := itemOf(l.Target, l.Candidate1, l.Candidate2)
		key := annotation{it, l.Annotator}
		if line, dup := seen[key]; dup {
			return nil, stage.BadInput(fmt.Errorf("labels: annotator %q labels target %s, candidates %s and %s twice (lines %d and %d)",
				l.Annotator, l.Target, it.A, it.B, line, l.Line))
		}
		seen[key] = l.Line
		v := Tie
		switch l.Label {
		case "1":
			v = l.Candidate1
		case "2":
			v = l.Candidate2
		}
		i, ok := index[it]
		if !ok {
			i = len(items)
			index[it] = i
			items = append(items, labelled{Item: it})
		}
		items[i].annotators = append(items[i].annotators, l.Annotator)
		items[i].verdicts = append(items[i].verdicts, v)
	}
	return items, nil
}

type accumulator struct {
	a      Agreement
	deltas []int
	sums   []float64
}

func newAccumulator(name string, deltas []int) *accumulator {
	return &accumulator{a: Agreement{Name: name, Excluded: map[string]int{}, ByDelta: make([]Cell, len(deltas))}, deltas: deltas, sums: make([]float64, len(deltas))}
}

func (acc *accumulator) exclude(why string) { acc.a.Excluded[why]++ }

func (acc *accumulator) add(score float64, delta int) {
	acc.a.N++
	acc.a.Sum += score
	if score > 0 && score < 1 {
		acc.a.Half++
	}
	if delta < 0 {
		return
	}
	for i, d := range acc.deltas {
		if delta >= d {
			acc.a.ByDelta[i].N++
			acc.sums[i] += score
		}
	}
}

func (acc *accumulator) finish() Agreement {
	a := acc.a
	a.Mean, a.Lo, a.Hi, a.P = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	if a.N > 0 {
		a.Mean = a.Sum / float64(a.N)
		a.K = RoundTowardHalf(a.Sum, a.N)
		a.Lo, a.Hi = stats.Wilson(a.Mean, a.N, stats.Z95)
		a.P = stats.BinomTest(a.K, a.N, 0.5)
	}
	for i := range a.ByDelta {
		a.ByDelta[i].Mean = math.NaN()
		if a.ByDelta[i].N > 0 {
			a.ByDelta[i].Mean = acc.sums[i] / float64(a.ByDelta[i].N)
		}
	}
	return a
}

// RoundTowardHalf rounds a sum of agreement scores to the integer count of
// successes the binomial test takes: to the nearest integer, and an exact
// half (up to round-off) toward n/2, so that half-points never move the
// count away from chance.
func RoundTowardHalf(sum float64, n int) int {
	lo := math.Floor(sum + 1e-9)
	frac := sum - lo
	switch {
	case frac < 0.5-1e-9:
		return int(lo)
	case frac > 0.5+1e-9:
		return int(lo) + 1
	}
	if half := float64(n) / 2; math.Abs(lo+1-half) < math.Abs(lo-half) {
		return int(lo) + 1
	}
	return int(lo)
}

// Table6CSV has one row per system (the inter-annotator row first).
func (r AgreementResult) Table6CSV() []byte {
	header := []string{"reference", "n", "agreement", "sum", "k", "wilson_lo", "wilson_hi", "p_value", "half_scores", "excluded", "excluded_reasons"}
	var rows [][]string
	for _, a := range append([]Agreement{r.Inter}, r.Systems...) {
		rows = append(rows, []string{a.Name, strconv.Itoa(a.N), num(a.Mean, 6), num(a.Sum, 2), strconv.Itoa(a.K),
			num(a.Lo, 6), num(a.Hi, 6), pval(a.P), strconv.Itoa(a.Half), strconv.Itoa(a.excluded()), a.reasons()})
	}
	return csvBytes(header, rows)
}

// ItemsCSV has one row per item: the humans' verdicts, Δ, and each
// system's verdict and score.
func (r AgreementResult) ItemsCSV() []byte {
	header := []string{"target", "candidate_a", "candidate_b", "human", "delta"}
	for _, a := range r.Systems {
		header = append(header, a.Name, a.Name+" score")
	}
	var rows [][]string
	for _, it := range r.PerItem {
		d := ""
		if it.Delta >= 0 {
			d = strconv.Itoa(it.Delta)
		}
		row := []string{it.Target, it.A, it.B, strings.Join(it.Humans, "; "), d}
		for i := range it.Answers {
			row = append(row, it.Answers[i], num(it.Scores[i], 3))
		}
		rows = append(rows, row)
	}
	return csvBytes(header, rows)
}

// Table5CSV has one row per system and threshold.
func (r AgreementResult) Table5CSV() []byte {
	header := []string{"method", "delta_from", "delta_min", "n", "agreement"}
	var rows [][]string
	for _, a := range append([]Agreement{r.Inter}, r.Systems...) {
		for i, d := range r.Deltas {
			rows = append(rows, []string{a.Name, r.DeltaFrom, strconv.Itoa(d), strconv.Itoa(a.ByDelta[i].N), num(a.ByDelta[i].Mean, 6)})
		}
	}
	return csvBytes(header, rows)
}

func (a Agreement) excluded() int {
	n := 0
	for _, v := range a.Excluded {
		n += v
	}
	return n
}

func (a Agreement) reasons() string {
	var keys []string
	for k := range a.Excluded {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, a.Excluded[k]))
	}
	return strings.Join(parts, "; ")
}

func pval(p float64) string {
	if math.IsNaN(p) {
		return ""
	}
	return strconv.FormatFloat(p, 'g', 4, 64)
}

// Markdown is the report: how it was scored, Table 6, Table 5.
func (r AgreementResult) Markdown() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Agreement with human labels (paper App. D.4)\n\n")
	fmt.Fprintf(&b, "%d labels by %d annotators (%s) on %d items; %d items labelled by ≥ 2 annotators.\n\n",
		r.Labels, len(r.Annotators), strings.Join(r.Annotators, ", "), r.Items, r.MultiItems)
	fmt.Fprintf(&b, "Scoring: 1 when a verdict matches the human label, 0.5 when exactly one of the two is a tie, 0 otherwise; "+
		"an item labelled by several annotators scores the mean over them. Items a system has no answer for are excluded from its n and counted. "+
		"Interval: 95%% Wilson score interval of the mean over n. p: two-sided exact binomial test against 0.5 of k of n, "+
		"k = the sum of scores rounded to an integer (an exact half toward n/2).\n\n")
	fmt.Fprintf(&b, "## Agreement (Table 6)\n\n")
	fmt.Fprintf(&b, "| Reference | n | Agreement | 95%% Wilson CI | p (vs. chance) | k | excluded |\n")
	fmt.Fprintf(&b, "| --- | ---: | ---: | --- | ---: | ---: | --- |\n")
	for _, a := range append([]Agreement{r.Inter}, r.Systems...) {
		ci, p := "—", "—"
		if a.N > 0 {
			ci = fmt.Sprintf("[%.3f, %.3f]", a.Lo, a.Hi)
			p = fmtP(a.P)
		}
		ex := "0"
		if n := a.excluded(); n > 0 {
			ex = fmt.Sprintf("%d (%s)", n, a.reasons())
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %d | %s |\n", a.Name, a.N, orDash(num(a.Mean, 3)), ci, p, a.K, ex)
	}
	for _, a := range r.Systems {
		if a.N == 0 {
			fmt.Fprintf(&b, "\n%s answered none of the %d items: are its files from the run the labels were drawn from?\n", a.Name, r.Items)
		}
	}
	if len(r.Deltas) > 0 && r.DeltaFrom != "" {
		fmt.Fprintf(&b, "\n## Agreement by rank difference (Table 5)\n\n")
		fmt.Fprintf(&b, "Δ = |rank difference| of the two candidates in the %s ranking (rank 1 = highest θ).", r.DeltaFrom)
		if r.NoDelta > 0 {
			fmt.Fprintf(&b, " %d items have no Δ (a candidate not in that ranking) and are left out here.", r.NoDelta)
		}
		fmt.Fprintf(&b, "\n\n| Method |")
		for _, d := range r.Deltas {
			fmt.Fprintf(&b, " Δ ≥ %d |", d)
		}
		fmt.Fprintf(&b, "\n| --- |%s\n", strings.Repeat(" ---: |", len(r.Deltas)))
		for _, a := range append([]Agreement{r.Inter}, r.Systems...) {
			fmt.Fprintf(&b, "| %s |", a.Name)
			for _, c := range a.ByDelta {
				if c.N == 0 {
					fmt.Fprintf(&b, " — (n=0) |")
					continue
				}
				fmt.Fprintf(&b, " %.1f%% (n=%d) |", 100*c.Mean, c.N)
			}
			fmt.Fprintln(&b)
		}
	}
	return b.String()
}

func fmtP(p float64) string {
	if p >= 0.001 {
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
	s := strconv.FormatFloat(p, 'e', 2, 64) // 2.22e-15
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%s × 10^%d", mant, e)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Files renders agreement.md, agreement.csv (Table 6),
// agreement_delta.csv (Table 5) and agreement_items.csv (per item).
func (r AgreementResult) Files() map[string][]byte {
	return map[string][]byte{
		"agreement.md":        []byte(r.Markdown()),
		"agreement.csv":       r.Table6CSV(),
		"agreement_delta.csv": r.Table5CSV(),
		"agreement_items.csv": r.ItemsCSV(),
	}
}
