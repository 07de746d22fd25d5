package topics

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
)

// handTree builds
//
//	Algebra ─┬─ Polynomials ─┬─ Roots
//	         │               └─ Vieta
//	         └─ Functions
//	Geometry ── Triangles ─┬─ Similar
//	                       └─ Roots          (the DAG node "roots" again)
//	Number Theory
//
// in this order; "roots" has two parents.
func handTree(t *testing.T) *ontology.Tree {
	t.Helper()
	d := &ontology.DAG{
		Nodes: []ontology.Node{
			{ID: "alg", Label: "Algebra"}, {ID: "geo", Label: "Geometry"}, {ID: "nt", Label: "Number Theory"},
			{ID: "poly", Label: "Polynomials"}, {ID: "fun", Label: "Functions"},
			{ID: "roots", Label: "Roots"}, {ID: "vieta", Label: "Vieta"},
			{ID: "tri", Label: "Triangles"}, {ID: "sim", Label: "Similar"},
		},
		Edges: []ontology.Edge{
			{Parent: "alg", Child: "poly"}, {Parent: "alg", Child: "fun"},
			{Parent: "poly", Child: "roots"}, {Parent: "poly", Child: "vieta"},
			{Parent: "geo", Child: "tri"}, {Parent: "tri", Child: "sim"}, {Parent: "tri", Child: "roots"},
		},
	}
	tr, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func node(t *testing.T, tr *ontology.Tree, path string) int {
	t.Helper()
	i, ok := tr.Lookup(strings.ReplaceAll(path, "/", ontology.PathSep))
	if !ok {
		t.Fatalf("no node %q", path)
	}
	return i
}

// scripted scores a tag by the score given for its tree path (0 if none),
// and records every call as the paths of its tags.
type scripted struct {
	tr     *ontology.Tree
	scores map[string]float64
	calls  [][]string
	err    error
	count  int // scores to return if > 0 (a wrong count)
}

func (s *scripted) Score(_ context.Context, _ Text, tags []Tag) ([]float64, error) {
	var call []string
	out := make([]float64, len(tags))
	for k, tag := range tags {
		p := strings.ReplaceAll(s.tr.Path(tag.Node), ontology.PathSep, "/")
		if tag.Label != s.tr.Label(tag.Node) {
			return nil, fmt.Errorf("tag %d: label %q for node %q", k, tag.Label, p)
		}
		call = append(call, p)
		out[k] = s.scores[p]
	}
	s.calls = append(s.calls, call)
	if s.err != nil {
		return nil, s.err
	}
	if s.count > 0 {
		return out[:s.count], nil
	}
	return out, nil
}

func paths(tr *ontology.Tree, nodes []int) []string {
	out := make([]string, len(nodes))
	for k, n := range nodes {
		out[k] = strings.ReplaceAll(tr.Path(n), ontology.PathSep, "/")
	}
	return out
}

func TestAssignTraversal(t *testing.T) {
	tr := handTree(t)
	ctx := context.Background()
	cases := []struct {
		name       string
		scores     map[string]float64
		topics     []string
		wantScores []float64
		calls      [][]string
	}{
		{
			name: "keeps children at or above tau, drops ancestors of kept nodes",
			scores: map[string]float64{
				"alg": 10, "geo": 8.5, "nt": 8.4, // 8.5/10 = 0.85 kept, 0.84 dropped
				"alg/poly": 1, "alg/fun": 0.2,
			},
			// At the root the domains are scored alone: alg and geo kept.
			// At alg: alg 10, poly 1, fun 0.2 → no child ≥ 0.85·10: alg is
			// a leaf. At geo: geo 8.5, tri 0 → geo is a leaf.
			topics:     []string{"alg", "geo"},
			wantScores: []float64{1, 0.85},
			calls: [][]string{
				{"alg", "geo", "nt"},
				{"alg", "alg/poly", "alg/fun"},
				{"geo", "geo/tri"},
			},
		},
		{
			name: "descends breadth-first and keeps the most specific",
			scores: map[string]float64{
				"alg": 1, "geo": 0.1, "nt": 0,
				"alg/poly": 2, "alg/fun": 1.8, // both ≥ 0.85·2
				"alg/poly/roots": 4, "alg/poly/vieta": 1, // roots kept, vieta not
			},
			topics:     []string{"alg/poly/roots", "alg/fun"},
			wantScores: []float64{1, 0.9},
			calls: [][]string{
				{"alg", "geo", "nt"},
				{"alg", "alg/poly", "alg/fun"},
				{"alg/poly", "alg/poly/roots", "alg/poly/vieta"},
				// alg/fun and alg/poly/roots have no children: not scored.
			},
		},
		{
			name: "a node whose children all fall below tau is a leaf",
			scores: map[string]float64{
				"geo": 1, "geo/tri": 3, "geo/tri/sim": 2.5, "geo/tri/roots": 2.4,
			},
			topics:     []string{"geo/tri"},
			wantScores: []float64{1},
			calls: [][]string{
				{"alg", "geo", "nt"},
				{"geo", "geo/tri"},
				{"geo/tri", "geo/tri/sim", "geo/tri/roots"},
			},
		},
		{
			name: "a duplicated DAG node is kept in each context",
			scores: map[string]float64{
				"alg": 1, "geo": 1, "alg/poly": 1, "alg/poly/roots": 1, "geo/tri": 1, "geo/tri/roots": 1,
			},
			// alg/fun, vieta and sim score 0: dropped.
			topics:     []string{"alg/poly/roots", "geo/tri/roots"},
			wantScores: []float64{1, 1},
		},
		{
			name:   "a maximum of 0 keeps nothing",
			scores: map[string]float64{},
			topics: nil,
			calls:  [][]string{{"alg", "geo", "nt"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &scripted{tr: tr, scores: c.scores}
			a, err := Assign(ctx, tr, s, Text{Statement: "p", Solution: "s"}, DefaultTau, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, want := paths(tr, a.Topics), c.topics
			if len(got) == 0 && len(want) == 0 {
				got, want = nil, nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("topics %v, want %v", got, want)
			}
			for k := 1; k < len(a.Topics); k++ {
				if a.Topics[k-1] >= a.Topics[k] {
					t.Fatalf("topics not sorted by tree index: %v", a.Topics)
				}
			}
			if c.wantScores != nil && !reflect.DeepEqual(a.Scores, c.wantScores) {
				t.Errorf("scores %v, want %v", a.Scores, c.wantScores)
			}
			if len(a.Scores) != len(a.Topics) {
				t.Errorf("%d scores for %d topics", len(a.Scores), len(a.Topics))
			}
			if c.calls != nil && !reflect.DeepEqual(s.calls, c.calls) {
				t.Errorf("calls %v, want %v", s.calls, c.calls)
			}
			if a.Calls != len(s.calls) {
				t.Errorf("Calls = %d, scorer saw %d", a.Calls, len(s.calls))
			}
		})
	}
}

func TestAssignVisited(t *testing.T) {
	tr := handTree(t)
	s := &scripted{tr: tr, scores: map[string]float64{"alg": 1, "alg/poly": 1, "alg/fun": 1, "alg/poly/roots": 1}}
	a, err := Assign(context.Background(), tr, s, Text{}, DefaultTau, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Visited: root, alg, poly, fun, roots. Calls: root, alg, poly (fun and
	// roots have no children).
	if a.Visited != 5 || a.Calls != 3 {
		t.Fatalf("Visited %d Calls %d, want 5 and 3", a.Visited, a.Calls)
	}
	if got := paths(tr, a.Topics); !reflect.DeepEqual(got, []string{"alg/poly/roots", "alg/fun"}) {
		t.Fatalf("topics %v", got)
	}
}

func TestAssignErrors(t *testing.T) {
	tr := handTree(t)
	ctx := context.Background()
	all := map[string]float64{"alg": 1, "geo": 1, "nt": 1, "alg/poly": 1, "alg/fun": 1, "geo/tri": 1}

	// The runaway guard: this traversal needs 5 calls (root, alg, geo,
	// poly, tri; nt, fun and the leaves have no children to score).
	s := &scripted{tr: tr, scores: all}
	a, err := Assign(ctx, tr, s, Text{}, DefaultTau, 2)
	if !errors.Is(err, ErrTooManyCalls) {
		t.Fatalf("err = %v, want ErrTooManyCalls", err)
	}
	if a.Calls != 2 || len(s.calls) != 2 || a.Topics != nil {
		t.Fatalf("after the guard: %+v, scorer calls %d", a, len(s.calls))
	}
	if _, err := Assign(ctx, tr, &scripted{tr: tr, scores: all}, Text{}, DefaultTau, 4); !errors.Is(err, ErrTooManyCalls) {
		t.Fatalf("4 calls allowed: got %v, want ErrTooManyCalls", err)
	}
	if a, err := Assign(ctx, tr, &scripted{tr: tr, scores: all}, Text{}, DefaultTau, 5); err != nil || a.Calls != 5 {
		t.Fatalf("5 calls allowed: %+v, %v", a, err)
	}

	boom := errors.New("boom")
	if _, err := Assign(ctx, tr, &scripted{tr: tr, scores: all, err: boom}, Text{}, DefaultTau, 0); !errors.Is(err, boom) {
		t.Fatalf("scorer error: got %v", err)
	}
	if _, err := Assign(ctx, tr, &scripted{tr: tr, scores: all, count: 2}, Text{}, DefaultTau, 0); err == nil {
		t.Fatal("a wrong score count was accepted")
	}
	if _, err := Assign(ctx, tr, &scripted{tr: tr, scores: map[string]float64{"alg": -1}}, Text{}, DefaultTau, 0); err == nil {
		t.Fatal("a negative score was accepted")
	}
	for _, tau := range []float64{0, -0.5, 1.5} {
		if _, err := Assign(ctx, tr, &scripted{tr: tr, scores: all}, Text{}, tau, 0); err == nil {
			t.Errorf("tau %v accepted", tau)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Assign(cctx, tr, &scripted{tr: tr, scores: all}, Text{}, DefaultTau, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v", err)
	}
}

func TestMainDomain(t *testing.T) {
	tr := handTree(t)
	n := func(p string) int { return node(t, tr, p) }
	cases := []struct {
		name   string
		topics []int
		want   string
	}{
		{"none", nil, ""},
		{"one", []int{n("geo/tri/sim")}, "geo"},
		{"most topics wins", []int{n("alg/fun"), n("geo/tri/sim"), n("geo/tri/roots")}, "geo"},
		{"tie: Algebra before Geometry", []int{n("geo/tri"), n("alg/fun")}, "alg"},
		{"tie: Geometry before Number Theory", []int{n("nt"), n("geo/tri")}, "geo"},
		{"a domain itself counts", []int{n("nt"), n("nt"), n("alg/fun")}, "nt"},
	}
	for _, c := range cases {
		got := MainDomain(tr, c.topics)
		if c.want == "" {
			if got != -1 {
				t.Errorf("%s: got %d, want -1", c.name, got)
			}
			continue
		}
		if got != n(c.want) {
			t.Errorf("%s: got %q, want %q", c.name, tr.ID(got), c.want)
		}
	}

	// Domains whose labels are not among the five rank after them, in tree
	// order.
	d := &ontology.DAG{Nodes: []ontology.Node{
		{ID: "x", Label: "Topology"}, {ID: "y", Label: "Logic"}, {ID: "c", Label: "Calculus and Analysis"},
	}}
	tr2, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := tr2.Lookup("x")
	y, _ := tr2.Lookup("y")
	cc, _ := tr2.Lookup("c")
	if got := MainDomain(tr2, []int{y, x}); got != x {
		t.Errorf("unknown labels: got %s, want x", tr2.ID(got))
	}
	if got := MainDomain(tr2, []int{x, cc}); got != cc {
		t.Errorf("known label first: got %s, want c", tr2.ID(got))
	}
}

func TestDomainLabels(t *testing.T) {
	d := &ontology.DAG{Nodes: []ontology.Node{{ID: "x", Label: "Topology"}, {ID: "nt", Label: "Number Theory"}, {ID: "a", Label: "Algebra"}}}
	tree, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	got := DomainLabels(tree)
	want := []string{"Algebra", "Number Theory", "Topology"}
	if !slices.Equal(got, want) {
		t.Errorf("DomainLabels = %v, want %v", got, want)
	}
}
