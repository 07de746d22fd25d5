package simjoin

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/saber-math/saber/lib/summtok"
)

// refPass is the reference decision "float64(o)/float64(u) > t", computed
// without float division: the correctly rounded quotient exceeds t exactly
// when o/u lies above the midpoint m between t and the next float64 up, or
// on m when round-half-to-even picks the upper neighbour. Exact, with big.Rat.
func refPass(o, u int, t float64) bool {
	up := math.Nextafter(t, math.Inf(1))
	m := new(big.Rat).Add(new(big.Rat).SetFloat64(t), new(big.Rat).SetFloat64(up))
	m.Quo(m, big.NewRat(2, 1))
	switch new(big.Rat).SetFrac64(int64(o), int64(u)).Cmp(m) {
	case 1:
		return true
	case 0:
		return math.Float64bits(up)&1 == 0
	}
	return false
}

// refOracle memoises refPass for one threshold.
type refOracle struct {
	t    float64
	memo map[[2]int]bool
	fast [][]int8 // fast[u][o]: 0 unknown, 1 pass, 2 fail; for u < 256
}

func (r *refOracle) pass(o, u int) bool {
	if o == 0 || u == 0 {
		return false
	}
	if u < 256 {
		if r.fast == nil {
			r.fast = make([][]int8, 256)
		}
		if r.fast[u] == nil {
			r.fast[u] = make([]int8, u+1)
		}
		if v := r.fast[u][o]; v != 0 {
			return v == 1
		}
		v := refPass(o, u, r.t)
		r.fast[u][o] = 2
		if v {
			r.fast[u][o] = 1
		}
		return v
	}
	k := [2]int{o, u}
	v, ok := r.memo[k]
	if !ok {
		v = refPass(o, u, r.t)
		r.memo[k] = v
	}
	return v
}

// pairStat is one pair of records with a non-empty overlap.
type pairStat struct{ i, j, o, u int32 }

// overlaps returns every pair i < j with a shared token, by brute force.
func overlaps(records [][]int32) []pairStat {
	var out []pairStat
	for i := range records {
		for j := i + 1; j < len(records); j++ {
			o := 0
			a, b := records[i], records[j]
			for p, q := 0, 0; p < len(a) && q < len(b); {
				switch {
				case a[p] < b[q]:
					p++
				case a[p] > b[q]:
					q++
				default:
					o++
					p++
					q++
				}
			}
			if o > 0 {
				out = append(out, pairStat{int32(i), int32(j), int32(o), int32(len(a) + len(b) - o)})
			}
		}
	}
	return out
}

// brute returns, for every record, its matches at t by the exact reference.
func brute(n int, pairs []pairStat, t float64) [][]Match {
	ref := &refOracle{t: t, memo: map[[2]int]bool{}}
	out := make([][]Match, n)
	for _, p := range pairs {
		if ref.pass(int(p.o), int(p.u)) {
			sim := float64(p.o) / float64(p.u)
			out[p.i] = append(out[p.i], Match{p.j, sim})
			out[p.j] = append(out[p.j], Match{p.i, sim})
		}
	}
	return out
}

// checkExactRational compares want, the brute-force matches under the
// package's rule float64(J) > t, with the pure rational rule J > t decided by
// integer cross-multiplication, o·den(t) > num(t)·u: they must differ only on
// pairs with J > t exactly but float64(J) == t.
func checkExactRational(t *testing.T, pairs []pairStat, thr float64, want [][]Match) {
	t.Helper()
	tr := new(big.Rat).SetFloat64(thr)
	memo := map[[2]int32]bool{}
	differ := 0
	for _, p := range pairs {
		k := [2]int32{p.o, p.u}
		exact, ok := memo[k]
		if !ok {
			lhs := new(big.Int).Mul(big.NewInt(int64(p.o)), tr.Denom())
			rhs := new(big.Int).Mul(tr.Num(), big.NewInt(int64(p.u)))
			exact = lhs.Cmp(rhs) > 0
			memo[k] = exact
		}
		_, in := slices.BinarySearchFunc(want[p.i], p.j, func(m Match, j int32) int { return int(m.Doc - j) })
		if exact == in {
			continue
		}
		differ++
		if !exact || float64(p.o)/float64(p.u) != thr {
			t.Fatalf("t=%v: pair %d, %d (o=%d, u=%d): rational rule %v, brute force %v", thr, p.i, p.j, p.o, p.u, exact, !exact)
		}
	}
	if differ > 0 {
		t.Logf("t=%v: %d pairs with J > t but float64(J) == t, excluded", thr, differ)
	}
}

