package bench

// The pairs benchmark: the pairs stage's work (jobs/pairs: index, query every
// document, write the kept rows as zstd Parquet) on generated corpora of
// growing size with realistic topic and summary distributions
// (lib/synth/corpusdist), a least-squares fit of how time, pairs and bytes
// grow with N, and their extrapolation to the paper's corpus size beside the
// goals. At the smallest size a brute-force scan of every pair checks the
// index's answers and gives the speed-up.

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/lib/summtok"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/shard"
)

// Pairs benchmark defaults: the sizes measured, the paper's corpus size and
// the goals at that size.
var DefaultPairsSizes = []int{20000, 50000, 100000, PaperN} // PaperN: make bench prints the measured 283K row beside the goals

const (
	PaperN = 283000
	// The goals at PaperN (issue 25): the stage's core-hours, the bytes
	// it stores, the peak resident memory of one shard.
	GoalCoreHours     = 0.15
	GoalBytes         = 0.5e9
	GoalRSS           = 2e9
	defaultShardQuery = 25000
	eligibleK         = 50 // documents per category a query needs (SPEC §3)
)

// PairsOptions configure the pairs benchmark.
type PairsOptions struct {
	// Sizes are the corpus sizes, measured in ascending order.
	Sizes []int
	// Seed and Params select the generated corpus (nil Params: the defaults).
	Seed   uint64
	Params *corpusdist.Params
	// TopicFloor and SummFloor are the thresholds (default 0.858 and 0.211).
	TopicFloor, SummFloor float64
	// Workers is the number of queries in flight (default GOMAXPROCS).
	Workers int
	// BruteQueries is how many queries the brute-force scan takes at the
	// smallest size, against all documents: k > 0 a uniform sample of k
	// (its time is extrapolated to all queries; k ≥ N: all of them), < 0
	// none, and 0 the default: all of them up to BruteAllUpTo documents, a
	// sample of BruteSample beyond, since a scan of every pair grows as N²
	// (hours at the paper's 283K).
	BruteQueries int
	// ShardQueries is the number of queries per written object, as the
	// stage's shards (default 25,000).
	ShardQueries int
	// Target is the size extrapolated to (default PaperN).
	Target int
	// KeepAll writes every pair, as pairs.keep_all does, instead of the
	// per-query counts over calibrate's default grid the stage writes by
	// default.
	KeepAll bool
	// Dir is the store root the rows are written to (default: a temporary
	// directory); it is removed afterwards unless Keep, and each object as
	// soon as it is measured unless Keep.
	Dir  string
	Keep bool
}

// PairsRow is one corpus size's measurement.
type PairsRow struct {
	N, Workers               int
	Gen, Index, Query, Write time.Duration
	// CPU is the process's CPU time (user + system, all threads: GC
	// included) over index, queries and write: the core-seconds actually
	// spent, which unlike wall × workers does not count time lost to other
	// processes on a shared machine.
	CPU time.Duration
	// SearchCPU is the part of CPU spent indexing and querying.
	SearchCPU                time.Duration
	Pairs, Topic, Summ, Both int64
	MedianPerQuery           int
	// Eligible is the number of queries with at least K·N/Target pairs in
	// each category (K = 50): about the share eligible at Target, since
	// pairs per query grow linearly with N.
	Eligible    int
	Bytes       int64            // the Parquet objects written
	ColumnBytes map[string]int64 // compressed column chunks, by column
	PeakHeapMiB float64          // sampled every 20 ms
	// PeakRSS is the process's peak resident bytes over the size (reset
	// before it where Linux allows, else since the process began), or 0
	// where unknown: what one shard's process needs, since the shards of
	// the size run one after another over one index, as one shard's
	// process holds it.
	PeakRSS int64
	// Rows is the rows written: pairs, or queries with counts.
	Rows int64
}

// Stage is the stage's work: index, queries and write.
func (r PairsRow) Stage() time.Duration { return r.Index + r.Query + r.Write }

// CoreSeconds is the stage's wall time times the workers.
func (r PairsRow) CoreSeconds() float64 { return r.Stage().Seconds() * float64(r.Workers) }

