package ontology

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// handTree is
//
//	root(0) ─┬─ A(1) ─┬─ B(2) ── D(3)
//	         │        └─ C(4) ── D(5)
//	         └─ E(6)
//
// (D has the two parents B and C in the DAG).
func handTree(t *testing.T) *Tree {
	t.Helper()
	tr, err := BuildTree(dag("A B C D E", "A>B", "A>C", "B>D", "C>D"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "A", p("A", "B"), p("A", "B", "D"), p("A", "C"), p("A", "C", "D"), "E"}
	for i, w := range want {
		if tr.Path(i) != w {
			t.Fatalf("Path(%d) = %q, want %q", i, tr.Path(i), w)
		}
	}
	return tr
}

func TestInformationContent(t *testing.T) {
	tr := handTree(t)
	ln := math.Log
	tests := []struct {
		name     string
		assigned [][]int
		want     []float64 // by node 0..6
	}{
		{
			// c: root 4 (always N), A 3, B 2, B>D 2, C 1, C>D 1, E 1; N = 4.
			name: "add-one counts, once per problem",
			assigned: [][]int{
				{3},       // B>D
				{3, 2, 3}, // B>D and its ancestor B, B>D twice: still once each
				{5, 6},    // C>D and E
				{},        // no topic: counts at the root only
			},
			want: []float64{0, ln(5) - ln(4), ln(5) - ln(3), ln(5) - ln(3), ln(5) - ln(2), ln(5) - ln(2), ln(5) - ln(2)},
		},
		{
			name:     "no problems: every IC is 0",
			assigned: nil,
			want:     []float64{0, 0, 0, 0, 0, 0, 0},
		},
		{
			// N = 2; unreached nodes get ln(3); the root is never assigned a count of its own.
			name:     "assigned root and unreached nodes",
			assigned: [][]int{{0}, {1}},
			want:     []float64{0, ln(3) - ln(2), ln(3), ln(3), ln(3), ln(3), ln(3)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := InformationContent(tr, tt.assigned)
			if len(got) != len(tt.want) {
				t.Fatalf("len = %d, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-15 || math.Signbit(got[i]) {
					t.Errorf("IC(%q) = %v, want %v", tr.Path(i), got[i], tt.want[i])
				}
			}
		})
	}
}

func TestLinAndBMA(t *testing.T) {
	tr := handTree(t)
	ic := InformationContent(tr, [][]int{{3}, {3, 2}, {5, 6}, {}})
	icA, icBD, icCD := math.Log(5)-math.Log(4), math.Log(5)-math.Log(3), math.Log(5)-math.Log(2)
	linBDCD := 2 * icA / (icBD + icCD)
	lins := []struct {
		name string
		a, b int
		want float64
	}{
		{"same node", 3, 3, 1},
		{"root with itself", 0, 0, 1},
		{"node and its ancestor with equal IC", 2, 3, 1},
		{"copies of D meet at A", 3, 5, linBDCD},
		{"different domains meet at the root", 3, 6, 0},
		{"root and a domain", 0, 1, 0},
		{"domain and a node below", 1, 3, 2 * icA / (icA + icBD)},
	}
	for _, tt := range lins {
		t.Run("Lin/"+tt.name, func(t *testing.T) {
			got, rev := Lin(tr, ic, tt.a, tt.b), Lin(tr, ic, tt.b, tt.a)
			if math.Abs(got-tt.want) > 1e-15 || got != rev {
				t.Errorf("Lin(%d, %d) = %v (reversed %v), want %v", tt.a, tt.b, got, rev, tt.want)
			}
		})
	}
	// All ICs zero: the denominator is 0.
	if got := Lin(tr, make([]float64, tr.Len()), 1, 3); got != 0 {
		t.Errorf("Lin with zero ICs = %v, want 0", got)
	}

	bmas := []struct {
		name string
		x, y []int
		want float64
	}{
		{"empty x", nil, []int{3}, 0},
		{"empty y", []int{3}, nil, 0},
		{"identical sets", []int{3, 6}, []int{6, 3}, 1},
		{"one against two", []int{3}, []int{5, 6}, (linBDCD + linBDCD + 0) / 3},
		{"disjoint domains", []int{3, 2}, []int{6}, 0},
		{"partial overlap", []int{3, 6}, []int{3}, (1 + 0 + 1) / 3.0},
	}
	for _, tt := range bmas {
		t.Run("BMA/"+tt.name, func(t *testing.T) {
			got, rev := BMA(tr, ic, tt.x, tt.y), BMA(tr, ic, tt.y, tt.x)
			if math.Abs(got-tt.want) > 1e-15 || got != rev {
				t.Errorf("BMA(%v, %v) = %v (reversed %v), want %v", tt.x, tt.y, got, rev, tt.want)
			}
			var rows LinRows
			rows.Reset(tr, ic, tt.x)
			if rg := rows.BMA(tt.y); rg != got {
				t.Errorf("LinRows(%v).BMA(%v) = %v, BMA %v", tt.x, tt.y, rg, got)
			}
		})
	}
	// More than 16 topics on the y side takes the allocating path.
	var big []int
	for range 20 {
		big = append(big, 3, 6)
	}
	if got := BMA(tr, ic, []int{3, 6}, big); got != 1 {
		t.Errorf("BMA with 40 topics = %v, want 1", got)
	}
	var rows LinRows
	rows.Reset(tr, ic, []int{3, 6})
	if got := rows.BMA(big); got != 1 {
		t.Errorf("LinRows.BMA with 40 topics = %v, want 1", got)
	}
}

// LinRows.BMA is BMA bit for bit, on random topic sets of every size the
// tagger gives and a reused LinRows (the pairs stage's use).
func TestLinRowsIsBMA(t *testing.T) {
	tr := handTree(t)
	r := rand.New(rand.NewPCG(3, 4))
	set := func() []int {
		x := make([]int, r.IntN(5))
		for i := range x {
			x[i] = r.IntN(tr.Len())
		}
		return x
	}
	var assigned [][]int
	for range 50 {
		assigned = append(assigned, set())
	}
	ic := InformationContent(tr, assigned)
	var rows LinRows
	for range 200 {
		x := set()
		rows.Reset(tr, ic, x)
		for range 20 {
			y := set()
			if got, want := rows.BMA(y), BMA(tr, ic, x, y); got != want {
				t.Fatalf("LinRows(%v).BMA(%v) = %v, BMA %v", x, y, got, want)
			}
			y32 := make([]int32, len(y))
			for i, b := range y {
				y32[i] = int32(b)
			}
			if got, want := rows.BMA32(y32), BMA(tr, ic, x, y); got != want {
				t.Fatalf("LinRows(%v).BMA32(%v) = %v, BMA %v", x, y, got, want)
			}
		}
	}
}

func TestSimilarityPanics(t *testing.T) {
	tr := handTree(t)
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"IC topic out of range", func() { InformationContent(tr, [][]int{{1}, {7}}) }, "problem 1 has topic 7"},
		{"IC negative topic", func() { InformationContent(tr, [][]int{{-1}}) }, "problem 0 has topic -1"},
		{"Lin wrong IC length", func() { Lin(tr, make([]float64, 3), 1, 2) }, "3 IC values for a tree of 7 nodes"},
		{"BMA wrong IC length", func() { BMA(tr, nil, []int{1}, []int{2}) }, "0 IC values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tt.want) {
					t.Errorf("panic %v, want one containing %q", r, tt.want)
				}
			}()
			tt.f()
		})
	}
}
