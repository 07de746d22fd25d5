package simjoin

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// The benchmarks join records of 5–20 tokens drawn from a Zipf vocabulary of
// 5,000 ids (exponent 1) at t = 0.211, the default τ_summ. Run with
//
//	go test -run '^$' -bench . -benchtime 1x ./lib/simjoin
//
// One op is a whole self-join: Build and then Query for every record.
//
// On the 2-core development VM (AMD "Turin-like", Go 1.26.8), with 2,222,376
// ordered matches at 20K and 55,203,734 at 100K:
//
//	BenchmarkJoin/N=20000            1.0–1.1 s
//	BenchmarkJoin/N=100000           37–40 s
//	BenchmarkJoinParallel/N=20000    0.62–0.63 s (2 goroutines)
//	BenchmarkJoinParallel/N=100000   17–23 s (2 goroutines)
//	BenchmarkBruteForce (N=20000)    23 s, so the join is about 21× faster
//	BenchmarkRank (N=100000)         13–15 ms

const benchT = 0.211

var benchData = map[int][][]int32{}

func benchRecords(n int) [][]int32 {
	if r, ok := benchData[n]; ok {
		return r
	}
	r := Rank(zipfRecords(rand.New(rand.NewPCG(42, uint64(n))), n, 5000, 5, 20, 1.0))
	benchData[n] = r
	return r
}

// BenchmarkJoin is Build + Query-all on one goroutine.
func BenchmarkJoin(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			recs := benchRecords(n)
			matches := 0
			for b.Loop() {
				x := Build(recs, benchT)
				matches = 0
				for i := range recs {
					matches += len(x.Query(i))
				}
			}
			b.ReportMetric(float64(matches), "matches")
		})
	}
}

// BenchmarkJoinParallel is Build + Query-all with GOMAXPROCS goroutines
// taking queries from a shared counter, as the pairs stage's shards do.
func BenchmarkJoinParallel(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			recs := benchRecords(n)
			var matches atomic.Int64
			for b.Loop() {
				x := Build(recs, benchT)
				matches.Store(0)
				var next atomic.Int64
				var wg sync.WaitGroup
				for range runtime.GOMAXPROCS(0) {
					wg.Add(1)
					go func() {
						defer wg.Done()
						m := 0
						for i := int(next.Add(1) - 1); i < len(recs); i = int(next.Add(1) - 1) {
							m += len(x.Query(i))
						}
						matches.Add(int64(m))
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(matches.Load()), "matches")
		})
	}
}

// BenchmarkBruteForce scores all N(N−1)/2 pairs with a merge, on one
// goroutine, for comparison with BenchmarkJoin.
func BenchmarkBruteForce(b *testing.B) {
	const n = 20_000
	recs := benchRecords(n)
	matches := 0
	for b.Loop() {
		matches = 0
		for i := range recs {
			r := recs[i]
			for j := i + 1; j < len(recs); j++ {
				s := recs[j]
				o := 0
				for p, q := 0, 0; p < len(r) && q < len(s); {
					switch {
					case r[p] < s[q]:
						p++
					case r[p] > s[q]:
						q++
					default:
						o++
						p++
						q++
					}
				}
				if o > 0 && float64(o)/float64(len(r)+len(s)-o) > benchT {
					matches += 2
				}
			}
		}
	}
	b.ReportMetric(float64(matches), "matches")
}

func BenchmarkRank(b *testing.B) {
	raw := zipfRecords(rand.New(rand.NewPCG(42, 100_000)), 100_000, 5000, 5, 20, 1.0)
	for b.Loop() {
		Rank(raw)
	}
}
