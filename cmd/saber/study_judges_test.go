package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
)

// TestStudyAgreementAltJudges: `saber study agreement --alt-judges` runs
// the ordinal, majority and confidence judges offline over the labelled
// items and adds one Table 6 row each, with its interval and p-value;
// without --corpus it is bad input naming the flag.
func TestStudyAgreementAltJudges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := []dataset.Document{
		{ID: "a", Statement: "Find all primes p such that p^2 + 8 is prime.", Solution: "Work modulo 3: p = 3."},
		{ID: "b", Statement: "Compute the area of a triangle with sides 3, 4 and 5.", Solution: "It is right-angled: 6."},
		{ID: "c", Statement: "Show that p^2 - 1 is divisible by 24 for primes p > 3.", Solution: "Work modulo 3 and modulo 8."},
		{ID: "q", Statement: "Find all primes p such that p^2 + 2 is prime.", Solution: "Work modulo 3: p = 3."},
	}
	if _, err := dataset.WriteRows(ctx, st, "corpus.parquet", docs); err != nil {
		t.Fatal(err)
	}
	labels := "target,candidate1,candidate2,label,annotator\nq,a,b,1,x\nq,c,b,1,x\nq,a,c,tie,x\nq,b,a,2,y\n"
	if err := os.WriteFile(filepath.Join(dir, "labels.csv"), []byte(labels), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	code := cmdStudy(ctx, []string{"agreement", "--labels", filepath.Join(dir, "labels.csv"), "--alt-judges", "ordinal,majority,confidence",
		"--corpus", filepath.Join(dir, "corpus.parquet"), "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "agreement.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows[1:] {
		names = append(names, r[0])
		if r[0] != "Inter-annotator" && (r[1] != "3" || r[5] == "" || r[6] == "" || r[7] == "") {
			t.Errorf("row %v: want n = 3 items with a Wilson interval and a p-value", r)
		}
	}
	want := "Inter-annotator|Ordinal judge [offline lexical]|Majority judge (5 votes) [offline lexical]|Pairwise judge (confidence ≥ 70) [offline lexical]"
	if strings.Join(names, "|") != want {
		t.Errorf("Table 6 rows %q, want %q", names, want)
	}
	stderr.Reset()
	code = cmdStudy(ctx, []string{"agreement", "--labels", filepath.Join(dir, "labels.csv"), "--alt-judges", "ordinal"}, &stdout, &stderr)
	if code != stage.ExitBadInput || !strings.Contains(stderr.String(), "--corpus") {
		t.Errorf("--alt-judges without --corpus: exit %d, %q; want 2 naming --corpus", code, stderr.String())
	}
}
