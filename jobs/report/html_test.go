package report

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/lib/ndcg"
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
