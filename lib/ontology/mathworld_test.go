package ontology

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// mathWorldDir is the MathWorld crawl relative to this package's directory
// (/work/main/lib/ontology → /work/shared/data/ontology).
var mathWorldDir = filepath.Join("..", "..", "..", "shared", "data", "ontology")

// domains are the five SABER-Math domains as MathWorld ids, in the SPEC's
// tie-break order. Combinatorics sits under DiscreteMathematics.
var domains = []string{
	"topics/Algebra",
	"topics/Geometry",
	"topics/NumberTheory",
	"topics/Combinatorics",
	"topics/CalculusandAnalysis",
}

// loadMathWorld reads the crawl and restricts it to the five domains, or
// skips the test when the data is absent.
func loadMathWorld(tb testing.TB) (full, five *DAG) {
	tb.Helper()
	nodes, err := os.Open(filepath.Join(mathWorldDir, "mathworld_tree_nodes.jsonl"))
	if err != nil {
		tb.Skipf("MathWorld data absent: %v", err)
	}
	defer nodes.Close()
	edges, err := os.Open(filepath.Join(mathWorldDir, "mathworld_tree_edges.tsv"))
	if err != nil {
		tb.Skipf("MathWorld data absent: %v", err)
	}
	defer edges.Close()
	full, err = ReadMathWorld(nodes, edges)
	if err != nil {
		tb.Fatal(err)
	}
	five, err = full.Restrict(domains)
	if err != nil {
		tb.Fatal(err)
	}
	return full, five
}

func TestMathWorld(t *testing.T) {
	full, five := loadMathWorld(t)
	if err := full.Validate(); err != nil {
		t.Fatalf("the full crawl is not a DAG: %v", err)
	}
	fs := full.Stats()
	t.Logf("full crawl: %d nodes, %d edges, %d roots, %d multi-parent, max depth %d", fs.Nodes, fs.Edges, fs.Roots, fs.MultiParent, fs.MaxDepth)
	// 13 top-level topics, but topics/NumberTheory is also a child of
	// topics/Algebra, so 12 roots.
	if fs.Roots != 12 {
		t.Errorf("full crawl has %d roots, want 12", fs.Roots)
	}

	ds := five.Stats()
	t.Logf("five domains DAG: %+v", ds)
	if ds.Nodes < 10000 || ds.Nodes > 11500 {
		t.Errorf("five-domain DAG has %d nodes, want 10,000–11,500 (paper: ~10.5K)", ds.Nodes)
	}
	tr, err := BuildTree(five)
	if err != nil {
		t.Fatal(err)
	}
	ts := tr.Stats()
	t.Logf("five domains tree: %+v (paper: ~17.1K nodes)", ts)
	if ts.Roots != 5 || !slices.Equal(tr.Children(0), indices(tr, domains)) {
		t.Errorf("tree domains %v, want %q in that order", tr.Children(0), domains)
	}
	// Depth counts nodes from the virtual root (0); a domain is 1. The paper's
	// "maximum root-to-node depth 5" counts edges below the domain, so every
	// node has Depth ≤ 6.
	if ts.MaxDepth > 6 || ts.MaxDepth != ds.MaxDepth {
		t.Errorf("tree MaxDepth = %d (DAG %d), want ≤ 6 and equal", ts.MaxDepth, ds.MaxDepth)
	}
	size := make([]int, tr.Len())
	deepest := make([]int, tr.Len())
	for i := 1; i < tr.Len(); i++ {
		d := tr.Domain(i)
		size[d]++
		deepest[d] = max(deepest[d], tr.Depth(i)-1)
	}
	for _, d := range tr.Children(0) {
		t.Logf("  %-28s %5d tree nodes, %d levels below the domain", tr.ID(d), size[d], deepest[d])
		if deepest[d] > 5 {
			t.Errorf("%s reaches %d levels below the domain, want ≤ 5", tr.ID(d), deepest[d])
		}
	}
	checkTree(t, tr, five)
}

// brute is a reference for IC, Lin and BMA that uses ancestor sets instead
// of the Euler-tour LCA: lca(a, b) = the deepest node of anc(a) ∩ anc(b).
type brute struct {
	tr  *Tree
	anc []map[int]bool // node and all its ancestors
	ic  []float64
}

func newBrute(tr *Tree, assigned [][]int) *brute {
	b := &brute{tr: tr, anc: make([]map[int]bool, tr.Len())}
	for i := range tr.Len() {
		b.anc[i] = map[int]bool{}
		for u := i; u != -1; u = tr.Parent(u) {
			b.anc[i][u] = true
		}
	}
	count := make([]int, tr.Len())
	for _, topics := range assigned {
		under := map[int]bool{0: true}
		for _, v := range topics {
			for u := range b.anc[v] {
				under[u] = true
			}
		}
		for u := range under {
			count[u]++
		}
	}
	N := float64(len(assigned))
	b.ic = make([]float64, tr.Len())
	for i, c := range count {
		b.ic[i] = -math.Log((float64(c) + 1) / (N + 1))
	}
	return b
}

