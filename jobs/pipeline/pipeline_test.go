package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/store/storetest"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline/pipelinetest"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

// corpusStages are the stages these runtime tests drive over the MATH
// files; later stages have tests of their own.
var corpusStages = mustSelect("ingest,dedup")

func mustSelect(list string) []stage.Stage {
	sts, err := Select(config.Default(Sections()...), list)
	if err != nil {
		panic(err)
	}
	return sts
}

// dedupStage is the registered dedup stage.
func dedupStage(t *testing.T) stage.Stage {
	t.Helper()
	st, err := Lookup("dedup")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// binDir holds the stage binaries, built once for the package's tests.
var binDir string

func TestMain(m *testing.M) {
	// The same build as cmd/saber's tests: one per source tree.
	dir, err := pipelinetest.Binaries(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build stage binaries:", err)
		os.Exit(1)
	}
	binDir = dir
	os.Exit(m.Run())
}

func mathDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/data/math")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MATH_train.jsonl")); err != nil {
		t.Skipf("MATH data not present at %s", dir)
	}
	return dir
}

// writeConfig writes run.yaml into dir and loads it.
func writeConfig(t *testing.T, dir, root, inputs string, ingestShards, dedupShards int) (*config.Config, string) {
	t.Helper()
	y := fmt.Sprintf(`run: math
root: %s
log: {progress_seconds: 1}
ingest:
  shards: %d
  sources:
    - name: math
      paths: [%s]
      source: official
      license: MIT
      fields: {id: unique_id, statement: problem, solution: solution, subject: type}
dedup:
  shards: %d
`, root, ingestShards, inputs, dedupShards)
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, p
}

func runLocal(t *testing.T, cfg *config.Config, cfgPath string) []ShardRun {
	t.Helper()
	var out bytes.Buffer
	runs, err := RunLocal(context.Background(), cfg, corpusStages, LocalOptions{
		ConfigPath: cfgPath, Parallel: 2, BinDir: binDir, LogDir: filepath.Join(filepath.Dir(cfgPath), "logs"), Out: &out,
	})
	if err != nil {
		t.Fatalf("RunLocal: %v\n%s", err, out.String())
	}
	return runs
}

// snapshot lists every file under dir with its size and modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		m[p] = fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	return m
}

// outputHashes maps every output key of every manifest of the given
// datasets to its SHA-256.
func outputHashes(t *testing.T, st store.Store, run string, datasets ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, ds := range datasets {
		ms, err := layout.Complete(context.Background(), st, run, ds)
		if err != nil {
			t.Fatal(err)
		}
		for _, man := range ms {
			for _, o := range man.Outputs {
				m[o.Key] = o.SHA256
			}
		}
	}
	return m
}

