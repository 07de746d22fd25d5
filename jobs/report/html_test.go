package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/shard"
)

// leaderboardRow matches a row of the page's leaderboard as written, and
// as a browser serialises it (attributes in order, double quotes).
var leaderboardRow = regexp.MustCompile(`<tr data-retriever="([^"]*)" data-ndcg="([^"]*)" data-lo="([^"]*)" data-hi="([^"]*)">`)

// TestIndexHTML: the page's leaderboard is the `results` dataset's main
// setting, overall, exponential gain, row for row and in rank order; every
// section is there with the datasets' numbers; text from the data is
// escaped; and nothing is fetched from elsewhere.
func TestIndexHTML(t *testing.T) {
	cfg, root, _, dir := setup(t, fabOptions{queries: 14, docs: 8, ranges: 1}, 5)
	if _, err := runReport(t, cfg, root, false); err != nil {
		t.Fatal(err)
	}
	page := readReport(t, dir, ReportHTML)
	results, err := dataset.Read[dataset.Result](context.Background(), mustOpen(t, dir), "r/results/part-00000-of-00001.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var want []dataset.Result
	for _, r := range results {
		if r.Setting == "statement-full" && r.Gain == ndcg.Exponential.String() && r.Scope == ScopeOverall {
			want = append(want, r)
		}
	}
	rows := leaderboardRow.FindAllSubmatch(page, -1)
	if len(rows) != len(want) || len(want) == 0 {
		t.Fatalf("page has %d leaderboard rows, results %d", len(rows), len(want))
	}
	prev := 2.0
	for _, row := range rows {
		name := string(row[1])
		var r *dataset.Result
		for i := range want {
			if want[i].Retriever == name {
				r = &want[i]
			}
		}
		if r == nil {
			t.Fatalf("page row %q is not in results", name)
		}
		for i, v := range []float64{r.NDCG, r.Lo, r.Hi} {
			got, err := strconv.ParseFloat(string(row[2+i]), 64)
			if err != nil || got != v {
				t.Errorf("%s: page value %d = %s, results %v", name, i, row[2+i], v)
			}
		}
		if r.NDCG > prev {
			t.Errorf("%s out of rank order", name)
		}
		prev = r.NDCG
	}
	for _, want := range []string{
		`id="calibration"`, `class="heat" data-domain="Algebra"`, `class="final `, // the final point is marked
		`<td class="l">forum</td><td>1</td>`, // duplicates by source
		`same &lt;problem&gt; &amp; numbers`, // escaped, not markup
		`src="data:image/svg`, `id="chart-domains"`, `id="chart-frontier"`,
		`<td class="l">topics</td><td class="l">tag</td>`, // provenance
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Self-contained: no stylesheet, script or image from anywhere else.
	for _, bad := range regexp.MustCompile(`(?:src|href)="([^"#][^"]*)"`).FindAllSubmatch(page, -1) {
		if !strings.HasPrefix(string(bad[1]), "data:") {
			t.Errorf("page refers to %s", bad[1])
		}
	}
	if bytes.Contains(page, []byte("<link")) {
		t.Error("page links an outside resource")
	}
}

func mustOpen(t *testing.T, dir string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Clean(dir), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestIndexHTMLPlanAndJudgeAudit: with report.plan, the page puts each
// saved count beside the actual its step's manifests recorded (rows of a
// dataset, a statistic), marks a count more than 10% off, and lists the
// steps after report, whose actuals it cannot know; the plan file is
// recorded as an input of the shard. The judge's position audit is on the
// page with judge_audit.md's figures.
func TestIndexHTMLPlanAndJudgeAudit(t *testing.T) {
	ctx := context.Background()
	_, root, _, dir := setup(t, fabOptions{queries: 12, docs: 6, ranges: 1}, 3)
	// 50 audited comparisons: the first shown wins in the first order
	// always, and in the swapped order 40 times: 90 of 100 verdicts for
	// the first position, 10 of 50 comparisons consistent.
	var audit []dataset.JudgeAuditRow
	for i := range 50 {
		r := dataset.JudgeAuditRow{Query: "q001", Domain: testDomains[0], Round: 1, Match: int32(i), Sample1: fmt.Sprint("a", i), Sample2: fmt.Sprint("b", i), Source: dataset.JudgeAuditSample}
		r.Winner, r.SwappedWinner = r.Sample1, r.Sample2
		if i < 10 {
			r.SwappedWinner = r.Sample1
		}
		r.Consistent = r.Winner == r.SwappedWinner
		audit = append(audit, r)
	}
	stagetest.PutBy(t, root, "r", dataset.JudgeAudit, "judge", map[string]string{"judge.backend": "lexical"}, audit)
	ms, err := layout.Complete(ctx, root, "r", dataset.Ratings.Name)
	if err != nil {
		t.Fatal(err)
	}
	var rows float64
	for _, m := range ms {
		rows += float64(m.Rows)
	}
	steps := []*plan.Step{
		{Name: "rate map", Stage: "rate", Step: "map", Shards: ms[0].Shards, Output: dataset.Ratings.Name, Metrics: []plan.Metric{
			{Name: "ratings", Value: rows * 1.05, Rows: dataset.Ratings.Name, Basis: "one per candidate"},
			{Name: "queries", Value: 2 * 12, Rows: dataset.Queries.Name, Basis: "twice too many"},
		}},
		{Name: "downstream map", Stage: "downstream", Step: "map", Shards: 1, Output: "downstream"},
	}
	b, _ := json.Marshal(steps)
	if err := os.WriteFile(filepath.Join(dir, "plan.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	testConfig(t, dir, "r", 3, nil) // writes r.yaml, edited below
	y, _ := os.ReadFile(filepath.Join(dir, "r.yaml"))
	y = bytes.Replace(y, []byte("report: {resamples: 200, k: 5}"), []byte("report: {resamples: 200, k: 5, plan: plan.json}"), 1)
	os.WriteFile(filepath.Join(dir, "r.yaml"), y, 0o644)
	cfg, err := config.Load(filepath.Join(dir, "r.yaml"), Section)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := string(readReport(t, dir, ReportHTML))
	for _, want := range []string{
		`<h3>rate map <span class="note">1 of 1 shards done</span></h3>`,
		"<td class=\"l\">ratings</td><td>" + plan.GroupDigits(strconv.Itoa(int(rows*1.05+0.5)), "\u2009") + "</td><td>" + plan.GroupDigits(strconv.Itoa(int(rows)), "\u2009") + "</td><td>0.952</td>",
		`<tr class="off"><td class="l">queries</td><td>24</td><td>12</td><td>0.500</td>`,
		"1 of 2 within their tolerance (10% for a count",
		"Not compared here", "downstream map",
		`<td class="l">overall</td><td>50</td><td>50</td><td>0.200 [`, `<td data-p="0.9">0.900 [`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	found := false
	for _, in := range res.Manifest.Inputs {
		found = found || strings.HasSuffix(in.URI, "plan.json")
	}
	if !found {
		t.Errorf("the plan file is not among the shard's inputs: %+v", res.Manifest.Inputs)
	}
}
