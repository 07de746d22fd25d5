package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/stage"
)

// TestStudyScheduling is the issue's bar: `saber study scheduling
// --simulate` prints the table for Swiss R = 20, Swiss with adaptive
// stopping and the information-driven scheduler, with calls per query and
// fidelity columns (with --oracle, the bound's rows too), and writes the
// CSV, Markdown and plot; without an input it is bad input.
func TestStudyScheduling(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := cmdStudy(ctx, []string{"scheduling", "--simulate", "--queries", "2", "--retrievers", "4", "--oracle", "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	text := stdout.String()
	for _, w := range []string{"swiss R=20", "swiss-adaptive", "active", "oracle, half the calls", "knows the exhaustive θ", "calls/query", "inversions", "top-10 τ", "|ΔnDCG@10|", "ρ vs ref"} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q:\n%s", w, text)
		}
	}
	for _, f := range []string{"scheduling.csv", "scheduling.md", "scheduling.png", "scheduling.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := cmdStudy(ctx, []string{"scheduling"}, &stdout, &stderr); code != stage.ExitBadInput || !strings.Contains(stderr.String(), "--simulate") {
		t.Errorf("no input: exit %d, %s", code, stderr.String())
	}
}

// TestStudySchedulingSweep: --sweep prints one row per scheduler with the
// spread over its studies; a bad list or a second input is bad input.
func TestStudySchedulingSweep(t *testing.T) {
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	code := cmdStudy(ctx, []string{"scheduling", "--sweep", "--seeds", "1,2", "--noises", "0.5", "--query-counts", "1", "--n", "20", "--retrievers", "2"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, w := range []string{"2 simulated studies", "seeds 1,2", "refine", "swiss-top", "swiss R=10", "inversions ×", "0/2"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, stdout.String())
		}
	}
	for _, args := range [][]string{
		{"--sweep", "--noises", "x"},
		{"--sweep", "--seeds", ""},
		{"--sweep", "--simulate"},
		{"--sweep", "--noises", "0", "--query-counts", "1"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := cmdStudy(ctx, append([]string{"scheduling"}, args...), &stdout, &stderr); code != stage.ExitBadInput {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, stage.ExitBadInput, stderr.String())
		}
	}
}
