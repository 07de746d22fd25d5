package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline/internal/lengths"
	"github.com/saber-math/saber/jobs/pipeline/pipelinetest"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

var (
	tagged     sync.Once
	taggedDir  string
	taggedErr  error
	withExtra  = mustGraph(append(slices.Clone(Stages), lengths.Stage))
	staleCfgFn = "run.yaml"
)

// taggedBinaries builds every stage binary and the test-only lengths stage
// with -tags saber_teststage, so that they all know its section.
func taggedBinaries(t *testing.T) string {
	t.Helper()
	tagged.Do(func() {
		taggedDir, taggedErr = pipelinetest.Binaries([]string{"saber_teststage"}, "jobs/pipeline/internal/lengths/cmd/lengths")
	})
	if taggedErr != nil {
		t.Fatal(taggedErr)
	}
	return taggedDir
}

const staleYAML = `run: s
root: data
seed: 5
log: {progress_seconds: 30}
ingest:
  shards: 2
  sources: [{name: synth, paths: [synth.jsonl], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]
dedup: {shards: %d, threshold: %s}
tag: {shards: 2}
summarize: {shards: 1}
pairs: {shards: 2}
benchmark: {k: 3}
calibrate: {min_eligible: 3}
select: {per_domain: 3, allow_shortfall: true}
judge: {shards: 1, rounds: 4}
rate: {shards: 1}
evaluate: {retrievers: [bm25, jaccard-no-tok]}
report: {resamples: %d}
lengths: {min: %d}
`

type staleRun struct {
	t       *testing.T
	dir     string
	cfgPath string
	bin     string
}

func newStaleRun(t *testing.T) *staleRun {
	t.Helper()
	r := &staleRun{t: t, dir: t.TempDir(), bin: taggedBinaries(t)}
	writeSynth(t, filepath.Join(r.dir, "synth.jsonl"), synth.Config{N: 1500, Seed: 5, DupFrac: 0.05})
	r.cfgPath = filepath.Join(r.dir, staleCfgFn)
	r.config(2, "0.8", 200, 10)
	return r
}

func (r *staleRun) config(dedupShards int, threshold string, resamples, min int) *config.Config {
	r.t.Helper()
	if err := os.WriteFile(r.cfgPath, []byte(fmt.Sprintf(staleYAML, dedupShards, threshold, resamples, min)), 0o644); err != nil {
		r.t.Fatal(err)
	}
	cfg, err := config.Load(r.cfgPath, withExtra.Sections()...)
	if err != nil {
		r.t.Fatal(err)
	}
	return cfg
}

func (r *staleRun) load() *config.Config {
	r.t.Helper()
	cfg, err := config.Load(r.cfgPath, withExtra.Sections()...)
	if err != nil {
		r.t.Fatal(err)
	}
	return cfg
}

// run runs the named stages ("" the main line) and returns the shards it
// ran (not skipped), by node name, and what it printed.
func (r *staleRun) run(stages string, rerun Rerun) (map[string]int, string, error) {
	r.t.Helper()
	cfg := r.load()
	sel, err := withExtra.Select(cfg, stages)
	if err != nil {
		r.t.Fatal(err)
	}
	var out bytes.Buffer
	runs, err := withExtra.RunLocal(context.Background(), cfg, sel, LocalOptions{
		ConfigPath: r.cfgPath, Parallel: 2, BinDir: r.bin, LogDir: filepath.Join(r.dir, "logs"), Out: &out, Rerun: rerun,
	})
	ran := map[string]int{}
	for _, x := range runs {
		if !x.Skipped {
			name := x.Stage
			if st, _ := withExtra.Lookup(x.Stage); len(st.Steps) > 1 {
				name += " " + x.Step
			}
			ran[name]++
		}
	}
	return ran, out.String(), err
}

// tree lists every file under the run's data with its size and mtime,
// but the record of the local executor's last run (layout.LocalRunKey):
// a refused run updates it on purpose, so that saber status shows the
// refusal, and it is no dataset a stage reads.
func (r *staleRun) tree() map[string]string {
	m := map[string]string{}
	data := filepath.Join(r.dir, "data")
	filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if rel, _ := filepath.Rel(data, p); filepath.Base(rel) == filepath.Base(layout.LocalRunKey("")) && strings.Count(filepath.ToSlash(rel), "/") == 1 {
			return nil
		}
		fi, _ := d.Info()
		m[p] = fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	return m
}

func sameTree(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s: %s changed (%s → %s)", what, k, v, b[k])
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			t.Errorf("%s: %s appeared", what, k)
		}
	}
}