// TestMATHRunRerunVerify is the main bar on real data: a run over
// both MATH files, a second run that writes nothing, `verify` matching on
// every shard, and 3 vs 7 dedup shards giving identical corpus and duplicates.
func TestMATHRunRerunVerify(t *testing.T) {
	data := mathDir(t)
	ctx := context.Background()
	dir := t.TempDir()
	cfg, cfgPath := writeConfig(t, dir, "data", data+"/MATH_*.jsonl", 2, 3)
	runs := runLocal(t, cfg, cfgPath)
	if len(runs) != 2+1+3+1 {
		t.Fatalf("ran %d shards, want 7 (ingest map and reduce, dedup map and reduce)", len(runs))
	}
	before := snapshot(t, filepath.Join(dir, "data"))
	for _, r := range runLocal(t, cfg, cfgPath) {
		if !r.Skipped {
			t.Errorf("second run ran %s %s %s", r.Stage, r.Step, r.Shard)
		}
	}
	if after := snapshot(t, filepath.Join(dir, "data")); fmt.Sprint(before) != fmt.Sprint(after) {
		t.Error("second run changed files under the root")
	}
	// The stage binaries themselves, run over every shard of a done run,
	// skip each shard (reading only manifests) and write nothing.
	for _, st := range corpusStages {
		out, err := exec.Command(filepath.Join(binDir, st.Name), "--config", cfgPath).CombinedOutput()
		want := 0
		for _, step := range st.Steps {
			want += step.Count(cfg)
		}
		if err != nil || strings.Count(string(out), "shard already done; skipping") != want || strings.Contains(string(out), "shard started") {
			t.Errorf("%s on a done run: %v, want %d shards skipped:\n%s", st.Name, err, want, out)
		}
	}
	if after := snapshot(t, filepath.Join(dir, "data")); fmt.Sprint(before) != fmt.Sprint(after) {
		t.Error("the stage binaries on a done run changed files under the root")
	}

	log := zerolog.Nop()
	for _, st := range corpusStages {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				spec := shard.Spec{Index: i, Count: n}
				checks, why, err := Verify(ctx, cfg, stages.Of(st), step, spec, t.TempDir(), log)
				if err != nil {
					t.Fatalf("verify %s %s %s: %v", st.Name, step.Name, spec, err)
				}
				if why.Stale() {
					t.Errorf("verify %s %s %s: the shard is stale under its own config: %s", st.Name, step.Name, spec, why)
				}
				var buf bytes.Buffer
				if !PrintChecks(&buf, checks) || len(checks) == 0 {
					t.Errorf("verify %s %s %s:\n%s", st.Name, step.Name, spec, buf.String())
				}
			}
		}
	}

	// Tamper with one stored object: verify must say so.
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	key := layout.DataKey("math", "duplicates", shard.Spec{Index: 0, Count: 1})
	if _, err := store.Put(ctx, root, key, []byte("tampered"), store.Replace); err != nil {
		t.Fatal(err)
	}
	dedup := dedupStage(t)
	red, _ := dedup.Step("reduce")
	checks, _, err := Verify(ctx, cfg, stages.Of(dedup), red, shard.Spec{Index: 0, Count: 1}, t.TempDir(), log)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if PrintChecks(&buf, checks) || !strings.Contains(buf.String(), "STORED") {
		t.Errorf("tampered object not reported:\n%s", buf.String())
	}

	// 7 dedup shards over the same problems give the same bytes.
	dir7 := t.TempDir()
	cfg7, cfgPath7 := writeConfig(t, dir7, "data", data+"/MATH_*.jsonl", 2, 7)
	runLocal(t, cfg7, cfgPath7)
	root7, _ := store.Open(ctx, cfg7.RootURI(), store.Options{})
	h3 := outputHashes(t, openRoot(t, cfg.RootURI()), "math", "corpus")
	h7 := outputHashes(t, root7, "math", "corpus")
	// corpus, duplicates and reports/dedup.md: the report must not depend on
	// the shard count either.
	if len(h3) != 3 {
		t.Fatalf("reduce outputs: %v", h3)
	}
	for k := range h3 {
		if strings.Contains(k, "duplicates") {
			continue // tampered above; compare the manifests' hashes instead
		}
		if h3[k] != h7[k] {
			t.Errorf("%s: 3 shards %s, 7 shards %s", k, h3[k], h7[k])
		}
	}
	// duplicates has its own manifest now: compare the hashes recorded there.
	d3 := duplicatesHash(t, root)
	d7 := duplicatesHash(t, root7)
	if d3 != d7 {
		t.Errorf("duplicates: 3 shards %s, 7 shards %s", d3, d7)
	}
}

