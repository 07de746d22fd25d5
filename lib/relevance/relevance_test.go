package relevance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/summary"
	"github.com/saber-math/saber/lib/summtok"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/lib/topics"
)

func TestCategory(t *testing.T) {
	tests := []struct {
		st, ss float64
		want   string
	}{
		{0.9, 0.3, CategoryBoth},
		{0.9, 0.211, CategoryTopic}, // a floor is passed strictly
		{0.858, 0.5, CategorySummary},
		{0.858, 0.211, ""},
		{1, 1, CategoryBoth},
		{0, 0, ""},
	}
	for _, tt := range tests {
		if got := Category(tt.st, tt.ss, 0.858, 0.211); got != tt.want {
			t.Errorf("Category(%v, %v) = %q, want %q", tt.st, tt.ss, got, tt.want)
		}
	}
}

// brute returns the pairs of query q by scoring every other document of
// the corpus, sorted by document id: what Query must return exactly.
func brute(c *Corpus, q int, tauT, tauS float64) []Pair {
	var out []Pair
	for d := range c.IDs {
		if d == q {
			continue
		}
		st := ontology.BMA(c.Tree, c.IC, c.Topics[q], c.Topics[d])
		ss := summtok.Jaccard(c.Tokens[q], c.Tokens[d])
		if cat := Category(st, ss, tauT, tauS); cat != "" {
			out = append(out, Pair{Doc: c.IDs[d], SimTopic: st, SimSumm: ss, Category: cat})
		}
	}
	return out
}

// samePairs reports how got differs from want: the same documents in the
// same order, the same categories, both similarities equal to 1e-12.
func samePairs(want, got []Pair) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d pairs by brute force, %d by the finder", len(want), len(got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Doc != g.Doc || w.Category != g.Category ||
			math.Abs(w.SimTopic-g.SimTopic) > 1e-12 || math.Abs(w.SimSumm-g.SimSumm) > 1e-12 {
			return fmt.Errorf("pair %d: brute force %+v, finder %+v", i, w, g)
		}
	}
	return nil
}

// checkExact checks every query of c against brute force, on all cores
// at once (the finder is safe for concurrent queries), and that pairs are
// symmetric. It returns the pairs by category.
func checkExact(t *testing.T, c *Corpus, tauT, tauS float64) map[string]int {
	t.Helper()
	f := NewFinder(c, tauT, tauS)
	n := len(c.IDs)
	got := make([][]Pair, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := w; q < n; q += workers {
				got[q] = f.Query(q)
				errs[q] = samePairs(brute(c, q, tauT, tauS), got[q])
			}
		}()
	}
	wg.Wait()
	index := make(map[string]int, n)
	for i, id := range c.IDs {
		index[id] = i
	}
	cats := map[string]int{}
	for q := range n {
		if errs[q] != nil {
			t.Fatalf("query %d (%s): %v", q, c.IDs[q], errs[q])
		}
		for _, p := range got[q] {
			cats[p.Category]++
			// sim_topic and sim_summ are symmetric, so is the pair.
			back := got[index[p.Doc]]
			i := sort.Search(len(back), func(i int) bool { return back[i].Doc >= c.IDs[q] })
			if i == len(back) || back[i].Doc != c.IDs[q] || back[i].SimTopic != p.SimTopic || back[i].SimSumm != p.SimSumm {
				t.Fatalf("pair %s~%s %+v has no equal pair back", c.IDs[q], p.Doc, p)
			}
		}
	}
	// Sequential queries give what the concurrent ones gave.
	for q := 0; q < n; q += max(1, n/50) {
		if err := samePairs(got[q], f.Query(q)); err != nil {
			t.Fatalf("query %d again: %v", q, err)
		}
	}
	return cats
}

