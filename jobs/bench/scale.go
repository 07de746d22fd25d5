package bench

// The scale benchmark: the CPU stages of the main line, ingest → dedup →
// tag → summarize → pairs → calibrate → select, as a user runs them (the
// stage binaries under the local executor, with the shard counts a Slurm
// user would give them) on a generated corpus of N documents, with per
// stage: wall time, CPU time of its shard processes, the peak resident
// memory of its largest shard, and the bytes its shards read and wrote
// (from their manifests). tag and summarize use their synthetic backends
// (labels drawn from lib/synth/corpusdist by document id): the LLM stages'
// cost is `saber plan`'s to forecast, not a CPU benchmark's.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/synth"
)

// ScaleStages are the stages the scale benchmark runs, in order.
var ScaleStages = []string{"ingest", "dedup", "tag", "summarize", "pairs", "calibrate", "select"}

// DefaultShardDocs is the documents per shard of the map stages by default:
// about what one Slurm array task of 2 cores and a few GB gets through in
// minutes (SPEC §2: shards sized by memory and time, not by cores).
const DefaultShardDocs = 100000

// ScaleGoal is the goal for the pairs stage, and for every shard's
// memory, at one corpus size.
type ScaleGoal struct {
	N int
	// PairsCoreHours is the pairs stage's CPU time; StoredBytes what it
	// stores (the candidate data: pair_counts, and pairs when kept);
	// ShardRSS the peak resident memory of any one shard.
	PairsCoreHours    float64
	StoredBytes       float64
	ShardRSS          float64
	ShardRSSPairsOnly bool // the RSS goal is the pairs stage's alone
}

// ScaleGoals are the goals of issue 25 on 2 cores.
var ScaleGoals = []ScaleGoal{
	{N: PaperN, PairsCoreHours: GoalCoreHours, StoredBytes: GoalBytes, ShardRSS: GoalRSS, ShardRSSPairsOnly: true},
	{N: 1000000, PairsCoreHours: 2, StoredBytes: 2e9, ShardRSS: 4e9},
}

// ScaleOptions configure the scale benchmark.
type ScaleOptions struct {
	// N is the generated corpus's rows (before deduplication).
	N int
	// ShardDocs is the documents per shard of every sharded stage
	// (default DefaultShardDocs; at least 2 shards each).
	ShardDocs int
	// Parallel is the shard processes at once (default: one per core).
	Parallel int
	// Dir is the work directory; removed afterwards unless Keep.
	Dir  string
	Keep bool
	// BinDir holds the stage binaries.
	BinDir string
	// Progress, when not nil, gets a line per started and finished shard.
	Progress io.Writer
}

// ScaleRow is one stage's measurement.
type ScaleRow struct {
	Stage  string
	Shards int
	// Wall is the stage's wall time; CPU its shard processes' user +
	// system time.
	Wall, CPU time.Duration
	// PeakRSS is the largest peak resident memory of one of its shards.
	PeakRSS int64
	// Read and Written are the bytes its shards read (inputs as recorded
	// in their manifests: the bytes of each part or range opened) and
	// wrote (every output object).
	Read, Written int64
	// Rows is the rows of its main output (the first of its last step).
	Rows int64
	// Stored is what it wrote of the candidate data (pairs: pair_counts
	// and pairs), else 0.
	Stored int64
}

// ScaleReport is the whole benchmark.
type ScaleReport struct {
	N, Parallel            int
	Gen                    time.Duration
	InputBytes             int64
	Rows                   []ScaleRow
	LoadBefore, LoadAfter  string
	Queries, Candidates    int64
	Feasible               string
	Eligible               int64
	TotalWall              time.Duration
	ShardDocs              int
	Goal                   *ScaleGoal
	PairsRow, LargestShard *ScaleRow
}

// shardsFor is the shard count of a stage over n documents.
func shardsFor(n, per int) int { return max(2, (n+per-1)/per) }