// Brute is the brute-force check at one size.
type Brute struct {
	N, Queries int
	// Wall is the time the scan of Queries queries took; AllWall is that
	// extrapolated to all N queries (equal when Queries == N).
	Wall, AllWall time.Duration
	// CPU and AllCPU are the same in process CPU time.
	CPU, AllCPU time.Duration
	// Indexed and IndexedCPU are the indexed wall and CPU time at this size
	// (index + queries, no write).
	Indexed, IndexedCPU time.Duration
	Pairs               int64 // pairs the brute force kept for its queries
}

// Fit is y ≈ Coef · N^Exp, by least squares on logarithms.
type Fit struct{ Exp, Coef float64 }

// At returns the fitted value at n.
func (f Fit) At(n int) float64 { return f.Coef * math.Pow(float64(n), f.Exp) }

// PairsReport is the whole benchmark.
type PairsReport struct {
	Rows  []PairsRow
	Brute *Brute
	// TimeFit is of wall × workers, CPUFit of CPU (both stage core-seconds).
	TimeFit, CPUFit, PairsFit, ByteFit, RSSFit Fit
	Target                                     int
	// KeepAll: every pair was written (PairsOptions.KeepAll).
	KeepAll bool
	// LoadBefore and LoadAfter are the 1-minute load averages around the
	// run: above the core count, other processes competed for the cores.
	LoadBefore, LoadAfter string
}

func (o *PairsOptions) defaults() {
	if len(o.Sizes) == 0 {
		o.Sizes = DefaultPairsSizes
	}
	if o.TopicFloor == 0 {
		o.TopicFloor = 0.858
	}
	if o.SummFloor == 0 {
		o.SummFloor = 0.211
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.ShardQueries <= 0 {
		o.ShardQueries = defaultShardQuery
	}
	if o.Target <= 0 {
		o.Target = PaperN
	}
	if o.Params == nil {
		p := corpusdist.DefaultParams()
		o.Params = &p
	}
}

// RunPairs runs the pairs benchmark and prints its table to out.
func RunPairs(ctx context.Context, opt PairsOptions, out io.Writer) (*PairsReport, error) {
	opt.defaults()
	sizes := slices.Clone(opt.Sizes)
	slices.Sort(sizes)
	if sizes[0] < 2 {
		return nil, fmt.Errorf("bench: pairs sizes must be ≥ 2, got %v", opt.Sizes)
	}
	if opt.Dir == "" {
		d, err := os.MkdirTemp("", "saber-bench-pairs-")
		if err != nil {
			return nil, err
		}
		opt.Dir = d
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	if !opt.Keep {
		defer os.RemoveAll(opt.Dir)
	}
	st, err := store.Open(ctx, opt.Dir, store.Options{})
	if err != nil {
		return nil, err
	}
	tree, err := aontology.DefaultTree()
	if err != nil {
		return nil, err
	}
	gen, err := corpusdist.New(tree, opt.Seed, *opt.Params)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "\npairs: generated corpora (lib/synth/corpusdist, seed %d), τ_topic %v, τ_summ %v, %d workers, %d queries per written shard\n",
		opt.Seed, opt.TopicFloor, opt.SummFloor, opt.Workers, opt.ShardQueries)
	rep := &PairsReport{Target: opt.Target, LoadBefore: loadAverage(), KeepAll: opt.KeepAll}
	for k, n := range sizes {
		fmt.Fprintf(out, "pairs: N = %d …\n", n)
		row, c, f, err := runPairsSize(ctx, opt, gen, tree, st, n)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
		if k == 0 && opt.BruteQueries >= 0 {
			fmt.Fprintf(out, "pairs: brute force at N = %d …\n", n)
			b, err := runBrute(ctx, opt, c, f)
			if err != nil {
				return nil, err
			}
			b.Indexed, b.IndexedCPU = row.Index+row.Query, row.SearchCPU
			rep.Brute = b
		}
	}
	if len(rep.Rows) >= 2 {
		var ns []int
		var ts, cs, ps, bs, rs []float64
		for _, r := range rep.Rows {
			ns = append(ns, r.N)
			ts = append(ts, r.CoreSeconds())
			cs = append(cs, r.CPU.Seconds())
			ps = append(ps, float64(r.Pairs))
			bs = append(bs, float64(r.Bytes))
			rs = append(rs, float64(r.PeakRSS))
		}
		rep.RSSFit = FitPower(ns, rs)
		rep.TimeFit, rep.CPUFit = FitPower(ns, ts), FitPower(ns, cs)
		rep.PairsFit, rep.ByteFit = FitPower(ns, ps), FitPower(ns, bs)
	}
	rep.LoadAfter = loadAverage()
	PrintPairs(out, rep)
	return rep, nil
}

// Generate returns the pairs corpus of the first n documents of gen, in id
// order as the stage loads it.
func Generate(gen *corpusdist.Generator, tree *ontology.Tree, n int) *relevance.Corpus {
	docs := make([]corpusdist.Doc, n)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				docs[i] = gen.Doc(i)
			}
		})
	}
	wg.Wait()
	sort.Slice(docs, func(i, j int) bool { return docs[i].ID < docs[j].ID })
	c := &relevance.Corpus{Tree: tree, IDs: make([]string, n), Topics: make([][]int, n), Tokens: make([][]string, n)}
	for i, d := range docs {
		c.IDs[i], c.Topics[i], c.Tokens[i] = d.ID, d.Topics, d.Tokens
	}
	c.IC = ontology.InformationContent(tree, c.Topics)
	return c
}