// duplicatesHash is the SHA-256 of the duplicates part that its own
// completion manifest records.
func duplicatesHash(t *testing.T, root store.Store) string {
	t.Helper()
	m, err := layout.ReadDone(context.Background(), root, layout.DoneKey("math", "duplicates", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	objs := m.Objects("duplicates")
	if m.Dataset != "duplicates" || len(objs) != 1 || objs[0].SHA256 == "" {
		t.Fatalf("duplicates manifest: dataset %q, parts %v", m.Dataset, objs)
	}
	return objs[0].SHA256
}

// TestKill9MidWrite kills shards with SIGKILL at several points and checks
// that a killed shard never has a completion marker, every visible object
// is whole, and a rerun gives the bytes of an undisturbed run.
func TestKill9MidWrite(t *testing.T) {
	data := mathDir(t)
	ctx := context.Background()
	refDir := t.TempDir()
	refCfg, refPath := writeConfig(t, refDir, "data", data+"/MATH_*.jsonl", 1, 1)
	runLocal(t, refCfg, refPath)
	want := outputHashes(t, openRoot(t, refCfg.RootURI()), "math", "problems", "signatures", "corpus")

	killed := 0
	for _, delay := range []time.Duration{50, 300, 700, 1200, 2000} {
		dir := t.TempDir()
		cfg, cfgPath := writeConfig(t, dir, "data", data+"/MATH_*.jsonl", 1, 1)
		root := openRoot(t, cfg.RootURI())
		for _, st := range corpusStages {
			for _, step := range st.Steps {
				args := []string{"--config", cfgPath, "--shard", "0/1"}
				if !step.Sharded() {
					args = []string{"--config", cfgPath, "--reduce"}
				}
				cmd := exec.Command(filepath.Join(binDir, st.Name), args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(delay * time.Millisecond)
				cmd.Process.Signal(syscall.SIGKILL)
				err := cmd.Wait()
				spec := shard.Spec{Index: 0, Count: 1}
				var present []string
				for _, k := range stage.DoneKeys("math", step, spec) {
					if ok, _ := layout.Done(ctx, root, k); ok {
						present = append(present, k)
					}
				}
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
					killed++
					if len(present) == len(step.Outputs) {
						t.Errorf("%s %s killed after %dms but is done (every completion marker is present)", st.Name, step.Name, delay)
					}
				}
				// A marker that is visible (a kill between two datasets'
				// markers leaves the first) names a whole part with the
				// hash it records: nothing half-written is ever marked.
				for _, k := range present {
					m, err := layout.ReadDone(ctx, root, k)
					if err != nil {
						t.Errorf("after kill at %dms, marker %s is unreadable: %v", delay, k, err)
						continue
					}
					for _, o := range m.Objects(m.Dataset) {
						if got := hashKey(t, root, o.Key); got != o.SHA256 {
							t.Errorf("after kill at %dms, %s is marked done with sha256 %s but hashes to %s", delay, o.Key, o.SHA256, got)
						}
					}
				}
				// Whatever is visible must be whole Parquet, of any
				// dataset's schema (staging ones have no id column).
				for _, ds := range step.Outputs {
					infos, _ := root.List(ctx, "math/"+ds+"/part-")
					for _, in := range infos {
						if err := wholeParquet(ctx, root, in.Key); err != nil {
							t.Errorf("after kill at %dms, visible object is not whole: %v", delay, err)
						}
					}
				}
				// Rerun to completion, then the next step.
				rerun := exec.Command(filepath.Join(binDir, st.Name), args...)
				if out, err := rerun.CombinedOutput(); err != nil {
					t.Fatalf("rerun %s %s: %v\n%s", st.Name, step.Name, err, out)
				}
			}
		}
		got := outputHashes(t, root, "math", "problems", "signatures", "corpus")
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("after kills at %dms: outputs differ from an undisturbed run\n got %v\nwant %v", delay, got, want)
		}
	}
	if killed == 0 {
		t.Fatal("no shard was killed mid-run; the test proved nothing")
	}
	t.Logf("%d shard runs killed mid-way", killed)
}

// TestFailedShardReportsLogAndCommand: a shard that fails stops the run
// with its exit code, the end of its log, and the command to rerun it.
func TestFailedShardReportsLogAndCommand(t *testing.T) {
	dir := t.TempDir()
	cfg, cfgPath := writeConfig(t, dir, "data", "missing-*.jsonl", 2, 1)
	_, err := RunLocal(context.Background(), cfg, Stages, LocalOptions{ConfigPath: cfgPath, Parallel: 2, BinDir: binDir, LogDir: filepath.Join(dir, "logs")})
	var se *ShardError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *ShardError", err)
	}
	msg := err.Error()
	if se.ExitCode() != stage.ExitBadInput || !strings.Contains(msg, "matched no files") ||
		!strings.Contains(msg, "--shard") || !strings.Contains(msg, cfgPath) {
		t.Errorf("message:\n%s", msg)
	}
	// The run's record keeps the failure for saber status, another process:
	// the shard, its exit code and its log, named by the run.
	rec, err := ReadLocalRecord(context.Background(), openRoot(t, cfg.RootURI()), "math")
	if err != nil || rec == nil || len(rec.Failures) != 1 {
		t.Fatalf("record %+v, %v: want one failure", rec, err)
	}
	f := rec.Failures[0]
	wantLog := LogFile(filepath.Join(dir, "logs"), "math", "ingest", "map", f.Spec())
	if f.Stage != "ingest" || f.Step != "map" || f.Shards != 2 || f.ExitCode != stage.ExitBadInput || f.Log != wantLog ||
		f.Spec() != se.Run.Shard || rec.Exit != stage.ExitBadInput || rec.Error != se.Summary() {
		t.Errorf("record %+v\nfailure %+v\nwant ingest map shard %s, exit 2, log %s", rec, f, se.Run.Shard, wantLog)
	}
	if log, err := os.ReadFile(f.Log); err != nil || !strings.Contains(string(log), "matched no files") {
		t.Errorf("the recorded log %s: %v\n%s", f.Log, err, log)
	}
}

