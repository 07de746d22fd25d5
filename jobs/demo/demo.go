// Package demo is the embedded default run: a synthetic corpus generated on
// the spot, a config on local disk, every stage that exists run through the
// local executor, and a short summary. It needs no download and no service.
package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/downstream"
	"github.com/saber-math/saber/jobs/forecast"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/release"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/synth"
)

// Options configure the demo.
type Options struct {
	Dir      string // everything goes under it
	N        int    // synthetic problems
	Seed     uint64
	DupFrac  float64
	Parallel int
	BinDir   string
}

// ConfigYAML is the demo's run config; paths are relative to Dir.
const ConfigYAML = `# saber demo run: written by "saber demo"; edit and rerun with
#   saber run --config %[1]s
run: demo
root: data
seed: %[2]d
log:
  progress_seconds: 5
ingest:
  shards: 2
  exclude: []        # problem ids removed by hand after review; the demo adds the leaks its audit finds
  sources:
    - name: synth
      paths: [input/synth.jsonl]
      source: other
      license: CC-BY-SA-4.0
      origin: saber-synth
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
      terms: {aops: {license: AoPS terms of use, no_training: true}}  # the rows whose source field says aops (App. A.8: not for training)
    - name: synth-restricted
      paths: [input/synth-restricted.jsonl]  # every 20th generated problem, under terms that forbid training
      source: other
      license: CC-BY-NC-ND-4.0
      origin: saber-synth-restricted
      no_training: true  # its rows reach the release flagged: per row, on the card and in Croissant (release.exclude_no_training: true leaves them out)
      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}
    - name: extra
      paths: [input/extra.jsonl]
      source: aops
      license: AoPS terms of use
      no_training: true  # its terms forbid training on it: every row is flagged, the card counts them
      max_reject_share: 0.9  # two of its three rows are bad on purpose (ingest stops a source above ingest.max_reject_share, 0.5)
      fields: {statement: problem, solution: solution}
dedup:
  shards: 2
tag:
  shards: 2          # backend: lexical (offline); for a model: backend: llm and an llm: section
summarize:
  shards: 2          # backend: extractive (offline)
pairs:
  shards: 2          # every pair over the topic or summary floor, exactly
benchmark:            # parameters several stages share
  k: 5               # paper: 50 documents per category (150 candidates)
calibrate:
  min_eligible: 10   # paper: 150 eligible queries per domain (scaled down for 5K problems)
select:
  per_domain: 10     # paper: 200 queries per domain
%[3]sjudge:
  shards: 2          # backend: lexical (offline); for a model: backend: llm (prompt F.3)
  rounds: 20         # the paper's Swiss rounds
  position_audit: 0.1  # a tenth of the comparisons judged again swapped: reports/judge_audit.md
rate:
  shards: 2          # Bradley–Terry per query, ratings in [0, 5]
evaluate:
  shards: 1          # query ranges per retriever and setting
  retrievers: [bm25, tfidf, jaccard, bm25-no-tok, tfidf-no-tok, jaccard-no-tok, hash-embed]
  settings: [statement-full, full-full, statement-statement]
  instructions: [I1, I2, I3]  # App. D.9: hash-embed once more per instruction (hash-embed.I1 …), for Tables 9 and 10
audit:
  shards: 1          # each query's top documents checked for leaks (offline; backend: llm asks the judge)
rewrite:
  shards: 2          # each query restated for the deduplication experiment (offline rewriter; backend: llm asks a model, prompt B.4)
retrievers:
  hash-embed:        # the demo's bi-encoder (feature-hashed tokens), served on a loopback port by saber demo through $SABER_LLM_BASE_URL (saber run needs it set to a server of it)
    kind: embedding
    model: saber-demo-hash-256
downstream:
  shards: 1          # query ranges per retriever; embed_shards: document ranges per bi-encoder
  retrievers: [bm25, tfidf, jaccard, bm25-no-tok, hash-embed]  # search with each rewrite for its original (App. B.4, D.11)
report:
  plan: plan.json    # the forecast saber demo saved before the run (saber plan --json): index.html shows it beside the actuals
analyze:             # maths vs words, signal groups, distributions, score over time (reports/analyze.md)
  release_dates: input/release_dates.csv  # the CSV saber mteb reads; here the year each lexical method was published
release:
  version: 0.1.0-demo
  date: 2026-12-01   # the release never reads the clock: same inputs, same bytes
  homepage: https://github.com/saber-math/saber  # Croissant's url: where the release is published
  creators:          # Croissant's creator: who made it
    - {name: saber demo, organization: true, url: "https://github.com/saber-math/saber"}
%[4]s`

