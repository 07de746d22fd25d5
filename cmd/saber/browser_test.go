package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/lib/ndcg"
	"github.com/saber-math/saber/shard"
)

// chromium finds a headless Chromium: $SABER_CHROMIUM, else Debian's
// chromium-headless-shell or chromium (.ci/run installs the first). It
// skips the test without one, and fails it under CI=true, where .ci/run
// must have installed it.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SABER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium-headless-shell", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no headless Chromium under CI=true: .ci/run installs Debian's chromium-headless-shell (or set SABER_CHROMIUM)")
	}
	t.Skip("no headless Chromium (apt-get install chromium-headless-shell, or set SABER_CHROMIUM)")
	return ""
}

// browserRow is a leaderboard row of the page as Chromium serialises it.
var browserRow = regexp.MustCompile(`<tr data-retriever="([^"]*)" data-ndcg="([^"]*)" data-lo="([^"]*)" data-hi="([^"]*)">`)

// consoleLine is a message of the page's console in Chromium's log
// (--enable-logging=stderr): any message, an uncaught error included.
var consoleLine = regexp.MustCompile(`:CONSOLE[:(][^\]]*\] .*`)

// checkPageInBrowser loads the run's reports/index.html from disk in a
// real headless Chromium: the page's script must run to its end
// (body[data-rendered]) with nothing on the console and no error caught
// (body[data-errors]), and the leaderboard it shows must be the results
// dataset's main setting, row for row. The screenshot is kept as a test
// artifact under $SABER_TEST_ARTIFACTS (CI's artifact folder) or in the
// test's temporary folder.
func checkPageInBrowser(t *testing.T, cfgPath string) {
	t.Helper()
	bin := chromium(t)
	ctx := context.Background()
	cfg, err := pipeline.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	page, ok := strings.CutPrefix(root.URI(layout.ReportKey(cfg.Run, "index.html")), "file://")
	if !ok {
		t.Fatalf("the demo's page %s is not on local disk", page)
	}
	profile := t.TempDir() // a fresh profile: nothing cached, nothing shared
	args := func(extra ...string) []string {
		return append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
			"--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"}, extra...)
	}
	run := func(extra ...string) (stdout, stderr string) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(c, bin, args(extra...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", bin, extra, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, log := run("--dump-dom", "file://"+page)
	for _, line := range consoleLine.FindAllString(log, -1) {
		t.Errorf("console: %s", line)
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(dom)
	if !strings.Contains(body, `data-rendered="1"`) || strings.Contains(body, "data-errors") {
		t.Errorf("the page's script did not run cleanly: %s", body)
	}

	results, err := dataset.Read[dataset.Result](ctx, root, layout.DataKey(cfg.Run, dataset.Results.Name, shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]dataset.Result{}
	for _, r := range results {
		if r.Setting == cfg.Evaluate.Settings[0] && r.Gain == ndcg.Exponential.String() && r.Scope == "overall" {
			want[r.Retriever] = r
		}
	}
	rows := browserRow.FindAllStringSubmatch(dom, -1)
	if len(rows) != len(want) || len(rows) == 0 {
		t.Errorf("the rendered leaderboard has %d rows, results %d retrievers", len(rows), len(want))
	}
	prev := 2.0
	for _, row := range rows {
		r, ok := want[row[1]]
		if !ok {
			t.Errorf("leaderboard row %q is not in results", row[1])
			continue
		}
		for i, v := range []float64{r.NDCG, r.Lo, r.Hi} {
			if got, err := strconv.ParseFloat(row[2+i], 64); err != nil || got != v {
				t.Errorf("%s: leaderboard value %d is %s, results %v", r.Retriever, i, row[2+i], v)
			}
		}
		if r.NDCG > prev {
			t.Errorf("%s is out of rank order", r.Retriever)
		}
		prev = r.NDCG
	}

	dir := os.Getenv("SABER_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "demo-report.png")
	run("--window-size=1280,4000", "--hide-scrollbars", "--screenshot="+shot, "file://"+page)
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Errorf("no screenshot of the page at %s (%v)", shot, err)
	} else {
		t.Logf("screenshot of the demo's page: %s (%d bytes)", shot, st.Size())
	}
}
