package poolrank

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// random returns a rows × dim matrix of uniform values in [-1, 1), unit rows.
func random(rng *rand.Rand, rows, dim int) Matrix {
	m := NewMatrix(rows, dim)
	for i := range m.Data {
		m.Data[i] = float32(rng.Float64()*2 - 1)
	}
	Normalize(m)
	return m
}

// naiveScore is the score written as the plainest loop, independently of
// Dot: the bits must agree.
func naiveScore(a, b []float32) float32 {
	var s float32
	for k := 0; k < len(a); k++ {
		p := a[k] * b[k]
		s = s + float32(p)
	}
	return s
}

// naiveRank counts, over every document, those that beat the target.
func naiveRank(q []float32, d Matrix, t int) int {
	st := naiveScore(q, d.Row(t))
	rank := 1
	for j := 0; j < d.Rows; j++ {
		s := naiveScore(q, d.Row(j))
		if j != t && (s > st || s == st && j < t) {
			rank++
		}
	}
	return rank
}

func TestBlockEqualsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name           string
		nq, nd, dim    int
		q0, q1, d0, d1 int
	}{
		{"whole, multiples of the tile", 8, 10, 16, 0, 8, 0, 10},
		{"ragged edges", 7, 9, 33, 0, 7, 0, 9},
		{"inner block", 13, 20, 5, 3, 10, 5, 18},
		{"one query one document", 1, 1, 1, 0, 1, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, d := random(rng, c.nq, c.dim), random(rng, c.nd, c.dim)
			out := make([]float32, (c.q1-c.q0)*(c.d1-c.d0))
			Block(q, d, c.q0, c.q1, c.d0, c.d1, out)
			for i := c.q0; i < c.q1; i++ {
				for j := c.d0; j < c.d1; j++ {
					got := out[(i-c.q0)*(c.d1-c.d0)+j-c.d0]
					if want := naiveScore(q.Row(i), d.Row(j)); got != want {
						t.Fatalf("score (%d, %d) = %v, naive %v", i, j, got, want)
					}
					// And the float32 score is the cosine to float32 accuracy.
					var exact float64
					for k := range q.Row(i) {
						exact += float64(q.Row(i)[k]) * float64(d.Row(j)[k])
					}
					if math.Abs(float64(got)-exact) > 1e-5 {
						t.Fatalf("score (%d, %d) = %v, float64 %v", i, j, got, exact)
					}
				}
			}
		})
	}
}

func TestRanksEqualNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	q, d := random(rng, 37, 24), random(rng, 1001, 24)
	targets := make([]int, q.Rows)
	for i := range targets {
		targets[i] = rng.IntN(d.Rows)
	}
	// A planted near-copy of query 0's target makes a rank of 1 likely
	// there, and a copy of the target itself makes an exact tie.
	copy(q.Row(0), d.Row(targets[0]))
	copy(d.Row(500), d.Row(targets[1]))
	for _, opt := range []Options{
		{},
		{QueryBlock: 4, DocBlock: 7, Workers: 3},
		{QueryBlock: 64, DocBlock: 2000, Workers: 1},
		{QueryBlock: 1, DocBlock: 1, Workers: 8},
	} {
		ranks, scores, err := Ranks(context.Background(), q, d, targets, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range targets {
			if want := naiveRank(q.Row(i), d, targets[i]); ranks[i] != want {
				t.Errorf("%+v: query %d: rank %d, naive %d", opt, i, ranks[i], want)
			}
			if want := naiveScore(q.Row(i), d.Row(targets[i])); scores[i] != want {
				t.Errorf("%+v: query %d: score %v, naive %v", opt, i, scores[i], want)
			}
		}
		if ranks[0] != 1 {
			t.Errorf("%+v: the query equal to its target ranks it %d, want 1", opt, ranks[0])
		}
	}
}

func TestRankTies(t *testing.T) {
	// Three equal scores: ties go to the lower index.
	for _, c := range []struct {
		name   string
		scores []float64
		t      int
		want   int
	}{
		{"best", []float64{0.1, 0.9, 0.3}, 1, 1},
		{"worst", []float64{0.1, 0.9, 0.3}, 0, 3},
		{"tie, lower index first", []float64{0.5, 0.5, 0.5}, 1, 2},
		{"tie, first of them", []float64{0.5, 0.5, 0.5}, 0, 1},
		{"tie below a better one", []float64{0.9, 0.5, 0.5}, 2, 3},
	} {
		if got := RankOf(c.scores, c.t); got != c.want {
			t.Errorf("%s: RankOf = %d, want %d", c.name, got, c.want)
		}
		// Ranks agrees on the same scores: a one-dimensional pool whose
		// values are the scores and a query of 1.
		d := NewMatrix(len(c.scores), 1)
		for i, s := range c.scores {
			d.Data[i] = float32(s)
		}
		q := Matrix{Rows: 1, Dim: 1, Data: []float32{1}}
		r, _, err := Ranks(context.Background(), q, d, []int{c.t}, Options{DocBlock: 2})
		if err != nil || r[0] != c.want {
			t.Errorf("%s: Ranks = %v, %v, want %d", c.name, r, err, c.want)
		}
	}
}