// TestStageBinaryBadConfig: an unknown config key exits 2 naming the key.
func TestStageBinaryBadConfig(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.yaml")
	os.WriteFile(p, []byte("run: r\nroot: data\ndedup:\n  shard: 3\n"), 0o644)
	for _, st := range Stages {
		cmd := exec.Command(filepath.Join(binDir, st.Name), "--config", p)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "unknown key dedup.shard") {
			t.Errorf("%s: exit %v, output %s", st.Name, err, out)
		}
	}
}

// TestS3RootSameHashes runs ingest and dedup with the root on a real S3
// server and compares every output hash with a local run.
func TestS3RootSameHashes(t *testing.T) {
	data := mathDir(t)
	uri := storetest.S3URI(t, store.Options{})
	ctx := context.Background()
	localDir := t.TempDir()
	lcfg, lpath := writeConfig(t, localDir, "data", data+"/MATH_test.jsonl", 2, 3)
	runLocal(t, lcfg, lpath)
	s3Dir := t.TempDir()
	scfg, spath := writeConfig(t, s3Dir, uri, data+"/MATH_test.jsonl", 2, 3)
	runLocal(t, scfg, spath)
	sroot, err := store.Open(ctx, uri, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := outputHashes(t, openRoot(t, lcfg.RootURI()), "math", "problems", "signatures", "corpus")
	got := outputHashes(t, sroot, "math", "problems", "signatures", "corpus")
	// problems and rejects of the ingest reduce, signatures per dedup shard, and
	// the reduce's corpus, duplicates and reports/dedup.md.
	if len(want) != 1+1+3+3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("S3 run differs from the local run:\n got %v\nwant %v", got, want)
	}
	// A rerun on S3 is a no-op, and verify matches on S3 too.
	for _, r := range runLocal(t, scfg, spath) {
		if !r.Skipped {
			t.Errorf("rerun on S3 ran %s %s %s", r.Stage, r.Step, r.Shard)
		}
	}
	dedup := dedupStage(t)
	red, _ := dedup.Step("reduce")
	checks, _, err := Verify(ctx, scfg, stages.Of(dedup), red, shard.Spec{Index: 0, Count: 1}, t.TempDir(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if !PrintChecks(&buf, checks) {
		t.Errorf("verify on S3:\n%s", buf.String())
	}
}

// hashKey is the SHA-256 of a stored object ("" when it is absent).
// wholeParquet reads key whole and checks it is a Parquet file whose
// footer parses and whose rows can be counted.
func wholeParquet(ctx context.Context, st store.Store, key string) error {
	obj, err := st.Open(ctx, key)
	if err != nil {
		return err
	}
	defer obj.Close()
	data, err := io.ReadAll(io.NewSectionReader(obj, 0, obj.Size()))
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	_, err = dataset.FileRows(data, key)
	return err
}

func hashKey(t *testing.T, st store.Store, key string) string {
	t.Helper()
	h, err := hashObject(context.Background(), st, key)
	if err != nil && !errors.Is(err, store.ErrNotExist) {
		t.Fatal(err)
	}
	return h
}

func openRoot(t *testing.T, uri string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), uri, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// writeSynth writes a generated corpus of c's problems as JSONL to path.
func writeSynth(t *testing.T, path string, c synth.Config) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, c); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