// TestHandCase: a corpus small enough to state every pair by hand.
func TestHandCase(t *testing.T) {
	tree := buildTree(t, &ontology.DAG{
		Nodes: []ontology.Node{{ID: "alg"}, {ID: "quad"}, {ID: "lin"}, {ID: "geo"}, {ID: "tri"}},
		Edges: []ontology.Edge{{Parent: "alg", Child: "quad"}, {Parent: "alg", Child: "lin"}, {Parent: "geo", Child: "tri"}},
	})
	node := func(path string) int {
		n, ok := tree.Lookup(path)
		if !ok {
			t.Fatalf("no node %s", path)
		}
		return n
	}
	quad, lin, tri := node("alg > quad"), node("alg > lin"), node("geo > tri")
	c := NewCorpus(tree, map[string][]int{
		"q":  {quad},
		"d1": {quad},      // same topic, other summary: topic
		"d2": {tri},       // other domain, same summary: summary
		"d3": {quad},      // both the same: both
		"d4": {lin},       // a sibling topic under the floor, no shared token
		"d5": {lin, quad}, // q's topic and a sibling: BMA averages, under the floor
	}, map[string][]string{
		"q":  {"complete", "square"},
		"d1": {"factor"},
		"d2": {"complete", "square"},
		"d3": {"complete", "square"},
		"d6": {"complete"}, // no topics: found by its summary alone
	})
	if fmt.Sprint(c.IDs) != "[d1 d2 d3 d4 d5 d6 q]" || c.Topics[5] != nil || c.Tokens[3] != nil {
		t.Fatalf("corpus ids %v topics %v tokens %v", c.IDs, c.Topics, c.Tokens)
	}
	const tauT, tauS = 0.858, 0.211
	f := NewFinder(c, tauT, tauS)
	q := slices.Index(c.IDs, "q")
	bmaD5 := ontology.BMA(tree, c.IC, []int{quad}, []int{lin, quad})
	if bmaD5 >= tauT || bmaD5 <= 0.5 {
		t.Fatalf("BMA(q, d5) = %v, the case wants it in (0.5, floor)", bmaD5)
	}
	want := []Pair{
		{Doc: "d1", SimTopic: 1, SimSumm: 0, Category: CategoryTopic},
		{Doc: "d2", SimTopic: 0, SimSumm: 1, Category: CategorySummary},
		{Doc: "d3", SimTopic: 1, SimSumm: 1, Category: CategoryBoth},
		{Doc: "d6", SimTopic: 0, SimSumm: 0.5, Category: CategorySummary},
	}
	if err := samePairs(want, f.Query(q)); err != nil {
		t.Errorf("query q: %v\ngot %+v", err, f.Query(q))
	}
	if lin := ontology.Lin(tree, c.IC, quad, lin); lin > tauT {
		t.Errorf("Lin(quad, lin) = %v: d4 should be under the floor", lin)
	}
	checkExact(t, c, tauT, tauS)
}

