package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/demo"
	"github.com/saber-math/saber/lib/synth"
)

// TestSummaryAgreesWithReports (issue 37): on a run whose ingest drops
// rows with where: and whose audit flags a leak, the release refuses the
// leak (exit 2), and what the console says — the summary saber run prints
// at its end and saber stats prints again — equals what the reports and
// the data say: the rows read, filtered, rejected and accepted (the
// filtered count also equals the generator's own count of the rows the
// condition names), and the pairs audited and flagged in
// reports/audit.md, saber stats' audit reduce and reports/index.html.
func TestSummaryAgreesWithReports(t *testing.T) {
	dir := t.TempDir()
	// At 2,000 generated problems the offline audit flags one planted
	// near-duplicate that dedup let through (at 800 none).
	scfg := synth.Config{N: 2000, Seed: 1, DupFrac: 0.05}
	if err := demo.WriteInputs(dir, scfg); err != nil {
		t.Fatal(err)
	}
	// Drop one template's rows from the open source with where:, and
	// leave out the deduplication experiment (it adds nothing here) and
	// the saved forecast the report would show (saber demo makes it).
	drop := synth.Generate(scfg, 0).Template
	filtered := 0
	for i := 0; i < scfg.N; i++ {
		if i%demo.RestrictedEvery != demo.RestrictedEvery-1 && synth.Generate(scfg, i).Template == drop {
			filtered++
		}
	}
	if filtered == 0 {
		t.Fatalf("no generated row has template %q", drop)
	}
	cfgPath := filepath.Join(dir, "run.yaml")
	cfg := fmt.Sprintf(demo.ConfigYAML, cfgPath, scfg.Seed, "  allow_shortfall: true\n", "")
	synthFields := "      fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}\n"
	i := strings.Index(cfg, synthFields)
	if i < 0 {
		t.Fatal("the demo config's synth source changed: update this test")
	}
	cfg = cfg[:i+len(synthFields)] + fmt.Sprintf("      where: [{field: template, not: %s}]\n", drop) + cfg[i+len(synthFields):]
	if j, k := strings.Index(cfg, "\ndownstream:"), strings.Index(cfg, "\nreport:"); j < 0 || k < j {
		t.Fatal("the demo config's downstream section moved: update this test")
	} else {
		cfg = cfg[:j] + cfg[k:]
	}
	if !strings.Contains(cfg, "  plan: plan.json") {
		t.Fatal("the demo config's report.plan changed: update this test")
	}
	cfg = strings.Replace(cfg, "  plan: plan.json", "", 1)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}

	out, code := saber(t, "run", "--config", cfgPath)
	if code != 2 || !strings.Contains(out, "release.accept_leaks") {
		t.Fatalf("run: exit %d, want 2 with the release refusing the audit's leak (if the audit flags none now, pick another N):\n%s", code, out)
	}
	rows := regexp.MustCompile(`rows in\s+(\d+) read: (\d+) filtered out by where:, (\d+) rejected, (\d+) accepted`)
	audit := regexp.MustCompile(`leakage audit\s+(\d+) pairs audited, (\d+) flagged, (\d+) without a usable answer`)
	nums := func(re *regexp.Regexp, text, what string) []int64 {
		t.Helper()
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s lacks %s:\n%s", what, re, text)
		}
		var v []int64
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			v = append(v, n)
		}
		return v
	}
	r := nums(rows, out, "saber run's summary")
	a := nums(audit, out, "saber run's summary")
	if r[1] != int64(filtered) {
		t.Errorf("summary: %d filtered, the generator made %d rows of template %s", r[1], filtered, drop)
	}
	if r[0] != r[1]+r[2]+r[3] {
		t.Errorf("summary: %d read ≠ %d filtered + %d rejected + %d accepted", r[0], r[1], r[2], r[3])
	}
	if a[1] == 0 {
		t.Fatalf("the audit flagged nothing, yet the release refused:\n%s", out)
	}

	// saber stats prints the same summary, and its raw counts agree.
	st, code := saber(t, "stats", "--config", cfgPath)
	if code != 0 {
		t.Fatalf("stats: exit %d\n%s", code, st)
	}
	if got := nums(rows, st, "saber stats"); fmt.Sprint(got) != fmt.Sprint(r) {
		t.Errorf("saber stats: rows %v, saber run %v", got, r)
	}
	if got := nums(audit, st, "saber stats"); fmt.Sprint(got) != fmt.Sprint(a) {
		t.Errorf("saber stats: audit %v, saber run %v", got, a)
	}
	js, code := saber(t, "stats", "--config", cfgPath, "--stages", "ingest,audit", "--json")
	if code != 0 {
		t.Fatalf("stats --json: exit %d\n%s", code, js)
	}
	var steps []struct {
		Stage, Step string
		Stats       map[string]int64
	}
	if err := json.Unmarshal([]byte(js), &steps); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, js)
	}
	for _, s := range steps {
		switch s.Stage + " " + s.Step {
		case "ingest reduce":
			var rejected int64
			for k, v := range s.Stats {
				if strings.HasPrefix(k, "rejected_") {
					rejected += v
				}
			}
			if got := []int64{s.Stats["rows_read"] + s.Stats["filtered"], s.Stats["filtered"], rejected, s.Stats["problems_total"]}; fmt.Sprint(got) != fmt.Sprint(r) {
				t.Errorf("ingest reduce's stats give %v, the summary %v", got, r)
			}
		case "audit reduce":
			if s.Stats["leaks"] != a[1] || s.Stats["pairs"] != a[0] || s.Stats["invalid"] != a[2] {
				t.Errorf("audit reduce's stats %v, the summary %v", s.Stats, a)
			}
		}
	}

	// The reports.
	reports := filepath.Join(dir, "data", "demo", "reports")
	md, err := os.ReadFile(filepath.Join(reports, "audit.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("## Flagged pairs (%d)", a[1]); !strings.Contains(string(md), want) {
		t.Errorf("reports/audit.md lacks %q", want)
	}
	page, err := os.ReadFile(filepath.Join(reports, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d top-rated candidates checked: %d flagged", a[0], a[1]); !strings.Contains(string(page), want) {
		t.Errorf("reports/index.html lacks %q", want)
	}
}