// compare checks the index against brute force, pair for pair.
func compare(t *testing.T, x *Index, want [][]Match, thr float64) int {
	t.Helper()
	total, bad := 0, 0
	for i := range want {
		got := x.Query(i)
		total += len(got)
		ok := len(got) == len(want[i])
		for k := 0; ok && k < len(got); k++ {
			ok = got[k].Doc == want[i][k].Doc && math.Abs(got[k].Sim-want[i][k].Sim) <= 1e-12 && got[k].Sim > thr
		}
		if !ok {
			bad++
			if bad <= 3 {
				t.Errorf("t=%v: Query(%d) = %v, want %v", thr, i, got, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("t=%v: %d of %d queries differ from brute force", thr, bad, len(want))
	}
	return total
}

// zipfRecords draws n sets of sizes in [lo, hi] from a vocabulary of v ids
// with Zipf frequencies: id k is drawn with probability ∝ (k+1)^−s.
func zipfRecords(rng *rand.Rand, n, v, lo, hi int, s float64) [][]int32 {
	cdf := make([]float64, v)
	acc := 0.0
	for k := range cdf {
		acc += math.Pow(float64(k+1), -s)
		cdf[k] = acc
	}
	out := make([][]int32, n)
	seen := map[int32]bool{}
	for i := range out {
		size := min(lo+rng.IntN(hi-lo+1), v)
		clear(seen)
		r := make([]int32, 0, size)
		for tries := 0; len(r) < size; tries++ {
			tok := int32(rng.IntN(v)) // after many tries, to fill a record near v
			if tries < 20*size {
				tok = int32(min(sort.SearchFloat64s(cdf, rng.Float64()*acc), v-1))
			}
			if !seen[tok] {
				seen[tok] = true
				r = append(r, tok)
			}
		}
		slices.Sort(r)
		out[i] = r
	}
	return out
}

func TestRefPassAgreesWithFloat(t *testing.T) {
	// The big.Rat reference and float division agree, and differ from the
	// exact rational test o/u > t only where o/u rounds to t itself.
	for _, thr := range []float64{0, 0.1, 0.211, 0.25, 0.3, 1.0 / 3, 0.5, 0.7, 0.8, 2.0 / 3, 0.999999} {
		tr := new(big.Rat).SetFloat64(thr)
		for u := 1; u <= 120; u++ {
			for o := 0; o <= u; o++ {
				got := refPass(o, u, thr)
				if f := float64(o)/float64(u) > thr; got != f {
					t.Fatalf("t=%v o=%d u=%d: refPass=%v, float=%v", thr, o, u, got, f)
				}
				exact := big.NewRat(int64(o), int64(u)).Cmp(tr) > 0
				if got != exact && !(exact && float64(o)/float64(u) == thr) {
					t.Fatalf("t=%v o=%d u=%d: refPass=%v exact=%v", thr, o, u, got, exact)
				}
			}
		}
	}
}

func TestBounds(t *testing.T) {
	const maxSize = 60
	for _, thr := range []float64{0, 0.05, 0.1, 0.211, 0.25, 0.3, 1.0 / 3, 0.5, 0.6, 2.0 / 3, 0.7, 0.75, 0.8, 0.9, 0.95, 0.99, math.Nextafter(1, 0)} {
		x := &Index{t: thr}
		x.bounds(maxSize)
		ref := &refOracle{t: thr, memo: map[[2]int]bool{}}
		for n := 0; n <= 2*maxSize; n++ {
			want := n/2 + 1
			for o := 1; o <= n/2; o++ {
				if ref.pass(o, n-o) {
					want = o
					break
				}
			}
			if int(x.minO[n]) != want {
				t.Errorf("t=%v: minO[%d] = %d, want %d", thr, n, x.minO[n], want)
			}
		}
		for a := 1; a <= maxSize; a++ {
			var admissible []int
			for b := 1; b <= maxSize; b++ {
				if ref.pass(min(a, b), max(a, b)) {
					admissible = append(admissible, b)
				}
			}
			bmin, bmax := admissible[0], admissible[len(admissible)-1]
			alpha := math.MaxInt
			for _, b := range admissible {
				alpha = min(alpha, int(x.minO[a+b]))
			}
			short := a - int(x.minO[2*a]) + 1
			if int(x.bmin[a]) != bmin || int(x.bmax[a]) != bmax || int(x.long[a]) != a-alpha+1 || int(x.short[a]) != short {
				t.Errorf("t=%v a=%d: bmin, bmax, long, short = %d, %d, %d, %d; want %d, %d, %d, %d",
					thr, a, x.bmin[a], x.bmax[a], x.long[a], x.short[a], bmin, bmax, a-alpha+1, short)
			}
			// Contiguity: every size between bmin and bmax is admissible.
			if len(admissible) != bmax-bmin+1 {
				t.Errorf("t=%v a=%d: admissible sizes are not an interval", thr, a)
			}
			// Against the textbook forms, for a dyadic t (exact rational test):
			// o > t·a gives a long prefix of a − ⌊t·a⌋ tokens, and
			// o > 2t/(1+t)·a a short prefix of a − ⌊2t/(1+t)·a⌋.
			if thr == 0.5 || thr == 0.25 || thr == 0.75 || thr == 0 {
				tr := new(big.Rat).SetFloat64(thr)
				floor := func(q *big.Rat) int { return int(new(big.Int).Quo(q.Num(), q.Denom()).Int64()) }
				ta := new(big.Rat).Mul(big.NewRat(int64(a), 1), tr)
				ta2 := new(big.Rat).Quo(new(big.Rat).Mul(ta, big.NewRat(2, 1)), new(big.Rat).Add(tr, big.NewRat(1, 1)))
				if int(x.long[a]) != a-floor(ta) || int(x.short[a]) != a-floor(ta2) {
					t.Errorf("t=%v a=%d: long, short = %d, %d, want a − ⌊t·a⌋ = %d, a − ⌊2t·a/(1+t)⌋ = %d",
						thr, a, x.long[a], x.short[a], a-floor(ta), a-floor(ta2))
				}
			}
		}
	}
}

func TestQuerySmall(t *testing.T) {
	seq := func(lo, hi int32) []int32 {
		var r []int32
		for k := lo; k <= hi; k++ {
			r = append(r, k)
		}
		return r
	}
	tests := []struct {
		name    string
		records [][]int32
		t       float64
		want    [][]Match
	}{
		{"J = 3/4 at t = 0.75 is excluded", [][]int32{seq(1, 3), seq(1, 4)}, 0.75, [][]Match{nil, nil}},
		{"J = 3/4 just above t", [][]int32{seq(1, 3), seq(1, 4)}, math.Nextafter(0.75, 0),
			[][]Match{{{1, 0.75}}, {{0, 0.75}}}},
		{"J = 1/2 at t = 0.5 is excluded", [][]int32{{1, 2}, {2, 3}, {1, 2, 3, 4}}, 0.5,
			[][]Match{nil, nil, nil}},
		{"J = 1/2 just above t", [][]int32{{1, 2}, {2, 3}, {1, 2, 3, 4}}, math.Nextafter(0.5, 0),
			[][]Match{{{2, 0.5}}, {{2, 0.5}}, {{0, 0.5}, {1, 0.5}}}},
		{"J = 3/10 at t = 0.3 is excluded", [][]int32{seq(1, 3), seq(1, 10)}, 0.3, [][]Match{nil, nil}},
		{"J = 3/10 just above t", [][]int32{seq(1, 3), seq(1, 10)}, math.Nextafter(0.3, 0),
			[][]Match{{{1, 0.3}}, {{0, 0.3}}}},
		{"J = 1/3 at t = 1/3 is excluded", [][]int32{{1, 2}, {2, 3}}, 1.0 / 3, [][]Match{nil, nil}},
		{"t = 0: one shared token is enough", [][]int32{seq(1, 40), {40, 41}, {41, 42}, {99}}, 0,
			[][]Match{{{1, 1.0 / 41}}, {{0, 1.0 / 41}, {2, 1.0 / 3}}, {{1, 1.0 / 3}}, nil}},
		{"identical records at t just below 1", [][]int32{{5, 6, 7}, {5, 6, 7}, {5, 6}, {5, 6, 7, 8}}, math.Nextafter(1, 0),
			[][]Match{{{1, 1}}, {{0, 1}}, nil, nil}},
		{"empty records never match", [][]int32{{}, nil, {}, {3}}, 0, [][]Match{nil, nil, nil, nil}},
		{"singletons", [][]int32{{3}, {3}, {4}}, 0.5, [][]Match{{{1, 1}}, {{0, 1}}, nil}},
		{"size filter edge: 1 of 5 at t = 0.2 excluded", [][]int32{{1}, seq(1, 5)}, 0.2, [][]Match{nil, nil}},
		{"size filter edge: 1 of 4 at t = 0.2", [][]int32{{1}, seq(1, 4)}, 0.2,
			[][]Match{{{1, 0.25}}, {{0, 0.25}}}},
		// At t = 0.3 a record of 4 has a prefix of 3 (o > 1.2 needs o ≥ 2).
		{"shared token only outside the prefix", [][]int32{{1, 2, 3, 9}, {4, 5, 6, 9}}, 0.3, [][]Match{nil, nil}},
		{"match found through the prefix", [][]int32{{1, 2, 3, 9}, {1, 5, 6, 9}}, 0.3,
			[][]Match{{{1, 1.0 / 3}}, {{0, 1.0 / 3}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := Build(tt.records, tt.t)
			for i := range tt.records {
				got := x.Query(i)
				if !slices.Equal(got, tt.want[i]) {
					t.Errorf("Query(%d) = %v, want %v", i, got, tt.want[i])
				}
			}
			// Brute force agrees with the table.
			want := brute(len(tt.records), overlaps(tt.records), tt.t)
			for i := range want {
				if !slices.Equal(want[i], tt.want[i]) {
					t.Errorf("brute force %d = %v, table says %v", i, want[i], tt.want[i])
				}
			}
		})
	}
}

func TestSignatureBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	recs := zipfRecords(rng, 400, 300, 1, 60, 0.8)
	for _, p := range overlaps(recs) {
		r, s := recs[p.i], recs[p.j]
		if bound := maxOverlap(len(r), len(s), signatureOf(r), signatureOf(s)); bound < int(p.o) {
			t.Fatalf("records %d, %d: overlap %d above the signature bound %d", p.i, p.j, p.o, bound)
		}
	}
	if got := maxOverlap(3, 3, signatureOf([]int32{1, 2, 3}), signatureOf([]int32{1, 2, 3})); got != 3 {
		t.Errorf("bound for identical sets = %d, want 3", got)
	}
}

func TestBuildPanics(t *testing.T) {
	tests := []struct {
		name    string
		records [][]int32
		t       float64
	}{
		{"t = 1", [][]int32{{1}}, 1},
		{"t < 0", [][]int32{{1}}, -0.1},
		{"t NaN", [][]int32{{1}}, math.NaN()},
		{"unsorted", [][]int32{{2, 1}}, 0.5},
		{"repeat", [][]int32{{1, 1}}, 0.5},
		{"negative id", [][]int32{{-1, 2}}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Build did not panic")
				}
			}()
			Build(tt.records, tt.t)
		})
	}
}

