package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/pipeline/pipelinetest"
)

var binDir string

// TestMain gets saber and the stage binaries as `make build` builds them,
// built once per source tree for every test package that runs them.
func TestMain(m *testing.M) {
	dir, err := pipelinetest.Binaries(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	binDir = dir
	os.Exit(m.Run())
}

// saber runs bin/saber and returns its combined output and exit code.
func saber(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "saber"), args...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func TestDemoRunsAndRerunIsNoOp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	out, code := saber(t, "demo", "--out", dir, "--n", "800")
	if code != 0 {
		t.Fatalf("demo exit %d:\n%s", code, out)
	}
	first := out
	for _, want := range []string{"rows in              803 read: 0 filtered out by where:, 2 rejected, 801 accepted", "duplicate clusters", "planted near-dups", "leakage audit        ",
		"dedup retrieval", "reports/downstream.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// The page, in a real browser.
	checkPageInBrowser(t, filepath.Join(dir, "run.yaml"))
	out, code = saber(t, "demo", "--out", dir, "--n", "800")
	if code != 0 || !strings.Contains(out, "reusing") || !strings.Contains(out, "ingest map: 0 of 2 shards to run") ||
		!strings.Contains(out, "dedup reduce: 0 of 1 shards to run") {
		t.Fatalf("rerun exit %d:\n%s", code, out)
	}
	// verify on the demo's run: every shard reproduces.
	cfg := filepath.Join(dir, "run.yaml")
	for _, args := range [][]string{{"--stage", "ingest", "--shard", "1/2"}, {"--stage", "ingest", "--reduce"}, {"--stage", "dedup", "--shard", "0/2"}, {"--stage", "dedup", "--reduce"},
		{"--stage", "calibrate", "--reduce"}, {"--stage", "select", "--reduce"},
		{"--stage", "judge", "--shard", "1/2"}, {"--stage", "rate", "--shard", "0/2"},
		{"--stage", "evaluate", "--shard", "5/30"}, {"--stage", "report", "--reduce"},
		{"--stage", "audit", "--shard", "0/1"}, {"--stage", "audit", "--reduce"}, {"--stage", "analyze", "--reduce"}, {"--stage", "release", "--reduce"},
		{"--stage", "rewrite", "--shard", "1/2"}, {"--stage", "downstream", "--shard", "0/5"}, {"--stage", "downstream", "--reduce"}} {
		out, code := saber(t, append([]string{"verify", "--config", cfg}, args...)...)
		if code != 0 || !strings.Contains(out, "reproduces") {
			t.Errorf("verify %v: exit %d\n%s", args, code, out)
		}
	}
	// saber stats reads what every stage recorded.
	out, code = saber(t, "stats", "--config", cfg)
	for _, want := range []string{"ingest map (2 shards)", "rows_read", "dedup reduce (1 shards)", "clusters", "tag map (2 shards)", "topics_total", "summarize map", "core_idea_words_total", "pairs map", "pairs_both", "select reduce", "candidates", "judge map", "invalid", "rate map", "max_iterations", "evaluate map", "report reduce", "audit map", "leaks", "analyze reduce", "mathtext_kept", "release reduce", "leaks_accepted", "invalid share"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("saber stats lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	// saber run on the finished demo does nothing.
	out, code = saber(t, "run", "--config", cfg)
	// 52 on the main line (analyze included; evaluate 10 retrievers × 3
	// settings), 10 of the deduplication experiment (rewrite 2, embed 1,
	// downstream 5 retrievers and its reduce).
	if code != 0 || !strings.Contains(out, "0 shards ran, 62 already done") {
		t.Errorf("run on a done demo: exit %d\n%s", code, out)
	}
	for _, want := range []string{"serving the demo's embedding model", "pool       hash-embed", "saved the forecast of the run"} {
		if !strings.Contains(first, want) {
			t.Errorf("demo output lacks %q:\n%s", want, first)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("run: r\nroot: data\ningest:\n  sources:\n    - name: a\n      paths: [x]\n      fieldz: {}\n"), 0o644)
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("run: r\nroot: data\n"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Commands:"},
		{[]string{"--help"}, 0, "Commands:"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"demo", "--dup-frac", "5", "--out", filepath.Join(dir, "demo")}, 2, "--dup-frac 5: want 0 ≤ --dup-frac < 1"},
		{[]string{"demo", "--dup-frac", "NaN", "--out", filepath.Join(dir, "demo")}, 2, "--dup-frac NaN: want"},
		{[]string{"synth", "--dup-frac", "NaN"}, 2, "0 ≤ --dup-frac < 1"},
		{[]string{"run"}, 2, "--config FILE is required"},
		{[]string{"run", "--config", bad}, 2, "unknown key ingest.sources[0].fieldz"},
		{[]string{"run", "--config", good, "--stages", "ingest,nope"}, 2, `unknown stage "nope"`},
		{[]string{"run", "--config", good, "--stages", ""}, 2, "--stages is empty"},
		{[]string{"run", "--config", good, "--parallel", "-1"}, 2, "--parallel -1: want ≥ 1"},
		{[]string{"run", "--help"}, 0, "saber run — run stages locally"},
		{[]string{"verify", "--config", good, "--stage", "dedup"}, 2, "--shard i/n or --reduce is required"},
		{[]string{"verify", "--config", good, "--stage", "dedup", "--shard", "0/2"}, 2, "is not done"},
		{[]string{"verify", "--config", good, "--stage", "tag", "--reduce"}, 2, "has no reduce step"},
		{[]string{"synth", "--n", "2", "--seed", "3"}, 0, `"statement"`},
		{[]string{"run", "--config", good, "--print-config"}, 0, "threshold: 0.8"},
	}
	for _, tt := range tests {
		out, code := saber(t, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("saber %v: exit %d, want %d and %q; output:\n%s", tt.args, code, tt.code, tt.want, out)
		}
	}
}

// TestStaleAfterConfigEdit: after a config key dedup reads changes, `saber
// status` counts dedup's shards in its stale column with a STALE line
// naming the key, old → new; `saber verify` says how the shard's config
// differs; `saber run` refuses (exit 2) until --rerun-stale recomputes
// them and everything downstream.
func TestStaleAfterConfigEdit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if out, code := saber(t, "demo", "--out", dir, "--n", "800"); code != 0 {
		t.Fatalf("demo exit %d:\n%s", code, out)
	}
	cfg := filepath.Join(dir, "run.yaml")
	out, code := saber(t, "status", "--config", cfg)
	if code != 0 || !strings.Contains(out, "done/total  stale") || strings.Contains(out, "STALE") || !strings.Contains(out, "every shard is done") {
		t.Fatalf("status of a fresh demo: exit %d\n%s", code, out)
	}
	y, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(y), "dedup:\n  shards: 2\n", "dedup:\n  shards: 2\n  threshold: 0.85\n", 1)
	if edited == string(y) {
		t.Fatalf("the demo config has no dedup section to edit:\n%s", y)
	}
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = saber(t, "status", "--config", cfg)
	// The threshold decides only dedup's reduce: its map's signatures
	// stay current (the map step ignores dedup.threshold).
	for _, want := range []string{
		"dedup      map         2/2          -  ", "dedup      reduce      1/1          1  ", "tag        map         2/2          -  ",
		"STALE dedup reduce: the shard: config dedup.threshold: 0.8 → 0.85",
		"--rerun-stale",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("status after the edit lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	if n := strings.Count(out, "STALE"); n != 1 {
		t.Errorf("status after the edit: %d STALE lines, want dedup reduce's 1:\n%s", n, out)
	}
	out, code = saber(t, "verify", "--config", cfg, "--stage", "dedup", "--reduce")
	// 0 or 2 (a mismatch is bad data), but it ran: "reproduce" is in
	// either verdict, not in a refusal.
	if code == 1 || !strings.Contains(out, "config   dedup.threshold: 0.8 → 0.85") || !strings.Contains(out, "reproduce") {
		t.Errorf("verify dedup reduce after the edit: exit %d\n%s", code, out)
	}
	out, code = saber(t, "verify", "--config", cfg, "--stage", "tag", "--shard", "0/2")
	if code != 0 || strings.Contains(out, "config   ") || !strings.Contains(out, "reproduces") {
		t.Errorf("verify tag (config unchanged for it): exit %d\n%s", code, out)
	}
	out, code = saber(t, "run", "--config", cfg)
	if code != 2 || !strings.Contains(out, "dedup reduce: the shard: config dedup.threshold: 0.8 → 0.85") || !strings.Contains(out, "--rerun-stale") {
		t.Errorf("run past stale shards: exit %d, want 2\n%s", code, out)
	}
	out, code = saber(t, "run", "--config", cfg, "--rerun-stale")
	if code != 0 || !strings.Contains(out, "dedup reduce: recomputing the shard") || strings.Contains(out, "dedup map: recomputing") {
		t.Fatalf("run --rerun-stale: exit %d\n%s", code, out)
	}
	out, code = saber(t, "status", "--config", cfg)
	if code != 0 || strings.Contains(out, "STALE") || !strings.Contains(out, "every shard is done") {
		t.Errorf("status after --rerun-stale: exit %d\n%s", code, out)
	}
}
