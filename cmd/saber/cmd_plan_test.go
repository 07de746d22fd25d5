package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPlanPaperScaleBesideAppendixE: `saber plan` on the paper-scale
// example prints App. E's figures beside its forecast after the forecast
// itself, and --json, whose file --compare --forecast reads back as
// steps, stays the steps alone.
func TestPlanPaperScaleBesideAppendixE(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(repoRoot, "examples", "paper-scale.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body = regexp.MustCompile(`(?m)^root: .*$`).ReplaceAll(body, []byte("root: "+filepath.Join(dir, "runs")))
	// plan.documents stands for the inputs: the forecast reads none.
	src := filepath.Join(dir, "in.jsonl")
	writeFile(t, src, []byte(`{"unique_id":"a","problem":"1+1?","solution":"2"}`+"\n"))
	body = bytes.ReplaceAll(body, []byte("../../shared/data/math/MATH_test.jsonl"), []byte(src))
	cfg := filepath.Join(dir, "paper-scale.yaml")
	writeFile(t, cfg, body)

	var out, errb bytes.Buffer
	if code := dispatch(context.Background(), []string{"plan", "--config", cfg}, &out, &errb); code != 0 {
		t.Fatalf("saber plan: exit %d\n%s", code, errb.String())
	}
	md := out.String()
	i, j := strings.Index(md, "## Total\n"), strings.Index(md, "## Beside the paper (App. E)\n")
	if i < 0 || j < i {
		t.Fatalf("no App. E section after the forecast's total:\n%s", md)
	}
	for _, want := range []string{
		"| tag | §E.2: topic extraction, 48 h on 8 H200 GPUs | 384 |",
		"| summarize | §E.2: summary extraction, 12 h on 4 H200 GPUs | 48 |",
		"| judge | §E.2: pairwise judging, 160 h on 4 H200 GPU nodes | ≥ 640 |",
		"| evaluate | §E.3: evaluating the open-weight embedding models, 200 h on 4 H200 GPUs | 800 |",
		"Goal (issue 41)",
	} {
		if !strings.Contains(md[j:], want) {
			t.Errorf("the App. E section lacks %q:\n%s", want, md[j:])
		}
	}

	out.Reset()
	if code := dispatch(context.Background(), []string{"plan", "--config", cfg, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("saber plan --json: exit %d\n%s", code, errb.String())
	}
	if strings.Contains(out.String(), "App. E") || !strings.HasPrefix(strings.TrimSpace(out.String()), "[") {
		t.Errorf("--json is not the steps alone:\n%.300s", out.String())
	}
}
