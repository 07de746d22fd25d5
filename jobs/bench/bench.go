// Package bench measures the corpus stages end to end, as a user runs them:
// the stage binaries under the local executor, on real MATH rows and on a
// generated corpus of the paper's size, with wall time, throughput and the
// peak resident memory of the largest shard process.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/synth"
)

// Options configure a benchmark run.
type Options struct {
	// MathDir holds MATH_*.jsonl; empty or missing skips the real-data row.
	MathDir string
	// N is the size of the generated corpus (the paper's is 283K).
	N int
	// Shards per stage and processes at once.
	Shards, Parallel int
	// Dir is the work directory; it is removed afterwards unless Keep.
	Dir  string
	Keep bool
	// BinDir holds the stage binaries.
	BinDir string
}

// Row is one line of the table.
type Row struct {
	Corpus    string
	Stage     string
	Rows      int
	Wall      time.Duration
	PeakRSSMB float64
	// MBPerCore is ingest's input MB per CPU second of its map shards
	// (goal ≥ 50 MB/s, issue 20); 0 for other stages.
	MBPerCore float64
}

// ingestGoalMBPerCore is the goal for ingest's JSONL throughput per core.
const ingestGoalMBPerCore = 50

// Run runs the benchmarks and prints the table to out.
func Run(ctx context.Context, opt Options, out io.Writer) ([]Row, error) {
	if opt.Shards < 1 {
		opt.Shards = runtime.NumCPU()
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	if !opt.Keep {
		defer os.RemoveAll(opt.Dir)
	}
	var rows []Row
	if opt.MathDir != "" {
		if _, err := os.Stat(filepath.Join(opt.MathDir, "MATH_train.jsonl")); err == nil {
			fmt.Fprintf(out, "MATH: %s\n", opt.MathDir)
			src := fmt.Sprintf(`    - name: math
      paths: [%s/MATH_*.jsonl]
      source: official
      fields: {id: unique_id, statement: problem, solution: solution, subject: type}
`, opt.MathDir)
			r, err := runCorpus(ctx, opt, "MATH (real)", filepath.Join(opt.Dir, "math"), src, 12500)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r...)
		} else {
			fmt.Fprintf(out, "MATH data not found in %s: skipping the real-data rows\n", opt.MathDir)
		}
	}
	if opt.N > 0 {
		dir := filepath.Join(opt.Dir, "synth")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		input := filepath.Join(dir, "synth.jsonl")
		fmt.Fprintf(out, "generating %d synthetic problems\n", opt.N)
		start := time.Now()
		if err := store.WriteFile(input, 0o644, func(w io.Writer) error {
			return synth.Write(w, synth.Config{N: opt.N, Seed: 7, DupFrac: synth.DefaultDupFrac})
		}); err != nil {
			return nil, err
		}
		rows = append(rows, Row{Corpus: "generated", Stage: "synth", Rows: opt.N, Wall: time.Since(start)})
		src := fmt.Sprintf(`    - name: synth
      paths: [%s]
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
`, input)
		r, err := runCorpus(ctx, opt, "generated", dir, src, opt.N)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	Print(out, rows)
	return rows, nil
}

func runCorpus(ctx context.Context, opt Options, name, dir, sources string, n int) ([]Row, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	y := fmt.Sprintf("run: bench\nroot: data\nlog: {progress_seconds: 30}\ningest:\n  shards: %d\n  sources:\n%sdedup:\n  shards: %d\n",
		opt.Shards, sources, opt.Shards)
	cfgPath := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(cfgPath, []byte(y), 0o644); err != nil {
		return nil, err
	}
	cfg, err := pipeline.LoadConfig(cfgPath)
	if err != nil {
		return nil, err
	}
	var rows []Row
	// The corpus stages; pairs and later stages get benchmarks of their own.
	corpus, err := pipeline.Select(cfg, "ingest,dedup")
	if err != nil {
		return nil, err
	}
	for _, st := range corpus {
		start := time.Now()
		runs, err := pipeline.RunLocal(ctx, cfg, []stage.Stage{st}, pipeline.LocalOptions{
			ConfigPath: cfgPath, Parallel: opt.Parallel, BinDir: opt.BinDir, LogDir: filepath.Join(dir, "logs"), Out: io.Discard,
		})
		if err != nil {
			return nil, err
		}
		var peak int64
		var mapCPU time.Duration
		for _, r := range runs {
			peak = max(peak, r.MaxRSSKiB)
			if r.Step == "map" {
				mapCPU += r.CPU
			}
		}
		row := Row{Corpus: name, Stage: st.Name, Rows: n, Wall: time.Since(start), PeakRSSMB: float64(peak) / 1024}
		if st.Name == "ingest" && mapCPU > 0 {
			size, err := inputBytes(ctx, cfg)
			if err != nil {
				return nil, err
			}
			row.MBPerCore = float64(size) / 1e6 / mapCPU.Seconds()
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// Print writes the table.
func Print(out io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(out, "\nmachine: %d cores, %s/%s, %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintln(tw, "corpus\tstage\trows\twall s\trows/s\tpeak RSS MiB\tMB/s per core\t")
	for _, r := range rows {
		rate := float64(r.Rows) / r.Wall.Seconds()
		rss := "-"
		if r.PeakRSSMB > 0 {
			rss = fmt.Sprintf("%.0f", r.PeakRSSMB)
		}
		perCore := "-"
		if r.MBPerCore > 0 {
			perCore = fmt.Sprintf("%.1f (goal ≥ %d)", r.MBPerCore, ingestGoalMBPerCore)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.0f\t%s\t%s\t\n", r.Corpus, r.Stage, r.Rows, r.Wall.Seconds(), rate, rss, perCore)
	}
	tw.Flush()
}

// inputBytes is the size of every file ingest reads under cfg, as stored.
func inputBytes(ctx context.Context, cfg *config.Config) (int64, error) {
	var total int64
	for _, src := range ingest.Section.Of(cfg).Sources {
		for _, pat := range src.Paths {
			files, err := layout.Files(ctx, cfg.Resolve(pat), cfg.Storage, nil)
			if err != nil {
				return 0, err
			}
			for _, f := range files {
				info, err := f.Store.Stat(ctx, f.Key)
				if err != nil {
					return 0, err
				}
				total += info.Size
			}
		}
	}
	return total, nil
}