// RunScale runs the scale benchmark and prints its table to out.
func RunScale(ctx context.Context, opt ScaleOptions, out io.Writer) (*ScaleReport, error) {
	if opt.N < 1000 {
		return nil, stage.BadInput(fmt.Errorf("bench: --scale %d: give at least 1000 documents", opt.N))
	}
	if opt.ShardDocs <= 0 {
		opt.ShardDocs = DefaultShardDocs
	}
	if opt.Parallel <= 0 {
		opt.Parallel = runtime.NumCPU()
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	if !opt.Keep {
		defer os.RemoveAll(opt.Dir)
	}
	rep := &ScaleReport{N: opt.N, Parallel: opt.Parallel, ShardDocs: opt.ShardDocs, LoadBefore: loadAverage()}
	for i := range ScaleGoals {
		if ScaleGoals[i].N == opt.N {
			rep.Goal = &ScaleGoals[i]
		}
	}
	input := filepath.Join(opt.Dir, "synth.jsonl")
	fmt.Fprintf(out, "scale: generating %d problems (lib/synth) …\n", opt.N)
	t0 := time.Now()
	if err := store.WriteFile(input, 0o644, func(w io.Writer) error {
		return synth.Write(w, synth.Config{N: opt.N, Seed: 7, DupFrac: synth.DefaultDupFrac})
	}); err != nil {
		return nil, err
	}
	rep.Gen = time.Since(t0)
	if fi, err := os.Stat(input); err == nil {
		rep.InputBytes = fi.Size()
	}
	s := shardsFor(opt.N, opt.ShardDocs)
	y := fmt.Sprintf(`run: scale
root: data
seed: 1
log: {progress_seconds: 60}
ingest:
  shards: %[1]d
  sources:
    - name: synth
      paths: [%[2]s]
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
dedup: {shards: %[1]d}
tag: {shards: %[1]d, backend: synthetic}
summarize: {shards: %[1]d, backend: synthetic}
pairs: {shards: %[1]d}
# A small corpus has too few eligible queries for 1,000; the table says
# how many select found.
select: {allow_shortfall: true}
`, s, input)
	cfgPath := filepath.Join(opt.Dir, "run.yaml")
	if err := os.WriteFile(cfgPath, []byte(y), 0o644); err != nil {
		return nil, err
	}
	cfg, err := pipeline.LoadConfig(cfgPath)
	if err != nil {
		return nil, err
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	for _, name := range ScaleStages {
		sts, err := pipeline.Select(cfg, name)
		if err != nil {
			return nil, err
		}
		st := sts[0]
		fmt.Fprintf(out, "scale: %s (%s, %d at once) …\n", name, plural(st.Steps[0].Count(cfg), "shard"), opt.Parallel)
		t0 := time.Now()
		runs, err := pipeline.RunLocal(ctx, cfg, sts, pipeline.LocalOptions{
			ConfigPath: cfgPath, Parallel: opt.Parallel, BinDir: opt.BinDir, LogDir: filepath.Join(opt.Dir, "logs"), Out: opt.Progress,
		})
		if err != nil {
			return nil, fmt.Errorf("bench: scale: %s: %w", name, err)
		}
		row := ScaleRow{Stage: name, Wall: time.Since(t0)}
		for _, r := range runs {
			row.CPU += r.CPU
			row.PeakRSS = max(row.PeakRSS, r.MaxRSSKiB<<10)
		}
		if err := addIO(ctx, root, cfg, st, &row); err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
		fmt.Fprintf(out, "scale: %s: %.1f s wall, %.1f s CPU, peak RSS %.0f MiB\n", name, row.Wall.Seconds(), row.CPU.Seconds(), float64(row.PeakRSS)/(1<<20))
	}
	rep.TotalWall = time.Since(start)
	if err := selectionOutcome(ctx, root, cfg, rep); err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Stage == "pairs" {
			rep.PairsRow = r
		}
		if rep.LargestShard == nil || r.PeakRSS > rep.LargestShard.PeakRSS {
			rep.LargestShard = r
		}
	}
	PrintScale(out, rep)
	return rep, nil
}

// addIO sums, over the manifests of each of the stage's steps, the bytes
// its shards read and wrote, and the rows of its main output.
func addIO(ctx context.Context, root store.Store, cfg *config.Config, st stage.Stage, row *ScaleRow) error {
	for k, step := range st.Steps {
		row.Shards = max(row.Shards, step.Count(cfg))
		ms, err := layout.Complete(ctx, root, cfg.Run, step.Outputs[0])
		if err != nil {
			return fmt.Errorf("bench: scale: manifests of %s: %w", step.Outputs[0], err)
		}
		for _, m := range ms {
			for _, o := range m.Inputs {
				switch {
				case o.Unread:
				case o.Length > 0:
					row.Read += o.Length
				default:
					row.Read += o.Size
				}
			}
			for _, o := range m.Outputs {
				row.Written += o.Size
			}
			for _, ds := range []string{dataset.PairCounts.Name, dataset.Pairs.Name} {
				for _, o := range m.Objects(ds) {
					row.Stored += o.Size
				}
			}
			if k == len(st.Steps)-1 {
				row.Rows += m.Rows
			}
		}
	}
	return nil
}

// selectionOutcome reads what select chose: queries, candidates, and
// calibrate's final thresholds.
func selectionOutcome(ctx context.Context, root store.Store, cfg *config.Config, rep *ScaleReport) error {
	for name, into := range map[string]*int64{dataset.Queries.Name: &rep.Queries, dataset.Candidates.Name: &rep.Candidates} {
		ms, err := layout.Complete(ctx, root, cfg.Run, name)
		if err != nil {
			return fmt.Errorf("bench: scale: %s: %w", name, err)
		}
		for _, m := range ms {
			for _, o := range m.Objects(name) {
				*into += o.Rows
			}
		}
	}
	ms, err := layout.Complete(ctx, root, cfg.Run, dataset.Thresholds.Name)
	if err != nil {
		return fmt.Errorf("bench: scale: thresholds: %w", err)
	}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Thresholds.Name) {
			rows, err := dataset.Read[dataset.Threshold](ctx, root, o.Key)
			if err != nil {
				return err
			}
			for _, t := range rows {
				if t.Scope == "final" {
					rep.Feasible = fmt.Sprintf("τ_topic %v, τ_summ %v, feasible %v", t.TauTopic, t.TauSumm, t.Feasible)
					rep.Eligible = t.Eligible
				}
			}
		}
	}
	return nil
}

