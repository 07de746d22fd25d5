package poolrank

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// wide returns a rows × dim matrix whose values span many binades (random
// sign, mantissa and an exponent of −20 to 20), with a few zeros, negative
// zeros and subnormal values: sums of such products round at nearly every
// step, so an order or fusing that differs from Dot's shows in the bits.
func wide(rng *rand.Rand, rows, dim int) Matrix {
	m := NewMatrix(rows, dim)
	for i := range m.Data {
		switch rng.IntN(50) {
		case 0:
			m.Data[i] = 0
		case 1:
			m.Data[i] = float32(math.Copysign(0, -1))
		case 2:
			m.Data[i] = math.Float32frombits(rng.Uint32N(1 << 23)) // subnormal
		default:
			m.Data[i] = float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(41)-20))
		}
	}
	return m
}

// kernelSizes are the shapes the kernels are checked on: rows not
// multiples of either kernel's tile, none and one of each, and dimensions
// of one value, fewer than a vector, either side of a k-slice (kcBlock)
// and the paper's 1,024 and one more.
var kernelSizes = []struct{ nq, nd, dim int }{
	{0, 0, 3},
	{0, 5, 3},
	{5, 0, 3},
	{1, 1, 1},
	{1, 33, 1},
	{13, 70, 3},
	{30, 70, 3},
	{12, 32, 4},
	{25, 65, 255},
	{7, 31, kcBlock},
	{6, 17, kcBlock + 1},
	{19, 50, 1024},
	{11, 40, 1025},
	{40, 45, kcBlock + 44},
}

// TestKernelsEqualBlock holds every kernel this CPU runs to Block, bit
// for bit, on every score of a block, including blocks that start inside
// the matrices.
func TestKernelsEqualBlock(t *testing.T) {
	if len(kernels) == 0 {
		t.Skip("no kernel runs here: Ranks uses Block")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, k := range kernels {
		for _, c := range kernelSizes {
			for _, gen := range []func(*rand.Rand, int, int) Matrix{random, wide} {
				q, d := gen(rng, c.nq, c.dim), gen(rng, c.nd, c.dim)
				// Whole matrices, and an inner block (from the second
				// panel of queries, the third document) where there is room.
				spans := [][4]int{{0, c.nq, 0, c.nd}}
				if c.nq > k.mr && c.nd > 2 {
					spans = append(spans, [4]int{k.mr, c.nq, 2, c.nd - 1})
				}
				packed := k.packQueries(q)
				for _, sp := range spans {
					q0, q1, d0, d1 := sp[0], sp[1], sp[2], sp[3]
					name := fmt.Sprintf("%s %d×%d×%d [%d:%d]×[%d:%d]", k.name, c.nq, c.nd, c.dim, q0, q1, d0, d1)
					want := make([]float32, (q1-q0)*(d1-d0))
					Block(q, d, q0, q1, d0, d1, want)
					var s scratch
					k.packDocs(&s, d, d0, d1)
					got, ldc := k.block(&s, packed, q0, q1, d1-d0, c.dim)
					checkBits(t, name, got, ldc, want, q1-q0, d1-d0)
				}
			}
		}
	}
}

// checkBits compares a kernel's tile buffer (row stride ldc) with Block's
// rows × cols scores, as bits, so that −0 and +0 or two NaNs differ.
func checkBits(t *testing.T, name string, got []float32, ldc int, want []float32, rows, cols int) {
	t.Helper()
	for i := range rows {
		for j := range cols {
			g, w := got[i*ldc+j], want[i*cols+j]
			if math.Float32bits(g) != math.Float32bits(w) {
				t.Fatalf("%s: score (%d, %d) = %v (%#08x), Block %v (%#08x)", name, i, j, g, math.Float32bits(g), w, math.Float32bits(w))
			}
		}
	}
}

// TestRanksKernelsEqualGo runs Ranks with each kernel and with Block
// alone (the pure-Go path, which -tags purego builds) and wants the same
// ranks and target scores, on the awkward shapes, with blocks that are
// not multiples of the tiles, and with exact ties planted.
func TestRanksKernelsEqualGo(t *testing.T) {
	defer func(k *kernel) { kern = k }(kern)
	rng := rand.New(rand.NewPCG(6, 6))
	for _, c := range kernelSizes {
		if c.nd == 0 && c.nq > 0 {
			continue // no document for a target: a caller mistake
		}
		for _, gen := range []func(*rand.Rand, int, int) Matrix{random, wide} {
			q, d := gen(rng, c.nq, c.dim), gen(rng, c.nd, c.dim)
			targets := make([]int, c.nq)
			for i := range targets {
				targets[i] = rng.IntN(c.nd)
			}
			if c.nq > 1 && c.nd > 3 {
				// A copy of query 1's target ahead of it and one behind:
				// ties that the lower index wins.
				copy(d.Row(0), d.Row(targets[1]))
				copy(d.Row(c.nd-1), d.Row(targets[1]))
				copy(q.Row(0), d.Row(targets[0]))
			}
			for _, opt := range []Options{{}, {QueryBlock: 5, DocBlock: 7, Workers: 3}, {QueryBlock: 13, DocBlock: 33, Workers: 2}, {QueryBlock: 64, DocBlock: 2, Workers: 2}} {
				kern = nil
				wantR, wantS, err := Ranks(context.Background(), q, d, targets, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range kernels {
					kern = k
					gotR, gotS, err := Ranks(context.Background(), q, d, targets, opt)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(gotR, wantR) || !slices.EqualFunc(gotS, wantS, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
						t.Fatalf("%s %d×%d×%d %+v: ranks %v scores %v, Go %v %v", k.name, c.nq, c.nd, c.dim, opt, gotR, gotS, wantR, wantS)
					}
				}
			}
		}
	}
}

// BenchmarkKernels times one block of the default shape (1,024 queries ×
// 512 documents × 1,024 dims) per kernel on one core, packing included,
// and reports multiply-adds per second of CPU time: the kernels' speed
// apart from the ranking around them.
func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	q, d := random(rng, 1024, 1024), random(rng, 512, 1024)
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			var s scratch
			packed := k.packQueries(q)
			cpu0 := cpuTime()
			for range b.N {
				k.packDocs(&s, d, 0, d.Rows)
				k.block(&s, packed, 0, q.Rows, d.Rows, q.Dim)
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(b.N)*float64(q.Rows*d.Rows*q.Dim)/cpu.Seconds()/1e9, "G-muladd/cpu-s")
		})
	}
}