func runPairsSize(ctx context.Context, opt PairsOptions, gen *corpusdist.Generator, tree *ontology.Tree, st store.Store, n int) (PairsRow, *relevance.Corpus, *relevance.Finder, error) {
	row := PairsRow{N: n, Workers: opt.Workers, ColumnBytes: map[string]int64{}}
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	stop := sampleHeap()
	defer stop()

	t0 := time.Now()
	c := Generate(gen, tree, n)
	row.Gen = time.Since(t0)

	cpu0 := cpuTime()
	t0 = time.Now()
	f := relevance.NewFinder(c, opt.TopicFloor, opt.SummFloor)
	row.Index = time.Since(t0)
	row.SearchCPU = cpuTime() - cpu0

	// The counts are over calibrate's default grid, as the stage counts
	// them under a default config.
	grid := pairs.Edges(config.Default(calibrate.Section))
	counter := pairs.NewCounter(f, grid, grid.String(), opt.TopicFloor, opt.SummFloor)
	perQuery := make([]int, n)
	need := (eligibleK*n + opt.Target - 1) / opt.Target
	shards := (n + opt.ShardQueries - 1) / opt.ShardQueries
	type found struct {
		ps      []relevance.Pair
		count   dataset.PairCount
		t, s, b int
	}
	results := make([]found, pairs.Chunk)
	for s := range shards {
		spec := shard.Spec{Index: s, Count: shards}
		lo, hi := spec.Range(n)
		key := layout.DataKey("bench", dataset.PairCounts.Name, spec)
		if opt.KeepAll {
			key = layout.DataKey("bench", dataset.Pairs.Name, spec)
		}
		pw, err := dataset.NewWriter[dataset.Pair](ctx, st, key)
		if err != nil {
			return row, nil, nil, err
		}
		cw, err := dataset.NewWriter[dataset.PairCount](ctx, st, key)
		if err != nil {
			return row, nil, nil, err
		}
		// As the stage: a chunk of queries found in parallel, then written
		// while the next waits, the shard never holding more than a chunk.
		for start := lo; start < hi; start += pairs.Chunk {
			m := min(pairs.Chunk, hi-start)
			t0, qcpu := time.Now(), cpuTime()
			err := parallel.For(ctx, m, opt.Workers, func(_ context.Context, i int) error {
				r := found{}
				if opt.KeepAll {
					r.ps = f.Query(start + i)
					for _, p := range r.ps {
						switch p.Category {
						case relevance.CategoryTopic:
							r.t++
						case relevance.CategorySummary:
							r.s++
						case relevance.CategoryBoth:
							r.b++
						}
					}
				} else {
					var cats [3]int64
					r.count, cats = counter.Count(c.IDs[start+i], start+i)
					r.t, r.s, r.b = int(cats[0]), int(cats[1]), int(cats[2])
				}
				perQuery[start+i] = r.t + r.s + r.b
				results[i] = r
				return nil
			})
			row.Query += time.Since(t0)
			row.SearchCPU += cpuTime() - qcpu
			if err != nil {
				pw.Abort()
				cw.Abort()
				return row, nil, nil, err
			}
			t0 = time.Now()
			for i := range m {
				r := &results[i]
				row.Topic, row.Summ, row.Both = row.Topic+int64(r.t), row.Summ+int64(r.s), row.Both+int64(r.b)
				row.Pairs += int64(r.t + r.s + r.b)
				if min(r.t, r.s, r.b) >= need {
					row.Eligible++
				}
				if opt.KeepAll {
					rows := make([]dataset.Pair, len(r.ps))
					for j, p := range r.ps {
						rows[j] = dataset.Pair{Query: c.IDs[start+i], Doc: p.Doc, SimTopic: p.SimTopic, SimSumm: p.SimSumm, Category: p.Category}
					}
					err = pw.Write(rows)
				} else if r.count.Pairs > 0 {
					err = cw.Write([]dataset.PairCount{r.count})
				}
				*r = found{}
				if err != nil {
					pw.Abort()
					cw.Abort()
					return row, nil, nil, err
				}
			}
			row.Write += time.Since(t0)
		}
		t0 = time.Now()
		w := func() (layout.Object, error) { cw.Abort(); return pw.Close() }
		if !opt.KeepAll {
			w = func() (layout.Object, error) { pw.Abort(); return cw.Close() }
		}
		obj, err := w()
		row.Write += time.Since(t0)
		if err != nil {
			return row, nil, nil, err
		}
		row.Rows += obj.Rows
		row.Bytes += obj.Size
		if err := addColumnBytes(ctx, st, obj.Key, row.ColumnBytes); err != nil {
			return row, nil, nil, err
		}
		if !opt.Keep {
			if err := st.Delete(ctx, obj.Key); err != nil {
				return row, nil, nil, err
			}
		}
	}
	row.CPU = cpuTime() - cpu0
	slices.Sort(perQuery)
	row.MedianPerQuery = perQuery[n/2]
	row.PeakHeapMiB = float64(stop()) / (1 << 20)
	row.PeakRSS = peakRSS()
	return row, c, f, nil
}

