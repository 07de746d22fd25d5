// Package topics assigns ontology topics to a problem (SPEC §3 "Topic
// assignment", paper §3.2.2): a top-down traversal of an ontology tree that
// asks a Scorer, at each visited node, how relevant the node and its children
// are to the problem, and keeps the children that score close to the best.
// The traversal is shared by every backend — an LLM behind prompt F.1 or the
// offline Lexical scorer of this package — and is pure: no I/O, no logging.
package topics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/saber-math/saber/lib/ontology"
)

// Defaults of the traversal.
const (
	// DefaultTau is the threshold τ on normalised scores (paper §3.2.2).
	DefaultTau = 0.85
	// DefaultMaxCalls bounds the scorer calls for one text, a guard against
	// a runaway traversal; Assign uses it when given maxCalls ≤ 0.
	DefaultMaxCalls = 200
)

// ErrTooManyCalls is returned (wrapped) by Assign when a text needs more
// scorer calls than allowed.
var ErrTooManyCalls = errors.New("topics: too many scorer calls")

// Text is what is tagged: a problem statement and its solution.
type Text struct {
	Statement, Solution string
}

// Tag is one candidate topic shown to a Scorer: the tree node, its label and
// its keywords (as in the ontology; the keywords may be nil).
type Tag struct {
	Node     int
	Label    string
	Keywords []string
}

// Scorer scores candidate tags for a text: one score per tag, in the order of
// tags, on any non-negative scale (Assign divides by the maximum). An error
// aborts the text's assignment. Implementations must be safe for concurrent
// use if Assign is called concurrently with one Scorer.
type Scorer interface {
	Score(ctx context.Context, text Text, tags []Tag) ([]float64, error)
}

// Assignment is the result of Assign for one text.
type Assignment struct {
	// Topics are the most specific kept nodes (no other kept node lies
	// below them), sorted by tree index.
	Topics []int
	// Scores holds, for each topic, its normalised score (score divided by
	// the maximum of its call) when it was kept.
	Scores []float64
	// Calls is the number of scorer calls made.
	Calls int
	// Visited is the number of nodes visited: the root and every kept node.
	Visited int
}

// Assign tags text with topics of t, top-down from the root (SPEC §3):
//
//   - At a visited node n with children, the scorer gets n and its children
//     as tags, n first (at the virtual root: the children only, the domains).
//     Scores are divided by their maximum; a child whose normalised score is
//     ≥ tau is kept and visited in turn. Nodes are visited breadth-first,
//     children in tree order, so the result is deterministic.
//   - A node whose children all fall below tau, or whose call's maximum is 0,
//     is a leaf of the assignment; so is a kept node without children, which
//     is not scored.
//   - Finally every kept node with a kept descendant is dropped: the topics
//     are the most specific kept nodes.
//
// tau must be in (0, 1] (DefaultTau is 0.85). maxCalls bounds the scorer
// calls for this text (≤ 0 means DefaultMaxCalls); needing more is an error
// wrapping ErrTooManyCalls. A scorer error, a score count that differs from
// the tag count, or a negative or non-finite score is returned as an error,
// as is ctx's error once it is done. On error the Assignment holds only
// Calls and Visited so far.
func Assign(ctx context.Context, t *ontology.Tree, s Scorer, text Text, tau float64, maxCalls int) (Assignment, error) {
	if !(tau > 0 && tau <= 1) {
		return Assignment{}, fmt.Errorf("topics: tau %v is not in (0, 1]", tau)
	}
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCalls
	}
	var a Assignment
	norm := make(map[int]float64) // kept node → normalised score when kept
	queue := []int{t.Root()}
	var tags []Tag
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		a.Visited++
		kids := t.Children(n)
		if len(kids) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Assignment{Calls: a.Calls, Visited: a.Visited}, err
		}
		if a.Calls == maxCalls {
			return Assignment{Calls: a.Calls, Visited: a.Visited},
				fmt.Errorf("%w: more than %d for one text", ErrTooManyCalls, maxCalls)
		}
		tags = tags[:0]
		first := 0 // index of the first child among the tags
		if n != t.Root() {
			tags = append(tags, tagOf(t, n))
			first = 1
		}
		for _, c := range kids {
			tags = append(tags, tagOf(t, c))
		}
		a.Calls++
		scores, err := s.Score(ctx, text, tags)
		if err != nil {
			return Assignment{Calls: a.Calls, Visited: a.Visited}, fmt.Errorf("topics: score %q: %w", t.Path(n), err)
		}
		if len(scores) != len(tags) {
			return Assignment{Calls: a.Calls, Visited: a.Visited},
				fmt.Errorf("topics: score %q: %d scores for %d tags", t.Path(n), len(scores), len(tags))
		}
		best := 0.0
		for _, v := range scores {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return Assignment{Calls: a.Calls, Visited: a.Visited},
					fmt.Errorf("topics: score %q: invalid score %v", t.Path(n), v)
			}
			best = max(best, v)
		}
		if best == 0 {
			continue
		}
		for k, c := range kids {
			if v := scores[first+k] / best; v >= tau {
				norm[c] = v
				queue = append(queue, c)
			}
		}
	}

	// The kept set is closed upwards (a node is kept only after its parent
	// was), so a kept node has a kept descendant iff it has a kept child.
	hasKeptChild := make(map[int]bool, len(norm))
	for c := range norm {
		hasKeptChild[t.Parent(c)] = true
	}
	for c := range norm {
		if !hasKeptChild[c] {
			a.Topics = append(a.Topics, c)
		}
	}
	sort.Ints(a.Topics)
	a.Scores = make([]float64, len(a.Topics))
	for k, c := range a.Topics {
		a.Scores[k] = norm[c]
	}
	return a, nil
}

func tagOf(t *ontology.Tree, n int) Tag {
	return Tag{Node: n, Label: t.Label(n), Keywords: t.Keywords(n)}
}

// domainOrder is the tie order of MainDomain (SPEC §3 "Pairs and selection").
var domainOrder = []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}

// DomainLabels returns the labels of the tree's top-level domains in
// MainDomain's tie order: the five of SPEC §3 first (those present), then
// any others in tree order, each once.
func DomainLabels(t *ontology.Tree) []string {
	var known, other []string
	have := map[string]bool{}
	for _, d := range t.Children(t.Root()) {
		have[t.Label(d)] = true
	}
	for _, l := range domainOrder {
		if have[l] {
			known = append(known, l)
			delete(have, l)
		}
	}
	for _, d := range t.Children(t.Root()) {
		if l := t.Label(d); have[l] {
			other = append(other, l)
			delete(have, l)
		}
	}
	return append(known, other...)
}

// MainDomain returns the top-level domain (the depth-1 node) holding most of
// topics, or −1 when there are none. Ties go to the domain that comes first
// in the order Algebra, Geometry, Number Theory, Combinatorics, Calculus and
// Analysis (matched by label); domains with other labels come after those,
// in tree order. A topic counts once per occurrence; the root counts for no
// domain.
func MainDomain(t *ontology.Tree, topics []int) int {
	count := make(map[int]int)
	for _, i := range topics {
		if d := t.Domain(i); d >= 0 {
			count[d]++
		}
	}
	rank := func(d int) int {
		for k, l := range domainOrder {
			if t.Label(d) == l {
				return k
			}
		}
		return len(domainOrder)
	}
	best, bestN := -1, 0
	for d, n := range count {
		switch {
		case n > bestN:
		case n == bestN && (rank(d) < rank(best) || rank(d) == rank(best) && d < best):
		default:
			continue
		}
		best, bestN = d, n
	}
	return best
}