func (b *brute) lca(x, y int) int {
	best := -1
	for u := range b.anc[x] {
		if b.anc[y][u] && (best == -1 || b.tr.Depth(u) > b.tr.Depth(best)) {
			best = u
		}
	}
	return best
}

func (b *brute) lin(x, y int) float64 {
	if x == y {
		return 1
	}
	if b.ic[x]+b.ic[y] == 0 {
		return 0
	}
	return 2 * b.ic[b.lca(x, y)] / (b.ic[x] + b.ic[y])
}

func (b *brute) bma(x, y []int) float64 {
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	sum := 0.0
	for _, s := range x {
		m := 0.0
		for _, t := range y {
			m = max(m, b.lin(s, t))
		}
		sum += m
	}
	for _, t := range y {
		m := 0.0
		for _, s := range x {
			m = max(m, b.lin(s, t))
		}
		sum += m
	}
	return sum / float64(len(x)+len(y))
}

// randomTopics draws a topic set of 1–4 nodes; with probability 1/2 the
// later ones are near the first (in the subtree of one of its ancestors),
// so LCAs below the domain level are common.
func randomTopics(r *rand.Rand, tr *Tree) []int {
	first := 1 + r.IntN(tr.Len()-1)
	x := []int{first}
	for range r.IntN(4) {
		v := 1 + r.IntN(tr.Len()-1)
		if r.IntN(2) == 0 {
			v = first
			for range r.IntN(4) {
				if tr.Parent(v) > 0 {
					v = tr.Parent(v)
				}
			}
			for range r.IntN(5) {
				if ch := tr.Children(v); len(ch) > 0 {
					v = ch[r.IntN(len(ch))]
				}
			}
		}
		x = append(x, v)
	}
	return x
}

func TestMathWorldSimilarityAgainstBruteForce(t *testing.T) {
	_, five := loadMathWorld(t)
	tr, err := BuildTree(five)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2026, 32))
	assigned := make([][]int, 3000)
	for i := range assigned {
		if i%50 != 0 { // a few problems without topics
			assigned[i] = randomTopics(r, tr)
		}
	}
	ic := InformationContent(tr, assigned)
	b := newBrute(tr, assigned)
	for i := range ic {
		if math.Abs(ic[i]-b.ic[i]) > 1e-12 {
			t.Fatalf("IC(%q) = %v, brute force %v", tr.Path(i), ic[i], b.ic[i])
		}
	}

	const pairs = 3000
	belowDomain := 0
	for k := range pairs {
		x, y := randomTopics(r, tr), randomTopics(r, tr)
		if k%10 == 0 {
			y = append(y, x[0]) // an exact match now and then
		}
		a, c := x[0], y[len(y)-1]
		if got, want := tr.LCA(a, c), b.lca(a, c); got != want {
			t.Fatalf("LCA(%q, %q) = %q, brute force %q", tr.Path(a), tr.Path(c), tr.Path(got), tr.Path(want))
		}
		if tr.Depth(tr.LCA(a, c)) > 1 {
			belowDomain++
		}
		if got, want := Lin(tr, ic, a, c), b.lin(a, c); math.Abs(got-want) > 1e-12 {
			t.Fatalf("Lin(%q, %q) = %v, brute force %v", tr.Path(a), tr.Path(c), got, want)
		}
		if got, want := BMA(tr, ic, x, y), b.bma(x, y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("BMA(%v, %v) = %v, brute force %v", x, y, got, want)
		}
	}
	t.Logf("%d pairs checked, %d with the LCA below the domain level", pairs, belowDomain)
	if belowDomain < pairs/10 {
		t.Errorf("only %d pairs meet below the domain level: the test is too easy", belowDomain)
	}
}

func BenchmarkBuildTreeMathWorld(b *testing.B) {
	_, five := loadMathWorld(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildTree(five); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLCA(b *testing.B) {
	_, five := loadMathWorld(b)
	tr, err := BuildTree(five)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	qs := make([][2]int, 1<<16)
	for i := range qs {
		qs[i] = [2]int{r.IntN(tr.Len()), r.IntN(tr.Len())}
	}
	sink := 0
	for i := 0; b.Loop(); i++ {
		q := qs[i&(len(qs)-1)]
		sink += tr.LCA(q[0], q[1])
	}
	_ = sink
}

func BenchmarkBMA3x3(b *testing.B) {
	_, five := loadMathWorld(b)
	tr, err := BuildTree(five)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	assigned := make([][]int, 5000)
	for i := range assigned {
		assigned[i] = randomTopics(r, tr)
	}
	ic := InformationContent(tr, assigned)
	sets := make([][]int, 1024)
	for i := range sets {
		sets[i] = []int{1 + r.IntN(tr.Len()-1), 1 + r.IntN(tr.Len()-1), 1 + r.IntN(tr.Len()-1)}
	}
	b.ReportAllocs()
	sink := 0.0
	for i := 0; b.Loop(); i++ {
		sink += BMA(tr, ic, sets[i&1023], sets[(i*7+1)&1023])
	}
	_ = sink
}