// partHashes are the SHA-256 of a complete dataset's parts, by key.
func partHashes(t *testing.T, st store.Store, run, ds string) map[string]string {
	t.Helper()
	ms, err := layout.Complete(context.Background(), st, run, ds)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, man := range ms {
		for _, o := range man.Objects(ds) {
			m[o.Key] = o.SHA256
		}
	}
	return m
}

func keys(m map[string]int) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// TestStaleShardsAreNeverServed is the bar end to end, with the
// stage binaries: a rerun of a finished run reads manifests only and
// writes nothing; editing dedup.threshold makes dedup stale, refused with
// the key's old and new values until --rerun-stale recomputes dedup and
// everything downstream (nothing upstream); editing report.resamples makes
// only report stale; an optional stage runs when named, after what it
// reads; a shard count change is stale until recomputed, with the same
// bytes; other code is reported, and rebuilt only when asked.
func TestStaleShardsAreNeverServed(t *testing.T) {
	r := newStaleRun(t)
	ran, out, err := r.run("", Rerun{})
	if err != nil {
		t.Fatalf("first run: %v\n%s", err, out)
	}
	if !strings.Contains(keys(ran), "report") || ran["lengths"] != 0 {
		t.Fatalf("first run ran %v", ran)
	}
	before := r.tree()
	ran, out, err = r.run("", Rerun{})
	if err != nil || len(ran) != 0 {
		t.Fatalf("rerun ran %v, %v\n%s", ran, err, out)
	}
	sameTree(t, "rerun", before, r.tree())

	// dedup.threshold: refused, naming dedup's reduce and the key, writing
	// nothing; dedup's map, whose signatures do not depend on it, is done.
	r.config(2, "0.9", 200, 10)
	ran, _, err = r.run("", Rerun{})
	var se *StaleStepsError
	if !errors.As(err, &se) || stage.ExitCode(err) != stage.ExitBadInput || len(ran) != 0 {
		t.Fatalf("changed threshold: ran %v, %v", ran, err)
	}
	msg := err.Error()
	for _, want := range []string{"dedup reduce: the shard: config dedup.threshold: 0.8 → 0.9", "--rerun-stale", "tag, summarize, pairs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "ingest") || strings.Contains(msg, "dedup map") {
		t.Errorf("refusal names ingest or dedup map:\n%s", msg)
	}
	sameTree(t, "refused run", before, r.tree())
	ran, out, err = r.run("", Rerun{Stale: true})
	if err != nil {
		t.Fatalf("--rerun-stale: %v\n%s", err, out)
	}
	if ran["ingest map"] != 0 || ran["ingest reduce"] != 0 || ran["dedup map"] != 0 || ran["dedup reduce"] != 1 || ran["tag"] != 2 || ran["report"] != 1 || ran["evaluate"] == 0 || ran["lengths"] != 0 {
		t.Errorf("--rerun-stale ran %v", ran)
	}
	after := r.tree()
	for k, v := range before {
		if strings.Contains(k, "/problems/") && after[k] != v {
			t.Errorf("upstream %s was rewritten", k)
		}
	}
	if ran, _, err := r.run("", Rerun{}); err != nil || len(ran) != 0 {
		t.Errorf("after --rerun-stale: ran %v, %v", ran, err)
	}

	// report.resamples: report is stale; analyze, which reads its results,
	// reruns after it.
	r.config(2, "0.9", 100, 10)
	_, _, err = r.run("", Rerun{})
	if !errors.As(err, &se) || len(se.Steps) != 1 || se.Steps[0].Stage != "report" || !strings.Contains(err.Error(), "report.resamples: 200 → 100") {
		t.Fatalf("changed resamples: %v", err)
	}
	if ran, _, err := r.run("", Rerun{Stale: true}); err != nil || keys(ran) != "analyze,report" {
		t.Errorf("--rerun-stale after resamples ran %v, %v", ran, err)
	}

	// The optional stage: named, it runs after what it reads; its own key
	// makes it alone stale.
	if ran, out, err := r.run("lengths", Rerun{}); err != nil || keys(ran) != "lengths" {
		t.Fatalf("--stages lengths ran %v, %v\n%s", ran, err, out)
	}
	r.config(2, "0.9", 100, 20)
	_, _, err = r.run("", Rerun{})
	if err != nil {
		t.Errorf("the main line is stale after editing an optional stage's key: %v", err)
	}
	_, _, err = r.run("lengths", Rerun{})
	if !errors.As(err, &se) || len(se.Steps) != 1 || se.Steps[0].Stage != "lengths" {
		t.Errorf("lengths.min: %v", err)
	}
	if ran, _, err := r.run("lengths", Rerun{Stale: true}); err != nil || keys(ran) != "lengths" {
		t.Errorf("--rerun-stale lengths ran %v, %v", ran, err)
	}

	// Another build made tag: reported, served, rebuilt only when asked.
	ctx := context.Background()
	root, _ := store.Open(ctx, filepath.Join(r.dir, "data"), store.Options{})
	for i := 0; i < 2; i++ {
		for _, ds := range []string{"topics", "tag_rejects"} {
			key := layout.DoneKey("s", ds, shard.Spec{Index: i, Count: 2})
			m, err := layout.ReadDone(ctx, root, key)
			if err != nil {
				t.Fatal(err)
			}
			m.CodeVersion = "0000000older"
			// As another build would have written it: with its digest.
			if m.Digest, err = layout.Digest(m); err != nil {
				t.Fatal(err)
			}
			b, _ := json.MarshalIndent(m, "", "  ")
			if _, err := store.Put(ctx, root, key, b, store.Replace); err != nil {
				t.Fatal(err)
			}
		}
	}
	ran, out, err = r.run("", Rerun{})
	if err != nil || len(ran) != 0 || !strings.Contains(out, "tag were built by other code (0000000older →") {
		t.Errorf("other code: ran %v, %v\n%s", ran, err, out)
	}
	ran, _, err = r.run("", Rerun{Stale: true, Code: true})
	if err != nil || ran["tag"] != 2 || ran["pairs"] != 2 || ran["dedup reduce"] != 0 || ran["summarize"] != 0 {
		t.Errorf("--rerun-code ran %v, %v", ran, err)
	}

	// dedup.shards 2 → 3: the manifests of 2 shards are stale; recomputed,
	// the corpus has the same bytes.
	corpus := partHashes(t, root, "s", "corpus")
	r.config(3, "0.9", 100, 20)
	_, _, err = r.run("", Rerun{})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "manifests of 2 shards, but the config now makes 3 shards") {
		t.Fatalf("shard count: %v", err)
	}
	if ran, out, err := r.run("", Rerun{Stale: true}); err != nil || ran["dedup map"] != 3 {
		t.Fatalf("--rerun-stale after a shard count change ran %v, %v\n%s", ran, err, out)
	}
	if got := partHashes(t, root, "s", "corpus"); fmt.Sprint(got) != fmt.Sprint(corpus) {
		t.Errorf("corpus changed with the shard count: %v → %v", corpus, got)
	}
	if infos, _ := root.List(ctx, "s/signatures/"); len(infos) != 6 {
		t.Errorf("signatures holds %d objects, want the 3 parts and their manifests", len(infos))
	}

	// judge.shards 1 → 2: the old shard's measurement part, named by its
	// bytes (part-…-of-00001.<hash>.parquet), goes with its manifest.
	b, err := os.ReadFile(r.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.cfgPath, bytes.Replace(b, []byte("judge: {shards: 1,"), []byte("judge: {shards: 2,"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if ran, out, err := r.run("", Rerun{Stale: true}); err != nil || ran["judge"] != 2 {
		t.Fatalf("--rerun-stale after judge.shards 1 → 2 ran %v, %v\n%s", ran, err, out)
	}
	infos, err := root.List(ctx, "s/judge_timings/")
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if strings.Contains(info.Key, "-of-00001") {
			t.Errorf("%s of the old shard count is left behind", info.Key)
		}
	}
	if len(infos) != 4 {
		t.Errorf("judge_timings holds %d objects, want the 2 parts and their manifests: %v", len(infos), infos)
	}
}

// TestSelectionNeedsItsInputs: a selection whose inputs no selected step
// writes and that are not complete is refused before anything runs,
// naming the step to run first; a stale step upstream of the selection is
// refused even with --rerun-stale, which would not run it.
func TestSelectionNeedsItsInputs(t *testing.T) {
	r := newStaleRun(t)
	_, _, err := r.run("tag", Rerun{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "tag reads corpus, which dedup reduce writes") || !strings.Contains(err.Error(), "run dedup first") {
		t.Fatalf("tag before dedup: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "data", "s", "topics")); !os.IsNotExist(err) {
		t.Error("a refused run wrote topics")
	}
	if _, out, err := r.run("ingest,dedup,tag", Rerun{}); err != nil {
		t.Fatalf("ingest,dedup,tag: %v\n%s", err, out)
	}
	r.config(2, "0.9", 200, 10)
	_, _, err = r.run("tag", Rerun{Stale: true})
	if !errors.As(err, new(*StaleStepsError)) || !strings.Contains(err.Error(), "without --stages (or with --stages including dedup)") {
		t.Errorf("stale upstream outside the selection: %v", err)
	}
}