// TestBeating checks the count of one block's row on its own: the target
// inside the block, before it and after it (ties count only ahead of the
// target), and a NaN score, which beats nothing.
func TestBeating(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		name  string
		row   []float32
		d0, t int
		st    float32
		want  int
	}{
		// hand: 0.9 beats, and so do the ties at 2 and 3, ahead of t = 4.
		{"target inside", []float32{0.1, 0.9, 0.5, 0.5, 0.5, 0.5}, 0, 4, 0.5, 3},
		// hand: the block is documents 10–13, all after t = 2: ties lose.
		{"target before the block", []float32{0.5, 0.7, 0.5, 0.2}, 10, 2, 0.5, 1},
		// hand: documents 0–3, all before t = 9: ties win.
		{"target after the block", []float32{0.5, 0.7, 0.5, 0.2}, 0, 9, 0.5, 3},
		{"target at the block's start", []float32{0.5, 0.5, 0.6}, 7, 7, 0.5, 1},
		{"NaN scores beat nothing", []float32{nan, 0.6, nan}, 0, 1, 0.5, 1},
		{"empty row", nil, 0, 0, 0.5, 0},
	} {
		if got := beating(c.row, c.d0, c.t, c.st); got != c.want {
			t.Errorf("%s: beating = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestRanksCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	q, d := random(rng, 8, 4), random(rng, 100, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Ranks(ctx, q, d, make([]int, 8), Options{}); err == nil {
		t.Fatal("a cancelled context ranked anyway")
	}
}

// BenchmarkFullPoolRanking is the full-pool ranking of the paper's scale:
// 1,000 queries over 71,000 documents at dimension 1,024. `make bench`
// runs it with GOMAXPROCS=2 next to numpy doing the same work
// (testdata/time_numpy.py; goal: within 2× of numpy's time). It reports
// the seconds, the CPU seconds, the input size, the scratch buffers
// (Options.BufferBytes, bounded by the block size, not the pool) and the
// process's peak resident memory. POOLRANK_DOCS overrides the pool size
// for a quick run, POOLRANK_KERNEL picks the kernel (avx512, avx2, or go
// for Block alone) instead of the fastest this CPU runs, and
// POOLRANK_QUERY_BLOCK sets Options.QueryBlock.
func BenchmarkFullPoolRanking(b *testing.B) {
	nq, nd, dim := 1000, 71000, 1024
	if s := os.Getenv("POOLRANK_DOCS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		nd = n
	}
	defer func(k *kernel) { kern = k }(kern)
	if s := os.Getenv("POOLRANK_KERNEL"); s != "" {
		kern = nil
		for _, k := range kernels {
			if k.name == s {
				kern = k
			}
		}
		if kern == nil && s != "go" {
			b.Fatalf("POOLRANK_KERNEL=%s: this CPU runs %s and go", s, kernelNames())
		}
	}
	kname := "go"
	if kern != nil {
		kname = kern.name
	}
	rng := rand.New(rand.NewPCG(4, 4))
	q, d := random(rng, nq, dim), random(rng, nd, dim)
	targets := make([]int, nq)
	for i := range targets {
		targets[i] = rng.IntN(nd)
	}
	opt := Options{}
	if s := os.Getenv("POOLRANK_QUERY_BLOCK"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		opt.QueryBlock = n
	}
	b.ResetTimer()
	var took, cpu time.Duration
	for range b.N {
		start, cpu0 := time.Now(), cpuTime()
		if _, _, err := Ranks(context.Background(), q, d, targets, opt); err != nil {
			b.Fatal(err)
		}
		took, cpu = time.Since(start), cpuTime()-cpu0
	}
	b.StopTimer()
	inputMB := float64(len(q.Data)+len(d.Data)) * 4 / (1 << 20)
	b.ReportMetric(took.Seconds(), "s/ranking")
	// CPU time over the cores is what the wall time would be on idle
	// cores: on a shared machine the wall time measures the neighbours too.
	b.ReportMetric(cpu.Seconds(), "cpu-s")
	b.ReportMetric(inputMB, "input-MiB")
	b.ReportMetric(float64(opt.BufferBytes(dim))/(1<<20), "buffers-MiB")
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(hwm, "peak-RSS-MiB")
	}
	b.Logf("%d queries × %d documents × %d dims on %d cores, %s kernel: %.2f s wall, %.2f s CPU (%.2f s per core); inputs %.0f MiB, scratch %.1f MiB, peak RSS %.0f MiB",
		nq, nd, dim, runtime.GOMAXPROCS(0), kname, took.Seconds(), cpu.Seconds(), cpu.Seconds()/float64(runtime.GOMAXPROCS(0)), inputMB, float64(opt.BufferBytes(dim))/(1<<20), peakRSS())
}

// peakRSS is the process's peak resident set (VmHWM) in MiB, 0 where
// /proc is not there.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// kernelNames lists the kernels this CPU runs.
func kernelNames() string {
	var ns []string
	for _, k := range kernels {
		ns = append(ns, k.name)
	}
	return strings.Join(ns, ", ")
}