func buildTree(t testing.TB, d *ontology.DAG) *ontology.Tree {
	t.Helper()
	tree, err := ontology.BuildTree(d)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// randomDAG has domains roots and n−domains further nodes, each under a
// random earlier node, and with probability multi under a second one too
// (so the tree holds it twice); chain puts every node under the one before.
func randomDAG(r *rand.Rand, n, domains int, multi float64, chain bool) *ontology.DAG {
	d := &ontology.DAG{}
	for i := range n {
		d.Nodes = append(d.Nodes, ontology.Node{ID: fmt.Sprintf("n%d", i)})
		if i < domains {
			continue
		}
		p := r.IntN(i)
		if chain {
			p = i - 1
		}
		d.Edges = append(d.Edges, ontology.Edge{Parent: fmt.Sprintf("n%d", p), Child: fmt.Sprintf("n%d", i)})
		if q := r.IntN(i); !chain && q != p && r.Float64() < multi {
			d.Edges = append(d.Edges, ontology.Edge{Parent: fmt.Sprintf("n%d", q), Child: fmt.Sprintf("n%d", i)})
		}
	}
	return d
}

// randomCorpus gives docs documents 0–4 topics, drawn mostly near a few
// popular nodes so that many pairs pass the topic floor, and 0–6 tokens of
// a vocabulary of vocab words; dup of them copy an earlier document.
// randomCorpus draws docs documents with up to maxTopics−1 topics each.
func randomCorpus(r *rand.Rand, tree *ontology.Tree, docs, vocab, maxTopics int, dup float64) *Corpus {
	tops := map[string][]int{}
	toks := map[string][]string{}
	popular := make([]int, 8)
	for i := range popular {
		popular[i] = 1 + r.IntN(tree.Len()-1)
	}
	for i := range docs {
		id := fmt.Sprintf("doc%04d", i)
		if i > 0 && r.Float64() < dup {
			src := fmt.Sprintf("doc%04d", r.IntN(i))
			if ts, ok := tops[src]; ok {
				tops[id] = ts
			}
			if ts, ok := toks[src]; ok {
				toks[id] = ts
			}
			continue
		}
		if k := r.IntN(maxTopics); k > 0 {
			var ts []int
			for range k {
				n := 1 + r.IntN(tree.Len()-1)
				if r.Float64() < 0.6 {
					// In the subtree of a popular node.
					p := popular[r.IntN(len(popular))]
					n = p
					for len(tree.Children(n)) > 0 && r.Float64() < 0.7 {
						ch := tree.Children(n)
						n = ch[r.IntN(len(ch))]
					}
				}
				ts = append(ts, n)
			}
			tops[id] = ts
		}
		if k := r.IntN(7); k > 0 {
			set := map[string]bool{}
			for range k {
				set[fmt.Sprintf("w%d", int(float64(vocab)*math.Pow(r.Float64(), 2)))] = true
			}
			var ts []string
			for w := range set {
				ts = append(ts, w)
			}
			slices.Sort(ts)
			toks[id] = ts
		}
	}
	return NewCorpus(tree, tops, toks)
}

// TestQueryEqualsBruteForce: on corpora of many shapes and at many floors
// the finder returns, for every query, exactly the pairs that scoring
// every document gives.
func TestQueryEqualsBruteForce(t *testing.T) {
	tests := []struct {
		name               string
		nodes, domains     int
		multi              float64
		chain              bool
		docs, vocab        int
		topics             int // a document has fewer; 0: 5
		dup                float64
		tauT, tauS         float64
		wantT, wantS, both bool // categories the case must produce
	}{
		{name: "paper floors", nodes: 300, domains: 5, multi: 0.2, docs: 500, vocab: 40, dup: 0.05, tauT: 0.858, tauS: 0.211, wantT: true, wantS: true, both: true},
		{name: "low floors", nodes: 300, domains: 5, multi: 0.2, docs: 300, vocab: 40, dup: 0.05, tauT: 0.3, tauS: 0.05, wantT: true, wantS: true, both: true},
		{name: "high floors", nodes: 300, domains: 5, multi: 0.2, docs: 400, vocab: 40, dup: 0.1, tauT: 0.99, tauS: 0.9, wantT: true, wantS: true, both: true},
		{name: "one domain, tree", nodes: 120, domains: 1, docs: 300, vocab: 20, tauT: 0.858, tauS: 0.211, wantT: true, wantS: true},
		{name: "deep chain", nodes: 60, domains: 1, chain: true, docs: 300, vocab: 30, tauT: 0.858, tauS: 0.211, wantT: true, wantS: true},
		{name: "many parents", nodes: 80, domains: 3, multi: 0.6, docs: 300, vocab: 200, tauT: 0.7, tauS: 0.3, wantT: true, wantS: true},
		// More topics than the finder packs inline (7), for some documents.
		{name: "many topics a document", nodes: 300, domains: 5, multi: 0.2, docs: 300, vocab: 40, topics: 12, tauT: 0.5, tauS: 0.211, wantT: true, wantS: true, both: true},
		{name: "floors near 0", nodes: 50, domains: 4, multi: 0.1, docs: 150, vocab: 60, tauT: 0.01, tauS: 0.01, wantT: true, wantS: true, both: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 17))
			tree := buildTree(t, randomDAG(r, tt.nodes, tt.domains, tt.multi, tt.chain))
			topics := tt.topics
			if topics == 0 {
				topics = 5
			}
			c := randomCorpus(r, tree, tt.docs, tt.vocab, topics, tt.dup)
			cats := checkExact(t, c, tt.tauT, tt.tauS)
			for cat, want := range map[string]bool{CategoryTopic: tt.wantT, CategorySummary: tt.wantS, CategoryBoth: tt.both} {
				if want && cats[cat] == 0 {
					t.Errorf("no %s pairs: the case proves little", cat)
				}
			}
			t.Logf("tree of %d nodes, %d documents: %v", tree.Len(), len(c.IDs), cats)
		})
	}
}