// extraJSONL shows what ingest does with bad rows: they go to rejects.
const extraJSONL = `{"problem": "Prove that there are infinitely many primes of the form $4k+3$.", "solution": "Suppose there are finitely many, $p_1, \\dots, p_m$. Consider $N = 4p_1\\cdots p_m - 1$, which is $3 \\bmod 4$ and so has a prime factor $3 \\bmod 4$ not in the list."}
{"problem": "Find all real $x$ with $x^2 = 4$.", "solution": ""}
{"problem": "What is $1+1$?", "solution": "It is $\\boxed{2}$."
`

// releaseDatesCSV dates the demo's retrievers for the score over time (App.
// D.8), in the format `saber mteb` reads: the lexical methods' years of
// publication (Jaccard 1901, TF-IDF 1972, BM25 at TREC-3 in 1994), the
// day set to the first of the month, and no MTEB score.
const releaseDatesCSV = `retriever,mteb_score,release_date
bm25,,1994-11-01
bm25-no-tok,,1994-11-01
tfidf,,1972-01-01
tfidf-no-tok,,1972-01-01
jaccard,,1901-01-01
jaccard-no-tok,,1901-01-01
`

// RestrictedEvery is how often a generated problem goes to the demo's
// synth-restricted source, whose terms forbid training: often enough that
// some reach the release, so that every demo runs the no_training path.
const RestrictedEvery = 20