func TestRank(t *testing.T) {
	tests := []struct {
		name string
		in   [][]int32
		want [][]int32
	}{
		{"empty", nil, [][]int32{}},
		{"empty records kept", [][]int32{nil, {}}, [][]int32{nil, {}}},
		// df: 7→3, 3→2, 9→1, 5→1; order 5, 9, 3, 7.
		{"by frequency then id", [][]int32{{3, 7, 9}, {3, 7}, {5, 7}}, [][]int32{{1, 2, 3}, {2, 3}, {0, 3}}},
		{"negative and sparse ids", [][]int32{{-5, 1 << 30}, {1 << 30}}, [][]int32{{0, 1}, {1}}},
		{"unsorted input", [][]int32{{9, 3}, {3}}, [][]int32{{0, 1}, {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := make([][]int32, len(tt.in))
			for i := range tt.in {
				in[i] = slices.Clone(tt.in[i])
			}
			got := Rank(in)
			if len(got) != len(tt.want) {
				t.Fatalf("Rank = %v, want %v", got, tt.want)
			}
			for i := range got {
				if !slices.Equal(got[i], tt.want[i]) || (got[i] == nil) != (tt.want[i] == nil) {
					t.Errorf("Rank[%d] = %#v, want %#v", i, got[i], tt.want[i])
				}
				if !slices.Equal(in[i], tt.in[i]) {
					t.Errorf("Rank modified its input %d", i)
				}
			}
		})
	}
}

func TestRankSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	recs := zipfRecords(rng, 500, 300, 1, 20, 1.0)
	sparse := make([][]int32, len(recs))
	for i, r := range recs {
		for _, tok := range r {
			sparse[i] = append(sparse[i], tok*7_000_003-1_000_000_000) // order-preserving, sparse
		}
	}
	a, b := Rank(recs), Rank(sparse)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("record %d: dense %v, sparse %v", i, a[i], b[i])
		}
	}
}