// defaultTree reads the default ontology from its file (lib may not
// import artifacts).
func defaultTree(t testing.TB) *ontology.Tree {
	t.Helper()
	f, err := os.Open("../../artifacts/ontology/default.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := ontology.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return buildTree(t, d)
}

// TestGeneratedCorpus: on a corpus with the shape of a real one tagged
// against the default ontology (lib/synth/corpusdist), the finder is
// exact at the paper's floors.
func TestGeneratedCorpus(t *testing.T) {
	tree := defaultTree(t)
	gen, err := corpusdist.New(tree, 5, corpusdist.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	tops, toks := map[string][]int{}, map[string][]string{}
	for _, d := range gen.Docs(1500) {
		tops[d.ID], toks[d.ID] = d.Topics, d.Tokens
	}
	cats := checkExact(t, NewCorpus(tree, tops, toks), 0.858, 0.211)
	for _, cat := range []string{CategoryTopic, CategorySummary, CategoryBoth} {
		if cats[cat] == 0 {
			t.Errorf("no %s pairs: the test would prove little", cat)
		}
	}
	t.Logf("pairs by category: %v", cats)
}

// TestExactOnMATH: the MATH problems (12,500) tagged offline against the
// default ontology (the lexical scorer, τ 0.85, as the tag stage does) and
// summarised offline (the extractive summary, as summarize does): every
// query's pairs are exactly what scoring all N² pairs gives.
func TestExactOnMATH(t *testing.T) {
	dir, _ := filepath.Abs("../../../shared/data/math")
	var rows []struct {
		ID       string `json:"unique_id"`
		Problem  string `json:"problem"`
		Solution string `json:"solution"`
	}
	for _, name := range []string{"MATH_train.jsonl", "MATH_test.jsonl"} {
		f, err := os.Open(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			t.Skipf("MATH data not present at %s", dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			rows = append(rows, struct {
				ID       string `json:"unique_id"`
				Problem  string `json:"problem"`
				Solution string `json:"solution"`
			}{})
			if err := json.Unmarshal(sc.Bytes(), &rows[len(rows)-1]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	tree := defaultTree(t)
	lex := topics.NewLexical(tree)
	tops := make([][]int, len(rows))
	toks := make([][]string, len(rows))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				a, err := topics.Assign(context.Background(), tree, lex, topics.Text{Statement: rows[i].Problem, Solution: rows[i].Solution}, 0.85, 200)
				if err != nil {
					errs[w] = err
					return
				}
				tops[i] = a.Topics
				if s := summary.Extractive(rows[i].Problem, rows[i].Solution); !s.NoCoreIdea {
					toks[i] = summtok.Set(s.CoreIdea)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	tm, km := map[string][]int{}, map[string][]string{}
	for i, r := range rows {
		tm[r.ID], km[r.ID] = tops[i], toks[i]
	}
	c := NewCorpus(tree, tm, km)
	if len(c.IDs) != 12500 {
		t.Fatalf("%d documents, want 12500", len(c.IDs))
	}
	cats := checkExact(t, c, 0.858, 0.211)
	for _, cat := range []string{CategoryTopic, CategorySummary, CategoryBoth} {
		if cats[cat] == 0 {
			t.Errorf("no %s pairs: the test would prove little", cat)
		}
	}
	t.Logf("%d documents, pairs by category %v: brute force agrees", len(c.IDs), cats)
}