// WriteInputs writes the demo's raw sources under dir/input: the
// generated corpus, split between synth.jsonl and synth-restricted.jsonl
// (every RestrictedEvery-th problem), extra.jsonl and release_dates.csv.
func WriteInputs(dir string, scfg synth.Config) error {
	if err := os.MkdirAll(filepath.Join(dir, "input"), 0o755); err != nil {
		return err
	}
	var all bytes.Buffer
	if err := synth.Write(&all, scfg); err != nil {
		return err
	}
	var open, restricted bytes.Buffer
	for i, line := range bytes.SplitAfter(all.Bytes(), []byte("\n")) {
		if i%RestrictedEvery == RestrictedEvery-1 {
			restricted.Write(line)
		} else {
			open.Write(line)
		}
	}
	for name, b := range map[string][]byte{"synth.jsonl": open.Bytes(), "synth-restricted.jsonl": restricted.Bytes(),
		"extra.jsonl": []byte(extraJSONL), "release_dates.csv": []byte(releaseDatesCSV)} {
		if err := store.WriteFile(filepath.Join(dir, "input", name), 0o644, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// Run writes the inputs and config (once), runs the pipeline and prints a summary.
func Run(ctx context.Context, opt Options, out io.Writer) error {
	if err := os.MkdirAll(filepath.Join(opt.Dir, "input"), 0o755); err != nil {
		return err
	}
	scfg := synth.Config{N: opt.N, Seed: opt.Seed, DupFrac: opt.DupFrac}
	cfgPath := filepath.Join(opt.Dir, "run.yaml")
	if _, err := os.Stat(cfgPath); err != nil {
		fmt.Fprintf(out, "generating %d synthetic problems (seed %d, %.0f%% planted near-duplicates)\n", opt.N, opt.Seed, 100*opt.DupFrac)
		if err := WriteInputs(opt.Dir, scfg); err != nil {
			return err
		}
		if err := store.WriteFile(cfgPath, 0o644, func(w io.Writer) error {
			extra := ""
			if opt.N < 5000 {
				// Below about 5K generated problems some domain has fewer
				// than 10 eligible queries; select takes what there is.
				extra = "  allow_shortfall: true   # a corpus under 5K problems is short in some domain\n"
			}
			_, err := fmt.Fprintf(w, ConfigYAML, cfgPath, opt.Seed, extra, "")
			return err
		}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "reusing %s (delete %s for a fresh demo)\n", cfgPath, opt.Dir)
	}
	cfg, err := pipeline.LoadConfig(cfgPath)
	if err != nil {
		return err
	}
	stop, err := ServeModel(cfg, out)
	if err != nil {
		return err
	}
	defer stop()
	stages, err := pipeline.Select(cfg, "")
	if err != nil {
		return err
	}
	if err := savePlan(ctx, cfg, stages, filepath.Join(opt.Dir, PlanFile), out); err != nil {
		return err
	}
	// The release refuses a benchmark with leaks the audit found (paper
	// App. A.5): the synthetic corpus plants near-duplicates and dedup lets
	// a few through, so the demo shows the loop a release engineer runs —
	// review the flagged pair, remove the document (ingest.exclude), and
	// recompute everything downstream of ingest (--rerun-stale).
	for attempt := 0; ; attempt++ {
		_, err := pipeline.RunLocal(ctx, cfg, stages, pipeline.LocalOptions{
			ConfigPath: cfgPath, Parallel: opt.Parallel, BinDir: opt.BinDir,
			LogDir: filepath.Join(opt.Dir, "logs"), Out: out, Rerun: pipeline.Rerun{Stale: true},
		})
		if err == nil {
			break
		}
		leaks, lerr := refusedLeaks(ctx, cfg, err)
		if lerr != nil || len(leaks) == 0 || attempt == 3 {
			return err
		}
		fmt.Fprintf(out, "\nThe release refused the benchmark: the leakage audit flagged %d pair(s) (reports/audit.md):\n", len(leaks))
		for _, l := range leaks {
			fmt.Fprintf(out, "  query %s, document %s: %s\n", l.Query, l.Doc, l.Reason)
		}
		fmt.Fprintf(out, "They are planted near-duplicates that dedup let through. The demo removes the documents (ingest.exclude in %s)\nand recomputes ingest and everything downstream (--rerun-stale), as a release engineer would.\n\n", cfgPath)
		if err := exclude(cfgPath, leaks); err != nil {
			return err
		}
		if cfg, err = pipeline.LoadConfig(cfgPath); err != nil {
			return err
		}
	}
	return summarize(ctx, cfg, scfg, out)
}

// PlanFile is the forecast saber demo saves before its first run, which
// report.plan shows on the page beside the actuals.
const PlanFile = "plan.json"

// savePlan writes the forecast of the run, as `saber plan --json` would,
// unless one is there: the plan is the one made before the run, and a
// rerun compares against it rather than against a recount.
func savePlan(ctx context.Context, cfg *config.Config, stages []stage.Stage, path string, out io.Writer) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	steps, err := forecast.Forecast(ctx, cfg, pipeline.Default(), stages, forecast.Options{})
	if err != nil {
		return fmt.Errorf("forecast the demo: %w", err)
	}
	b, err := json.MarshalIndent(steps, "", "  ")
	if err != nil {
		return err
	}
	if err := store.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(out, "saved the forecast of the run in %s (saber plan --json; reports/index.html puts it beside the actuals)\n", path)
	return nil
}

// ServeModel starts the demo's embedding server when the run uses the
// demo's model (retrievers.hash-embed: no base_url) and no server is set
// ($SABER_LLM_BASE_URL empty), and points the variable every stage process
// inherits at it; stop closes it. saber demo, run and verify call it, so a
// demo config runs and verifies with no server of the user's.
func ServeModel(cfg *config.Config, out io.Writer) (stop func(), err error) {
	if !servesDemoModel(cfg) || os.Getenv(llm.BaseURLEnv) != "" {
		return func() {}, nil
	}
	srv, err := StartEmbedServer()
	if err != nil {
		return nil, err
	}
	if err := os.Setenv(llm.BaseURLEnv, srv.URL); err != nil {
		srv.Close()
		return nil, err
	}
	fmt.Fprintf(out, "serving the demo's embedding model %s at %s ($%s)\n", EmbedModel, srv.URL, llm.BaseURLEnv)
	return func() {
		srv.Close()
		os.Unsetenv(llm.BaseURLEnv)
	}, nil
}

// servesDemoModel reports whether a retriever the run evaluates or ranks
// the pool with is the demo's own embedding model with no server set.
func servesDemoModel(cfg *config.Config) bool {
	used := slices.Concat(cfg.Evaluate.Retrievers, downstream.BiEncoders(cfg))
	for _, r := range used {
		if s, ok := cfg.Retrievers[r]; ok && s.Model == EmbedModel && s.BaseURL == "" {
			return true
		}
	}
	return false
}

// refusedLeaks returns the audit's leaks when err is the release refusing
// them (exit 2), nil otherwise.
func refusedLeaks(ctx context.Context, cfg *config.Config, err error) ([]dataset.Leak, error) {
	var se *pipeline.ShardError
	if !errors.As(err, &se) || se.Run.Stage != "release" || se.ExitCode() != stage.ExitBadInput {
		return nil, nil
	}
	root, oerr := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if oerr != nil {
		return nil, oerr
	}
	ms, cerr := layout.Complete(ctx, root, cfg.Run, dataset.Leaks.Name)
	if cerr != nil {
		return nil, cerr
	}
	var out []dataset.Leak
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Leaks.Name) {
			rows, err := dataset.Read[dataset.Leak](ctx, root, o.Key)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
	}
	return out, nil
}

// excludeLine is the demo config's ingest.exclude line.
var excludeLine = regexp.MustCompile(`(?m)^  exclude: \[([^\]]*)\]`)

// exclude adds the leaks' documents to ingest.exclude in the demo config.
func exclude(cfgPath string, leaks []dataset.Leak) error {
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		return err
	}
	m := excludeLine.FindSubmatchIndex(b)
	if m == nil {
		return fmt.Errorf("%s: no ingest.exclude line to add the leaks to (remove them by hand: ingest.exclude)", cfgPath)
	}
	var ids []string
	for _, id := range strings.Split(string(b[m[2]:m[3]]), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	for _, l := range leaks {
		if !slices.Contains(ids, l.Doc) {
			ids = append(ids, l.Doc)
		}
	}
	line := "  exclude: [" + strings.Join(ids, ", ") + "]"
	out := append(append(append([]byte(nil), b[:m[0]]...), line...), b[m[1]:]...)
	return store.WriteFile(cfgPath, 0o644, func(w io.Writer) error { _, err := w.Write(out); return err })
}

// summarize prints what the run produced: the run summary saber run and
// saber stats print (pipeline.Summarize, read from the manifests), and
// what only the demo knows — the recall of its planted near-duplicates,
// where each report is, the release and how to check it.
func summarize(ctx context.Context, cfg *config.Config, scfg synth.Config, out io.Writer) error {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return err
	}
	sum, err := pipeline.Summarize(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nSummary (run %q under %s)\n", cfg.Run, root.URI(cfg.Run))
	fmt.Fprintf(out, "  %-20s %s (saber version; every manifest records it)\n", "code", stage.CodeVersion())
	for _, l := range sum.Lines {
		fmt.Fprintln(out, "  "+l)
	}
	if err := summarizePlanted(ctx, root, cfg, scfg, out); err != nil {
		return err
	}
	tagStats, err := layout.SumStats(ctx, root, cfg.Run, dataset.Topics.Name)
	if err != nil {
		return err
	}
	var doms []string
	for _, d := range []string{"algebra", "geometry", "number_theory", "combinatorics", "calculus_and_analysis"} {
		doms = append(doms, fmt.Sprintf("%s %d", d, tagStats["domain_"+d]))
	}
	fmt.Fprintf(out, "  %-20s %s\n", "main domains", strings.Join(doms, ", "))
	fmt.Fprintf(out, "  %-20s %s\n", "selection report", root.URI(cfg.Run+"/reports/select.md"))
	fmt.Fprintf(out, "  %-20s %s (tables 1, 7, 8, sensitivity, chart, leaderboard)\n", "report", root.URI(cfg.Run+"/reports/report.md"))
	table, err := store.ReadAll(ctx, root, cfg.Run+"/reports/table1.md")
	if err != nil {
		return err
	}
	if err := summarizeDownstream(ctx, root, cfg, out); err != nil {
		return err
	}
	mt, err := layout.SumStats(ctx, root, cfg.Run, dataset.MathText.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  analyses             %s\n", root.URI(cfg.Run+"/reports/analyze.md"))
	fmt.Fprintf(out, "    maths vs words     %d queries kept, %d without maths, %d without words  (%s, table10.md)\n", mt["mathtext_kept"], mt["mathtext_no_maths"], mt["mathtext_no_words"],
		root.URI(cfg.Run+"/reports/mathtext.md"))
	for _, a := range []struct{ what, file, also string }{{"signal groups", "signal_groups.md", ".csv, .png, .svg"}, {"distributions", "distribution.md", ".csv, .png, .svg"},
		{"example query", "example_query.md", ".csv"}, {"score over time", "score_over_time.md", ".csv, .png, .svg"}} {
		fmt.Fprintf(out, "    %-18s %s (%s)\n", a.what, root.URI(cfg.Run+"/reports/"+a.file), a.also)
	}
	version := release.Section.Of(cfg).Version
	dir := root.URI(layout.ReleasePrefix(cfg.Run, version))
	relStats, err := layout.SumStats(ctx, root, cfg.Run, dataset.Release.Name)
	if err != nil {
		return err
	}
	local := strings.TrimPrefix(strings.TrimSuffix(dir, "/"), "file://")
	fmt.Fprintf(out, "  release              %s: %d files, %d bytes (data/, beir/, mteb/, trec/, README.md card, croissant.json)\n", dir, relStats["files"], relStats["bytes"])
	fmt.Fprintf(out, "  verify it with       saber release verify %s\n                       (cd %s && sha256sum -c SHA256SUMS)\n", local, local)
	for _, w := range sum.Warnings {
		fmt.Fprintln(out, "warning: "+w)
	}
	fmt.Fprintf(out, "\nThe retrievers on the demo benchmark (nDCG@10: the lexical baselines and the demo's hash-embedding bi-encoder with its instruction variants, against the lexical judge's ratings, so only a smoke test):\n\n%s", table)
	return nil
}

// summarizePlanted prints how many of the near-duplicates the generator
// planted dedup put in one cluster with their original.
func summarizePlanted(ctx context.Context, root store.Store, cfg *config.Config, scfg synth.Config, out io.Writer) error {
	dups, err := readAll[dataset.Duplicate](ctx, root, cfg.Run, dataset.Corpus.Name, dataset.Duplicates.Name)
	if err != nil {
		return err
	}
	cluster := map[string]string{}
	for _, d := range dups {
		cluster[d.Dropped] = d.Cluster
	}
	of := func(id string) string {
		if c, ok := cluster[id]; ok {
			return c
		}
		return id
	}
	planted, found := 0, 0
	for i := 0; i < scfg.N; i++ {
		p := synth.Generate(scfg, i)
		if p.DupOf == "" {
			continue
		}
		planted++
		if of(p.ID) == of(p.DupOf) {
			found++
		}
	}
	if planted > 0 {
		fmt.Fprintf(out, "  %-20s %d, found %d (recall %.3f)\n", "planted near-dups", planted, found, float64(found)/float64(planted))
	}
	return nil
}

// readAll reads every part of ds, found through the manifests of done.
func readAll[T any](ctx context.Context, root store.Store, run, done, ds string) ([]T, error) {
	ms, err := layout.Complete(ctx, root, run, done)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, m := range ms {
		for _, o := range m.Outputs {
			if strings.HasPrefix(o.Key, run+"/"+ds+"/") {
				rows, err := dataset.Read[T](ctx, root, o.Key)
				if err != nil {
					return nil, err
				}
				out = append(out, rows...)
			}
		}
	}
	return out, nil
}

// summarizeDownstream prints where the deduplication experiment's tables
// are and its full-pool rows, when the config runs it.
func summarizeDownstream(ctx context.Context, root store.Store, cfg *config.Config, out io.Writer) error {
	if !downstream.Enabled(cfg) {
		return nil
	}
	rw, err := layout.SumStats(ctx, root, cfg.Run, dataset.Rewrites.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  rewrites             %d queries, %d invalid (kept, left out)  (%s)\n", rw["queries"], rw["invalid"], root.URI(cfg.Run+"/rewrites/"))
	emb, err := layout.SumStats(ctx, root, cfg.Run, dataset.PoolEmbeddings.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  pool embeddings      %d vectors  (%s)\n", emb["documents"], root.URI(cfg.Run+"/pool_embeddings/"))
	ranks, err := layout.SumStats(ctx, root, cfg.Run, dataset.DedupRanks.Name)
	if err != nil {
		return err
	}
	res, err := readAll[dataset.DedupResult](ctx, root, cfg.Run, dataset.DedupResults.Name, dataset.DedupResults.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  dedup retrieval      %d ranks, full-pool scores checked naively on %d queries  (%s, %s, %s)\n", ranks["rows"], ranks["checked_queries"],
		root.URI(cfg.Run+"/reports/"+downstream.ReportMD), root.URI(cfg.Run+"/reports/"+downstream.ReportCSV), root.URI(cfg.Run+"/reports/"+downstream.ReportTeX))
	for _, r := range res {
		fmt.Fprintf(out, "    %-10s %-14s median %6.1f  top-1 %5.1f%%  top-4 %5.1f%%  top-16 %5.1f%%  top-64 %5.1f%%  (%d queries)\n",
			r.Scale, r.Retriever, r.Median, r.Top1, r.Top4, r.Top16, r.Top64, r.Queries)
	}
	return nil
}