// resetPeakRSS resets the kernel's record of the process's peak resident
// set (Linux ≥ 4.0), so that peakRSS measures from here.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns the process's peak resident bytes (VmHWM), 0 where there
// is no /proc.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// addColumnBytes adds the compressed size of each column of a Parquet object.
func addColumnBytes(ctx context.Context, st store.Store, key string, into map[string]int64) error {
	obj, err := st.Open(ctx, key)
	if err != nil {
		return err
	}
	defer obj.Close()
	f, err := parquet.OpenFile(obj, obj.Size())
	if err != nil {
		return fmt.Errorf("bench: read back %s: %w", key, err)
	}
	for _, rg := range f.Metadata().RowGroups {
		for _, col := range rg.Columns {
			into[strings.Join(col.MetaData.PathInSchema, ".")] += col.MetaData.TotalCompressedSize
		}
	}
	return nil
}

// loadAverage returns the 1-minute load average, or "?" where there is no
// /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// cpuTime returns the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleHeap samples the bytes of live and not yet swept heap objects every
// 20 ms until the returned function is called, which returns the peak.
func sampleHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 {
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
		}
	}
	wg.Add(1)
	parallel.Go(func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	})
	return func() uint64 {
		once.Do(func() {
			close(done)
			wg.Wait()
			read()
		})
		return peak.Load()
	}
}

// runBrute scores every document against each of the chosen queries with
// BMA and Jaccard (token sets as sorted ids), checks that the kept pairs are
// exactly the Finder's, with equal similarities and categories, and times it.
func runBrute(ctx context.Context, opt PairsOptions, c *relevance.Corpus, f *relevance.Finder) (*Brute, error) {
	n := len(c.IDs)
	queries := BruteQueries(n, opt.BruteQueries, opt.Seed)
	ids := tokenIDs(c.Tokens)
	kept := make([][]relevance.Pair, len(queries))
	cpu0 := cpuTime()
	t0 := time.Now()
	err := parallel.For(ctx, len(queries), opt.Workers, func(_ context.Context, k int) error {
		kept[k] = BruteQuery(c, ids, queries[k], opt.TopicFloor, opt.SummFloor)
		return nil
	})
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	if err != nil {
		return nil, err
	}
	scale := float64(n) / float64(len(queries))
	b := &Brute{N: n, Queries: len(queries), Wall: wall, CPU: cpu,
		AllWall: time.Duration(float64(wall) * scale), AllCPU: time.Duration(float64(cpu) * scale)}
	for k, q := range queries {
		b.Pairs += int64(len(kept[k]))
		if err := SamePairs(kept[k], f.Query(q)); err != nil {
			return nil, fmt.Errorf("bench: query %s: brute force and index disagree: %w", c.IDs[q], err)
		}
	}
	return b, nil
}

