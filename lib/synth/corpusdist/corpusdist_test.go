package corpusdist

import (
	"fmt"
	"math"
	"slices"
	"testing"

	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/summtok"
)

func newGen(t *testing.T, seed uint64) (*Generator, *ontology.Tree) {
	t.Helper()
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(tree, seed, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return g, tree
}

// TestDeterministic: a document depends only on (seed, i): two generators
// agree, the order of generation does not matter, and another seed differs.
func TestDeterministic(t *testing.T) {
	const n = 2000
	g1, _ := newGen(t, 7)
	g2, _ := newGen(t, 7)
	a := g1.Docs(n)
	for i := n - 1; i >= 0; i-- {
		if b := g2.Doc(i); fmt.Sprint(b) != fmt.Sprint(a[i]) {
			t.Fatalf("doc %d differs between generators: %+v vs %+v", i, a[i], b)
		}
	}
	if fmt.Sprint(g1.Docs(n/2)) != fmt.Sprint(a[:n/2]) {
		t.Fatal("the first k documents of an n-document corpus are not the k-document corpus")
	}
	g3, _ := newGen(t, 8)
	same := 0
	for i := range 100 {
		if fmt.Sprint(g3.Doc(i)) == fmt.Sprint(a[i]) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of 100 documents are equal under seeds 7 and 8", same)
	}
}

// TestDocFor: labels drawn by id depend only on (seed, id), keep the id,
// and have Doc's shape (the same draw, from another stream).
func TestDocFor(t *testing.T) {
	g1, _ := newGen(t, 7)
	g2, _ := newGen(t, 7)
	const n = 20000
	topics, noIdea, distinct := 0, 0, map[string]bool{}
	for i := range n {
		id := fmt.Sprintf("synth-%07d", i)
		a, b := g1.DocFor(id), g2.DocFor(id)
		if fmt.Sprint(a) != fmt.Sprint(b) || a.ID != id {
			t.Fatalf("DocFor(%q): %+v, then %+v", id, a, b)
		}
		topics += len(a.Topics)
		if a.NoCoreIdea {
			noIdea++
		}
		distinct[fmt.Sprint(a.Topics, a.Tokens)] = true
	}
	if mean := float64(topics) / n; mean < 1.45 || mean > 1.7 {
		t.Errorf("mean topics per document %.3f, want about 1.57 as Doc's", mean)
	}
	if share := float64(noIdea) / n; share < 0.02 || share > 0.04 {
		t.Errorf("no core idea for %.3f of documents, want about 0.03", share)
	}
	if len(distinct) < n*99/100 {
		t.Errorf("%d distinct label sets among %d ids", len(distinct), n)
	}
}

// TestShape checks the distribution's documented shape on 20,000 documents.
func TestShape(t *testing.T) {
	const n = 20000
	g, tree := newGen(t, 1)
	ids := map[string]bool{}
	var topics, deep, noIdea, tokens, withIdea int
	sizes := make([]int, 5)
	domains := map[string]int{}
	for i := range n {
		d := g.Doc(i)
		if ids[d.ID] || len(d.ID) != 16 {
			t.Fatalf("doc %d: id %q repeated or not 16 hex digits", i, d.ID)
		}
		ids[d.ID] = true
		if len(d.Topics) < 1 || len(d.Topics) > 4 || !slices.IsSorted(d.Topics) {
			t.Fatalf("doc %d: topics %v", i, d.Topics)
		}
		sizes[len(d.Topics)]++
		for _, u := range d.Topics {
			topics++
			if tree.Depth(u) >= 3 {
				deep++
			}
			domains[tree.Label(tree.Domain(u))]++
			for _, v := range d.Topics {
				if u != v && tree.IsAncestor(u, v) {
					t.Fatalf("doc %d: topic %s is an ancestor of %s", i, tree.Path(u), tree.Path(v))
				}
			}
		}
		if d.NoCoreIdea {
			noIdea++
			if d.CoreIdea != "" || d.Tokens != nil {
				t.Fatalf("doc %d: no core idea but text %q tokens %v", i, d.CoreIdea, d.Tokens)
			}
			continue
		}
		if w := len(summtok.Tokens(d.CoreIdea)); w == 0 {
			t.Fatalf("doc %d: core idea %q has no tokens", i, d.CoreIdea)
		}
		if fmt.Sprint(d.Tokens) != fmt.Sprint(summtok.Set(d.CoreIdea)) {
			t.Fatalf("doc %d: tokens %v are not summtok.Set(%q)", i, d.Tokens, d.CoreIdea)
		}
		tokens += len(d.Tokens)
		withIdea++
	}
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.3f, want %.3f ± %.3f", what, got, want, tol)
		}
	}
	near("share of single-topic documents", float64(sizes[1])/n, 0.55, 0.1)
	near("share without a core idea", float64(noIdea)/n, 0.03, 0.01)
	near("mean tokens per core idea", float64(tokens)/float64(withIdea), 10, 3)
	if f := float64(deep) / float64(topics); f < 0.75 {
		t.Errorf("only %.2f of topics at depth ≥ 3", f)
	}
	near("Algebra's share of topics", float64(domains["Algebra"])/float64(topics), 0.30, 0.05)
	near("Calculus and Analysis's share of topics", float64(domains["Calculus and Analysis"])/float64(topics), 0.10, 0.05)
	t.Logf("topic set sizes %v, domains %v, mean tokens %.1f", sizes[1:], domains, float64(tokens)/float64(withIdea))
}

func TestBadParams(t *testing.T) {
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*Params){
		"no domain":  func(p *Params) { p.DomainShare = map[string]float64{"Topology": 1} },
		"word probs": func(p *Params) { p.FuncWord, p.TopicWord = 0.8, 0.4 },
		"lengths":    func(p *Params) { p.MinWords, p.MaxWords = 10, 5 },
		"vocab":      func(p *Params) { p.Vocab = 1 << 20 },
	} {
		p := DefaultParams()
		edit(&p)
		if _, err := New(tree, 1, p); err == nil {
			t.Errorf("%s: New accepted %+v", name, p)
		}
	}
}
