package bt_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/seed"
	"github.com/saber-math/saber/lib/swiss"
	"github.com/saber-math/saber/lib/swiss/swisssim"
)

// The issue's bar: "BT fits for 1,000 queries × 1,500 comparisons in ≤ 1 s
// on 2 cores". One op of BenchmarkFit1000Queries is 1,000 fits of 150 items,
// spread over GOMAXPROCS goroutines, one Fitter each. Run with
//
//	go test -run '^$' -bench Fit1000Queries -count 5 ./lib/bt
//
// Two inputs: "swiss" is what the pipeline fits — a 20-round Swiss
// tournament per query (about 1,490 judgments; the rest are byes) judged by
// a simulated judge of noise 0.5 (lib/swiss/swisssim); "random" is exactly
// 1,500 distinct uniform pairs judged with noise 1.
//
// Measured on the 2-core development VM (AMD "Turin-like", Go 1.26.8),
// GOMAXPROCS = 2, -count 5, while other engineers' builds and tests were
// running on the same two cores (load average 3–6), so wall time includes
// waiting for a core and cpu-s/op (process CPU time per op) is the steadier
// figure:
//
//	BenchmarkFit1000Queries/swiss-2    0.27–0.53 s/op   0.53–0.59 cpu-s/op
//	BenchmarkFit1000Queries/random-2   0.55–0.79 s/op   0.55–0.57 cpu-s/op
//	BenchmarkFitOne-2                  0.55–0.59 ms/op  (one fit, one goroutine)
//
// About 7 steps a fit: 4 conjugate-gradient steps, one Cholesky
// factorisation of the 150 × 150 Hessian, 2–3 chord steps. Plain Newton
// from θ = 0 (every step a factorisation) took 3–3.6 ms a fit.

const (
	benchQueries = 1000
	benchItems   = 150
)

var benchData = map[string][][]bt.Comparison{}

func benchInputs(kind string) [][]bt.Comparison {
	if d, ok := benchData[kind]; ok {
		return d
	}
	d := make([][]bt.Comparison, benchQueries)
	for q := range d {
		key := fmt.Sprint(q)
		scores := swisssim.Latent(benchItems, seed.Rand(1, "bench/latent", key))
		switch kind {
		case "swiss":
			j := &swisssim.Judge{Scores: scores, Noise: 0.5, Rng: seed.Rand(1, "bench/judge", key)}
			t, err := swisssim.Swiss(swiss.DefaultRounds, swiss.SeedRounds(1, "bench/swiss", key), j)
			if err != nil {
				panic(err)
			}
			d[q] = swisssim.Comparisons(t.Judgments())
		case "random":
			j := &swisssim.Judge{Scores: scores, Noise: 1, Rng: seed.Rand(1, "bench/judge", key)}
			js, err := swisssim.Random(1500, seed.Rand(1, "bench/random", key), j)
			if err != nil {
				panic(err)
			}
			d[q] = swisssim.Comparisons(js)
		}
	}
	benchData[kind] = d
	return d
}

func BenchmarkFit1000Queries(b *testing.B) {
	for _, kind := range []string{"swiss", "random"} {
		b.Run(kind, func(b *testing.B) {
			data := benchInputs(kind)
			games := 0
			for _, g := range data {
				games += len(g)
			}
			workers := runtime.GOMAXPROCS(0)
			fitters := make([]bt.Fitter, workers)
			var steps, cgs, facts atomic.Int64
			cpu0 := processCPU()
			ops := 0
			for b.Loop() {
				ops++
				steps.Store(0)
				cgs.Store(0)
				facts.Store(0)
				var next atomic.Int64
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						f := &fitters[w]
						for {
							q := int(next.Add(1)) - 1
							if q >= len(data) {
								return
							}
							r, err := f.Fit(benchItems, data[q], bt.Options{})
							if err != nil {
								panic(err)
							}
							steps.Add(int64(r.Iterations))
							cgs.Add(int64(r.CGSteps))
							facts.Add(int64(r.Factorizations))
						}
					})
				}
				wg.Wait()
			}
			// CPU time is the steadier figure when the machine is shared:
			// wall time then includes waiting for a core.
			b.ReportMetric((processCPU()-cpu0).Seconds()/float64(ops), "cpu-s/op")
			b.ReportMetric(float64(games)/benchQueries, "games/query")
			b.ReportMetric(float64(steps.Load())/benchQueries, "steps/fit")
			b.ReportMetric(float64(cgs.Load())/benchQueries, "cg-steps/fit")
			b.ReportMetric(float64(facts.Load())/benchQueries, "factorisations/fit")
		})
	}
}

// BenchmarkFitOne is a single fit on one goroutine: the per-query cost.
func BenchmarkFitOne(b *testing.B) {
	data := benchInputs("swiss")
	var f bt.Fitter
	q := 0
	for b.Loop() {
		if _, err := f.Fit(benchItems, data[q%len(data)], bt.Options{}); err != nil {
			b.Fatal(err)
		}
		q++
	}
}