// The default brute-force check (PairsOptions.BruteQueries 0): every query
// of a corpus of up to BruteAllUpTo documents, else a sample of BruteSample.
const (
	BruteAllUpTo = 20000
	BruteSample  = 1000
)

// BruteQueries returns the queries a brute-force scan of k queries takes
// among n (k = 0: the default above), a uniform sample seeded by seed,
// ascending.
func BruteQueries(n, k int, seed uint64) []int {
	if k == 0 && n > BruteAllUpTo {
		k = BruteSample
	}
	if k <= 0 || k >= n {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	r := rand.New(rand.NewPCG(seed, 0xb1d7e))
	qs := r.Perm(n)[:k]
	slices.Sort(qs)
	return qs
}

// tokenIDs maps the token sets to sorted int32 ids.
func tokenIDs(tokens [][]string) [][]int32 {
	vocab := map[string]int32{}
	out := make([][]int32, len(tokens))
	for i, ts := range tokens {
		for _, t := range ts {
			id, ok := vocab[t]
			if !ok {
				id = int32(len(vocab))
				vocab[t] = id
			}
			out[i] = append(out[i], id)
		}
		slices.Sort(out[i])
	}
	return out
}

// BruteQuery returns the pairs of query q by scoring every document, sorted
// by document id.
func BruteQuery(c *relevance.Corpus, ids [][]int32, q int, tauT, tauS float64) []relevance.Pair {
	var out []relevance.Pair
	for d := range c.IDs {
		if d == q {
			continue
		}
		st := ontology.BMA(c.Tree, c.IC, c.Topics[q], c.Topics[d])
		ss := summtok.Jaccard(ids[q], ids[d])
		if cat := relevance.Category(st, ss, tauT, tauS); cat != "" {
			out = append(out, relevance.Pair{Doc: c.IDs[d], SimTopic: st, SimSumm: ss, Category: cat})
		}
	}
	return out
}

// SamePairs reports how want and got differ (both sorted by Doc), or nil:
// the same documents, categories and similarities (to 1e-12).
func SamePairs(want, got []relevance.Pair) error {
	if len(want) != len(got) {
		return fmt.Errorf("%d pairs by brute force, %d by the index", len(want), len(got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Doc != g.Doc || w.Category != g.Category ||
			math.Abs(w.SimTopic-g.SimTopic) > 1e-12 || math.Abs(w.SimSumm-g.SimSumm) > 1e-12 {
			return fmt.Errorf("pair %d: brute force %+v, index %+v", i, w, g)
		}
	}
	return nil
}

// FitPower fits y = c·n^k by least squares on (ln n, ln y), skipping
// non-positive y; NaNs when fewer than two points remain.
func FitPower(ns []int, ys []float64) Fit {
	var xs, ls []float64
	for i, y := range ys {
		if y > 0 && ns[i] > 0 {
			xs = append(xs, math.Log(float64(ns[i])))
			ls = append(ls, math.Log(y))
		}
	}
	if len(xs) < 2 {
		return Fit{math.NaN(), math.NaN()}
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ls[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ls[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return Fit{math.NaN(), math.NaN()}
	}
	k := sxy / sxx
	return Fit{Exp: k, Coef: math.Exp(my - k*mx)}
}

// PrintPairs writes the pairs table, the fits and the extrapolation.
func PrintPairs(out io.Writer, rep *PairsReport) {
	fmt.Fprintf(out, "\nmachine: %d cores, %s/%s, %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "N\tgen s\tindex s\tquery s\twrite s\tstage wall s\twall×workers s\tCPU s\tpairs\ttopic\tsummary\tboth\tper query\tmedian\teligible %\t% of N²\trows stored\tMB stored\tB/pair\tpeak heap MiB\tpeak RSS MiB\t")
	for _, r := range rep.Rows {
		all := float64(r.N) * float64(r.N-1)
		bpp := math.NaN()
		if r.Pairs > 0 {
			bpp = float64(r.Bytes) / float64(r.Pairs)
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%.0f\t%d\t%.1f\t%.3f\t%d\t%.1f\t%.2f\t%.0f\t%.0f\t\n",
			r.N, r.Gen.Seconds(), r.Index.Seconds(), r.Query.Seconds(), r.Write.Seconds(), r.Stage().Seconds(), r.CoreSeconds(), r.CPU.Seconds(),
			r.Pairs, r.Topic, r.Summ, r.Both, float64(r.Pairs)/float64(r.N), r.MedianPerQuery, 100*float64(r.Eligible)/float64(r.N), 100*float64(r.Pairs)/all,
			r.Rows, float64(r.Bytes)/1e6, bpp, r.PeakHeapMiB, float64(r.PeakRSS)/(1<<20))
	}
	tw.Flush()
	what := "each query's pairs counted over calibrate's default grid (pair_counts, the stage's default)"
	if rep.KeepAll {
		what = "every pair (pairs, as pairs.keep_all)"
	}
	fmt.Fprintf(out, "stored: %s; peak RSS: the process's, reset before each size: one shard's need, as the shards run in turn over one index\n", what)
	fmt.Fprintln(out, "stage = index + queries + write (zstd Parquet, as the stage writes it); CPU = the process's CPU time over the stage (GC included);")
	fmt.Fprintln(out, "gen (the corpus generator) is not part of the stage; pairs are ordered (query, document), per query = pairs / N;")
	fmt.Fprintf(out, "eligible = queries with ≥ %d·N/%d pairs in each category, about those with ≥ %d at N = %d (pairs per query grow ∝ N)\n",
		eligibleK, rep.Target, eligibleK, rep.Target)
	if b := rep.Brute; b != nil {
		what := fmt.Sprintf("all %d queries × %d documents", b.Queries, b.N)
		if b.Queries < b.N {
			what = fmt.Sprintf("a uniform sample of %d of %d queries × %d documents, times extrapolated to all %d queries", b.Queries, b.N, b.N, b.N)
		}
		fmt.Fprintf(out, "brute force at N = %d (%s): %.1f s wall, %.1f s CPU; indexed (index + queries): %.1f s wall, %.1f s CPU ⇒ brute/indexed = %.1f× wall, %.1f× CPU; %d pairs, exactly the index's for those queries\n",
			b.N, what, b.AllWall.Seconds(), b.AllCPU.Seconds(), b.Indexed.Seconds(), b.IndexedCPU.Seconds(),
			b.AllWall.Seconds()/b.Indexed.Seconds(), b.AllCPU.Seconds()/b.IndexedCPU.Seconds(), b.Pairs)
	}
	last := rep.Rows[len(rep.Rows)-1]
	if last.Pairs > 0 {
		cols := make([]string, 0, len(last.ColumnBytes))
		for c := range last.ColumnBytes {
			cols = append(cols, c)
		}
		sort.Slice(cols, func(a, b int) bool { return last.ColumnBytes[cols[a]] > last.ColumnBytes[cols[b]] })
		// Per pair for the full list, which grows with the pairs; per
		// document for the counts, which grow with N (per pair they
		// would all print as 0.0).
		unit, per := "pair", float64(last.Pairs)
		if !rep.KeepAll {
			unit, per = "document", float64(last.N)
		}
		var parts []string
		for _, c := range cols {
			parts = append(parts, fmt.Sprintf("%s %.1f", c, float64(last.ColumnBytes[c])/per))
		}
		fmt.Fprintf(out, "bytes per %s by column at N = %d: %s\n", unit, last.N, strings.Join(parts, ", "))
	}
	for _, r := range rep.Rows {
		if r.N == rep.Target {
			fmt.Fprintf(out, "measured at N = %d: pairs stage CPU %.3f core-hours (wall × workers %.3f): goal ≤ %g: %s; stored %.3f GB: goal ≤ %g GB: %s; peak RSS per shard %.2f GB: goal ≤ %g GB: %s\n",
				r.N, r.CPU.Hours(), r.CoreSeconds()/3600, GoalCoreHours, verdict(r.CPU.Hours() <= GoalCoreHours),
				float64(r.Bytes)/1e9, GoalBytes/1e9, verdict(float64(r.Bytes) <= GoalBytes),
				float64(r.PeakRSS)/1e9, GoalRSS/1e9, verdict(r.PeakRSS > 0 && float64(r.PeakRSS) <= GoalRSS))
		}
	}
	if len(rep.Rows) < 2 {
		fmt.Fprintln(out, "(one size only: no growth fit)")
		fmt.Fprintf(out, "load average (1 min) before %s, after %s on %d cores\n", rep.LoadBefore, rep.LoadAfter, runtime.NumCPU())
		return
	}
	fmt.Fprintf(out, "growth, least squares on logs over N = %v: CPU ∝ N^%.2f, wall×workers ∝ N^%.2f, pairs ∝ N^%.2f, bytes ∝ N^%.2f\n",
		ns(rep.Rows), rep.CPUFit.Exp, rep.TimeFit.Exp, rep.PairsFit.Exp, rep.ByteFit.Exp)
	T := rep.Target
	// The kept pairs grow as N², so the work and the bytes cannot grow
	// slower for long: a fitted exponent below 2 (fixed per-query costs and
	// better compression at small N) is also extrapolated as N² from the
	// largest size.
	sq := math.Pow(float64(T)/float64(last.N), 2)
	cpuH := rep.CPUFit.At(T) / 3600
	cpuSq := last.CPU.Seconds() * sq / 3600
	wallH := rep.TimeFit.At(T) / 3600
	wallSq := last.CoreSeconds() * sq / 3600
	bytes, pairsT := rep.ByteFit.At(T), rep.PairsFit.At(T)
	// Every pair grows as the pairs; counts as the queries with pairs.
	bytesSq := float64(last.Bytes) / float64(last.Pairs) * pairsT
	if !rep.KeepAll {
		bytesSq = float64(last.Bytes) / float64(last.N) * float64(T)
	}
	fmt.Fprintf(out, "extrapolated to N = %d (fitted exponent; in brackets N² from N = %d where the fit grows slower; each verdict on the larger):\n", T, last.N)
	fmt.Fprintf(out, "  time:   CPU %.2f core-hours%s: goal ≤ %g core-hour: %s\n",
		cpuH, bracket(rep.CPUFit.Exp, cpuSq, "core-hours"), GoalCoreHours, verdict(max(cpuH, sqIf(rep.CPUFit.Exp, cpuSq)) <= GoalCoreHours))
	fmt.Fprintf(out, "          wall × workers %.2f core-hours%s (%.2f h wall on %d workers): goal ≤ %g core-hour: %s\n",
		wallH, bracket(rep.TimeFit.Exp, wallSq, "core-hours"), wallH/float64(last.Workers), last.Workers, GoalCoreHours,
		verdict(max(wallH, sqIf(rep.TimeFit.Exp, wallSq)) <= GoalCoreHours))
	fmt.Fprintf(out, "  pairs:  %.3g (%.0f per query)\n", pairsT, pairsT/float64(T))
	fmt.Fprintf(out, "  stored: %.3f GB (%.3f GB at N = %d's %.1f B/pair, %.0f B/document): goal ≤ %g GB: %s\n",
		bytes/1e9, bytesSq/1e9, last.N, float64(last.Bytes)/float64(last.Pairs), float64(last.Bytes)/float64(last.N), GoalBytes/1e9, verdict(max(bytes, bytesSq) <= GoalBytes))
	// The index and the corpus grow as N; a shard holds one chunk of
	// results besides.
	rss := rep.RSSFit.At(T)
	rssLin := float64(last.PeakRSS) / float64(last.N) * float64(T)
	fmt.Fprintf(out, "  peak RSS per shard: %.2f GB (%.2f GB ∝ N from N = %d): goal ≤ %g GB: %s\n",
		rss/1e9, rssLin/1e9, last.N, GoalRSS/1e9, verdict(last.PeakRSS > 0 && max(rss, rssLin) <= GoalRSS))
	fmt.Fprintf(out, "load average (1 min) before %s, after %s on %d cores: above the core count, other processes shared them, which inflates wall time but not CPU time\n",
		rep.LoadBefore, rep.LoadAfter, runtime.NumCPU())
}

// bracket shows the N² extrapolation when the fitted exponent is below 2.
func bracket(exp, sq float64, unit string) string {
	if exp >= 2 {
		return ""
	}
	return fmt.Sprintf(" [%.2f %s]", sq, unit)
}

func sqIf(exp, sq float64) float64 {
	if exp >= 2 {
		return 0
	}
	return sq
}

func ns(rows []PairsRow) []int {
	var out []int
	for _, r := range rows {
		out = append(out, r.N)
	}
	return out
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}
