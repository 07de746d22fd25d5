package topics

import (
	"slices"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
)

func TestKeywordShare(t *testing.T) {
	kw := []string{"x"}
	for _, c := range []struct {
		name   string
		d      *ontology.DAG
		topics int
		share  float64
	}{
		{"domains only", &ontology.DAG{Nodes: []ontology.Node{{ID: "a", Label: "Algebra", Keywords: kw}}}, 0, 0},
		{"label-only", &ontology.DAG{
			Nodes: []ontology.Node{{ID: "a", Label: "Algebra", Keywords: kw}, {ID: "p", Label: "Polynomials"}, {ID: "r", Label: "Roots"}},
			Edges: []ontology.Edge{{Parent: "a", Child: "p"}, {Parent: "p", Child: "r"}},
		}, 2, 0},
		// The domain's keywords do not count; "r" under two parents counts
		// once.
		{"half, a topic with two parents once", &ontology.DAG{
			Nodes: []ontology.Node{{ID: "a", Label: "Algebra", Keywords: kw}, {ID: "g", Label: "Geometry"},
				{ID: "p", Label: "Polynomials", Keywords: kw}, {ID: "r", Label: "Roots"}},
			Edges: []ontology.Edge{{Parent: "a", Child: "p"}, {Parent: "a", Child: "r"}, {Parent: "g", Child: "r"}},
		}, 2, 0.5},
	} {
		tr, err := ontology.BuildTree(c.d)
		if err != nil {
			t.Fatal(err)
		}
		n, s := KeywordShare(tr)
		if n != c.topics || s != c.share {
			t.Errorf("%s: KeywordShare = %d, %v; want %d, %v", c.name, n, s, c.topics, c.share)
		}
	}
	if _, s := KeywordShare(defaultTree(t)); s < MinKeywordShare {
		t.Errorf("the default ontology's keyword share %v is under MinKeywordShare", s)
	}
	if _, s := KeywordShare(labelOnlyTree(t)); s >= MinKeywordShare {
		t.Errorf("the label-only ontology's keyword share %v passes MinKeywordShare", s)
	}
}

func TestPlausibleShare(t *testing.T) {
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{
		{0, 1, 1}, {1, 1, 1},
		{2, 2.0 / 3, 2.0 / 3},
		{5, 0.437, 0.438},       // the five domains: 1/H(5) = 60/137
		{6608, 0.106, 0.107},    // MSC2020's leaves: 23.5% is far above
		{10500, 0.1016, 0.1017}, // the paper's ontology
	} {
		if got := PlausibleShare(c.n); got < c.lo || got > c.hi {
			t.Errorf("PlausibleShare(%d) = %v, want in [%v, %v]", c.n, got, c.lo, c.hi)
		}
	}
}

func TestTopicsAtDepth(t *testing.T) {
	// handTree: 3 domains; Polynomials, Functions, Triangles; Roots (twice,
	// one DAG node), Vieta, Similar.
	if got, want := TopicsAtDepth(handTree(t)), []int{0, 3, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("TopicsAtDepth = %v, want %v", got, want)
	}
}