// TestRandomAgainstBruteForce is the main exactness test: random Zipf data,
// many thresholds, pair for pair against brute force, with ranked ids, raw
// ids and sparse raw ids (which take the other posting layout).
func TestRandomAgainstBruteForce(t *testing.T) {
	type dataset struct {
		name           string
		n, v, lo, hi   int
		s              float64
		dupes, empties int
	}
	sets := []dataset{
		{"v50 sizes 1-40", 500, 50, 1, 40, 1.0, 20, 5},
		{"v500 sizes 1-40", 800, 500, 1, 40, 1.0, 20, 5},
		{"v5000 sizes 5-20", 1200, 5000, 5, 20, 1.0, 10, 0},
		{"v10 sizes 1-3", 300, 10, 1, 3, 1.0, 10, 3},
		{"v40 sizes 10 flat", 400, 40, 10, 10, 0.5, 5, 0},
		{"v2000 sizes 1-40 heavy head", 800, 2000, 1, 40, 1.5, 0, 0},
	}
	if testing.Short() {
		sets = sets[:2]
	}
	for di, ds := range sets {
		t.Run(ds.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(di), 2024))
			recs := zipfRecords(rng, ds.n, ds.v, ds.lo, ds.hi, ds.s)
			for k := 0; k < ds.dupes; k++ {
				recs = append(recs, slices.Clone(recs[rng.IntN(len(recs))]))
			}
			for k := 0; k < ds.empties; k++ {
				recs = append(recs, []int32{})
			}
			rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
			pairs := overlaps(recs)
			// Thresholds: fixed ones, and the similarities of real pairs, at,
			// just below and just above them.
			thrs := []float64{0, 0.05, 0.1, 0.211, 0.25, 0.3, 1.0 / 3, 0.5, 2.0 / 3, 0.8, 0.95, 0.99}
			for k := 0; k < 5 && len(pairs) > 0; k++ {
				p := pairs[rng.IntN(len(pairs))]
				s := float64(p.o) / float64(p.u)
				if s < 1 {
					thrs = append(thrs, s, math.Nextafter(s, 0), math.Nextafter(s, 1))
				}
			}
			// The same sets under four labellings: ranked; raw; sparse (every
			// id × 400009: sparse posting lists, merge verification); and
			// mixed (ranked, ids ≥ 16 spread out: prefixes mostly dense, bit
			// set too wide, so merge verification).
			ranked := Rank(recs)
			relabel := func(rs [][]int32, f func(int32) int32) [][]int32 {
				out := make([][]int32, len(rs))
				for i, r := range rs {
					out[i] = make([]int32, len(r))
					for k, tok := range r {
						out[i][k] = f(tok)
					}
				}
				return out
			}
			sparse := relabel(recs, func(tok int32) int32 { return tok * 400_009 })
			mixed := relabel(ranked, func(tok int32) int32 {
				if tok < 16 {
					return tok
				}
				return 16 + (tok-16)*100_003
			})
			for k, thr := range thrs {
				want := brute(len(recs), pairs, thr)
				checkExactRational(t, pairs, thr, want)
				nx := compare(t, Build(ranked, thr), want, thr)
				if k%3 == 0 { // the other labellings on a third of the thresholds
					compare(t, Build(recs, thr), want, thr)
					compare(t, Build(sparse, thr), want, thr)
					compare(t, Build(mixed, thr), want, thr)
				}
				t.Logf("t=%-22v %7d matches (ordered pairs) of %d records", thr, nx, len(recs))
			}
			if x := Build(sparse, 0.5); x.longIdx.dense != nil || x.bitWords != 0 {
				t.Errorf("sparse ids: dense postings %v, bit set %d words; want neither", x.longIdx.dense != nil, x.bitWords)
			}
			if x := Build(ranked, 0.5); x.longIdx.dense == nil || x.bitWords == 0 {
				t.Errorf("ranked ids: dense postings %v, bit set %d words; want both", x.longIdx.dense != nil, x.bitWords)
			}
			if x := Build(mixed, 0.5); ds.v >= 500 && x.bitWords != 0 {
				t.Errorf("mixed ids: bit set %d words; want none", x.bitWords)
			}
		})
	}
}

func TestConcurrentQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	recs := Rank(zipfRecords(rng, 2000, 800, 1, 30, 1.0))
	x := Build(recs, 0.211)
	want := make([][]Match, len(recs))
	for i := range recs {
		want[i] = x.Query(i)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order := rand.New(rand.NewPCG(uint64(g), 0)).Perm(len(recs))
			for _, i := range order {
				if got := x.Query(i); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("goroutine %d: Query(%d) differs", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// firstSentence is the text up to the first '.', '!' or '?' followed by white
// space or the end (so "3.5" does not end a sentence).
func firstSentence(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == '!' || c == '?' {
			if i+1 == len(s) || strings.ContainsRune(" \t\r\n", rune(s[i+1])) {
				return s[:i+1]
			}
		}
	}
	return s
}

// TestMATHFirstSentences joins the first sentences of the MATH test solutions,
// tokenised with summtok, at t = 0.211, against brute force.
func TestMATHFirstSentences(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "math", "MATH_test.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("MATH data absent: %v", err)
	}
	defer f.Close()
	ids := map[string]int32{}
	var recs [][]int32
	var sets [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && len(recs) < 5000 {
		var row struct {
			Solution string `json:"solution"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		var r []int32
		set := summtok.Set(firstSentence(row.Solution))
		sets = append(sets, set)
		for _, w := range set {
			id, ok := ids[w]
			if !ok {
				id = int32(len(ids))
				ids[w] = id
			}
			r = append(r, id)
		}
		slices.Sort(r)
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(recs) < 5000 {
		t.Fatalf("read %d rows, want 5000", len(recs))
	}
	const thr = 0.211
	ranked := Rank(recs)
	want := brute(len(recs), overlaps(recs), thr)
	x := Build(ranked, thr)
	n := compare(t, x, want, thr)
	// The similarities equal summtok.Jaccard of the token strings.
	for i := 0; i < len(recs); i += 7 {
		for _, m := range x.Query(i) {
			if j := summtok.Jaccard(sets[i], sets[m.Doc]); j != m.Sim {
				t.Fatalf("pair %d, %d: Sim %v, summtok.Jaccard %v", i, m.Doc, m.Sim, j)
			}
		}
	}
	t.Logf("%d records, %d distinct tokens, %d matching ordered pairs at t = %v", len(recs), len(ids), n, thr)
}