// PrintScale writes the scale table and the verdicts.
func PrintScale(out io.Writer, rep *ScaleReport) {
	fmt.Fprintf(out, "\nscale: %d generated documents (%.0f MB of JSONL, generated in %.1f s, not counted), %d documents per shard, %d shard processes at once\n",
		rep.N, float64(rep.InputBytes)/1e6, rep.Gen.Seconds(), rep.ShardDocs, rep.Parallel)
	fmt.Fprintf(out, "machine: %d cores, %s/%s, %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tshards\twall s\tCPU s\tcore-hours\tpeak RSS MiB (largest shard)\tMB read\tMB written\trows out\t")
	var cpu time.Duration
	for _, r := range rep.Rows {
		cpu += r.CPU
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.3f\t%.0f\t%.1f\t%.1f\t%d\t\n", r.Stage, r.Shards, r.Wall.Seconds(), r.CPU.Seconds(), r.CPU.Hours(),
			float64(r.PeakRSS)/(1<<20), float64(r.Read)/1e6, float64(r.Written)/1e6, r.Rows)
	}
	fmt.Fprintf(tw, "all\t\t%.1f\t%.1f\t%.3f\t\t\t\t\t\n", rep.TotalWall.Seconds(), cpu.Seconds(), cpu.Hours())
	tw.Flush()
	fmt.Fprintln(out, "CPU = the shard processes' user + system time (start-up, reading and writing included); read/written from the shards' manifests;")
	fmt.Fprintln(out, "tag and summarize use their synthetic backends (corpusdist labels by document id), so their rows are I/O, not LLM calls;")
	fmt.Fprintf(out, "select chose %d queries and %d candidates (calibrate's final pick: %s; %d eligible queries in the smallest domain)\n",
		rep.Queries, rep.Candidates, rep.Feasible, rep.Eligible)
	if g := rep.Goal; g != nil {
		p := rep.PairsRow
		fmt.Fprintf(out, "goals at N = %d on 2 cores:\n", g.N)
		if p != nil {
			fmt.Fprintf(out, "  pairs stage CPU %.3f core-hours: goal ≤ %g: %s\n", p.CPU.Hours(), g.PairsCoreHours, verdict(p.CPU.Hours() <= g.PairsCoreHours))
			fmt.Fprintf(out, "  stored candidate data (pair_counts, pairs) %.3f GB: goal ≤ %g GB: %s\n", float64(p.Stored)/1e9, g.StoredBytes/1e9, verdict(float64(p.Stored) <= g.StoredBytes))
		}
		if g.ShardRSSPairsOnly && p != nil {
			fmt.Fprintf(out, "  peak RSS of a pairs shard %.2f GB: goal ≤ %g GB: %s\n", float64(p.PeakRSS)/1e9, g.ShardRSS/1e9, verdict(p.PeakRSS > 0 && float64(p.PeakRSS) <= g.ShardRSS))
		} else if l := rep.LargestShard; l != nil {
			fmt.Fprintf(out, "  peak RSS of the largest shard of any stage %.2f GB (%s): goal ≤ %g GB: %s\n", float64(l.PeakRSS)/1e9, l.Stage, g.ShardRSS/1e9, verdict(l.PeakRSS > 0 && float64(l.PeakRSS) <= g.ShardRSS))
			if p != nil {
				fmt.Fprintf(out, "  peak RSS of a pairs shard %.2f GB: goal ≤ %g GB: %s\n", float64(p.PeakRSS)/1e9, g.ShardRSS/1e9, verdict(p.PeakRSS > 0 && float64(p.PeakRSS) <= g.ShardRSS))
			}
		}
		fmt.Fprintf(out, "  ingest → select completed: %s\n", verdict(rep.Queries > 0 && rep.Candidates > 0))
	} else {
		fmt.Fprintf(out, "(goals are set at N = %s; none at %d)\n", goalSizes(), rep.N)
	}
	fmt.Fprintf(out, "load average (1 min) before %s, after %s on %d cores: above the core count, other processes shared them, which inflates wall time but not CPU time\n",
		rep.LoadBefore, rep.LoadAfter, runtime.NumCPU())
}

func goalSizes() string {
	var s []string
	for _, g := range ScaleGoals {
		s = append(s, fmt.Sprint(g.N))
	}
	return strings.Join(s, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
