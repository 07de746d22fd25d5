package selection

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/calibrate"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pairs"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/shard"
)

var domains = []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}

// fabricate writes `topics` (one part) and `pairs` (pairShards parts, by
// contiguous query ranges, as the pairs stage does) with manifests, for
// nDocs documents whose pairs have random category sizes around k.
func fabricate(t *testing.T, root store.Store, run string, nDocs, pairShards int) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 7))
	ids := make([]string, nDocs)
	var topics []dataset.TopicRow
	for i := range ids {
		ids[i] = fmt.Sprintf("d%05d", i)
		topics = append(topics, dataset.TopicRow{ID: ids[i], Domain: domains[i%len(domains)]})
	}
	topics[3].Domain = "" // a document without topics: never a query
	write := func(ds string, spec shard.Spec, put func(key string) (layout.Object, error)) {
		o, err := put(layout.DataKey(run, ds, spec))
		if err != nil {
			t.Fatal(err)
		}
		m := &layout.Manifest{Stage: ds, Step: "map", Run: run, Shard: spec.Index, Shards: spec.Count, Rows: o.Rows, Outputs: []layout.Object{o}}
		if err := layout.WriteDone(ctx, root, layout.DoneKey(run, ds, spec), m); err != nil {
			t.Fatal(err)
		}
	}
	write("topics", shard.Spec{Index: 0, Count: 1}, func(key string) (layout.Object, error) {
		return dataset.Topics.Write(ctx, root, key, topics)
	})
	perQuery := make([][]dataset.Pair, nDocs)
	for q := range ids {
		// Category sizes 0..14 around k = 5, so some queries are eligible
		// at some thresholds and not at others.
		n := rng.IntN(40)
		docs := rng.Perm(nDocs)[:n+1]
		for _, d := range docs {
			if d == q {
				continue
			}
			p := dataset.Pair{Query: ids[q], Doc: ids[d]}
			switch rng.IntN(3) {
			case 0: // topic side
				p.SimTopic, p.SimSumm = 0.858+0.142*rng.Float64(), 0.3*rng.Float64()
			case 1: // summary side
				p.SimTopic, p.SimSumm = 0.9*rng.Float64(), 0.211+0.5*rng.Float64()
			default:
				p.SimTopic, p.SimSumm = 0.858+0.142*rng.Float64(), 0.211+0.5*rng.Float64()
			}
			if rng.IntN(10) == 0 { // exactly on a grid threshold
				p.SimTopic = 0.9
			}
			p.Category = pairs.Category(p.SimTopic, p.SimSumm, 0.858, 0.211)
			perQuery[q] = append(perQuery[q], p)
		}
	}
	for i := 0; i < pairShards; i++ {
		spec := shard.Spec{Index: i, Count: pairShards}
		lo, hi := spec.Range(nDocs)
		var rows []dataset.Pair
		for q := lo; q < hi; q++ {
			rows = append(rows, perQuery[q]...)
		}
		write("pairs", spec, func(key string) (layout.Object, error) { return dataset.Pairs.Write(ctx, root, key, rows) })
	}
}

func testConfig(t *testing.T, dir, run string, seed uint64, extra string) *config.Config {
	t.Helper()
	y := fmt.Sprintf("run: %s\nroot: %s\nseed: %d\nlog: {progress_seconds: 0}\ncalibrate: {min_eligible: 3, topic_grid: {step: 0.02}, summ_grid: {to: 0.4, step: 0.03}}\n"+
		"select: {k: 3, per_domain: 4%s}\n", run, dir, seed, extra)
	path := filepath.Join(dir, run+".yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// runStage runs a one-task stage and returns its outputs by dataset or
// report name.
func runStage(t *testing.T, cfg *config.Config, root store.Store, st stage.Stage) (map[string]string, error) {
	t.Helper()
	res, err := stage.RunShard(context.Background(), cfg, st, st.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, o := range res.Outputs {
		rel := strings.TrimPrefix(o.Key, cfg.Run+"/")
		out[strings.SplitN(rel, "/", 2)[0]+"/"+filepath.Base(rel)] = o.SHA256
	}
	return out, nil
}

func TestSelectionDeterministicAndValid(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	hashes := map[string]map[string]string{}
	for _, tc := range []struct {
		run    string
		shards int
		seed   uint64
	}{{"s1", 1, 42}, {"s3", 3, 42}, {"seed", 3, 43}} {
		fabricate(t, root, tc.run, 600, tc.shards)
		cfg := testConfig(t, dir, tc.run, tc.seed, "")
		cal, err := runStage(t, cfg, root, calibrate.Stage)
		if err != nil {
			t.Fatalf("%s calibrate: %v", tc.run, err)
		}
		sel, err := runStage(t, cfg, root, Stage)
		if err != nil {
			t.Fatalf("%s select: %v", tc.run, err)
		}
		for k, v := range cal {
			sel[k] = v
		}
		hashes[tc.run] = sel
		checkSelection(t, ctx, cfg, root)
	}
	for _, k := range []string{"thresholds/part-00000-of-00001.parquet", "queries/part-00000-of-00001.parquet",
		"candidates/part-00000-of-00001.parquet", "reports/select.md", "reports/calibrate.csv"} {
		if hashes["s1"][k] == "" || hashes["s1"][k] != hashes["s3"][k] {
			t.Errorf("%s: 1 and 3 pairs shards differ (%q vs %q)", k, hashes["s1"][k], hashes["s3"][k])
		}
	}
	for _, k := range []string{"queries/part-00000-of-00001.parquet", "candidates/part-00000-of-00001.parquet"} {
		if hashes["s3"][k] == hashes["seed"][k] {
			t.Errorf("%s: changing the seed did not change it", k)
		}
	}
}

// checkSelection checks every promise of select against the pairs.
func checkSelection(t *testing.T, ctx context.Context, cfg *config.Config, root store.Store) {
	t.Helper()
	read := func(ds string) string { return layout.DataKey(cfg.Run, ds, shard.Spec{Index: 0, Count: 1}) }
	th, err := dataset.Read[dataset.Threshold](ctx, root, read("thresholds"))
	if err != nil {
		t.Fatal(err)
	}
	tt, ts := th[0].TauTopic, th[0].TauSumm
	if th[0].Scope != dataset.ScopeFinal || !th[0].Feasible {
		t.Fatalf("%s: thresholds %+v", cfg.Run, th[0])
	}
	qs, err := dataset.Read[dataset.Query](ctx, root, read("queries"))
	if err != nil {
		t.Fatal(err)
	}
	cands, err := dataset.Read[dataset.Candidate](ctx, root, read("candidates"))
	if err != nil {
		t.Fatal(err)
	}
	all := map[[2]string]dataset.Pair{}
	ms, _ := layout.Complete(ctx, root, cfg.Run, "pairs")
	for _, m := range ms {
		rows, _ := dataset.Read[dataset.Pair](ctx, root, m.Outputs[0].Key)
		for _, p := range rows {
			all[[2]string{p.Query, p.Doc}] = p
		}
	}
	perDomain := map[string]int{}
	for _, q := range qs {
		perDomain[q.Domain]++
		if q.TopicOnly < 3 || q.SummaryOnly < 3 || q.Both < 3 {
			t.Errorf("%s: query %s not eligible: %+v", cfg.Run, q.ID, q)
		}
	}
	for _, d := range domains {
		if perDomain[d] != 4 {
			t.Errorf("%s: %d queries in %s, want 4", cfg.Run, perDomain[d], d)
		}
	}
	perCat := map[string]int{}
	chosen := map[string]bool{}
	for _, q := range qs {
		chosen[q.ID] = true
	}
	for _, c := range cands {
		if c.Query == c.Doc {
			t.Errorf("%s: query %s is its own candidate", cfg.Run, c.Query)
		}
		if !chosen[c.Query] {
			t.Errorf("%s: candidate of unselected query %s", cfg.Run, c.Query)
		}
		p, ok := all[[2]string{c.Query, c.Doc}]
		if !ok || p.SimTopic != c.SimTopic || p.SimSumm != c.SimSumm {
			t.Errorf("%s: candidate %+v is not a stored pair (%+v)", cfg.Run, c, p)
		}
		if want := pairs.Category(c.SimTopic, c.SimSumm, tt, ts); c.Category != want {
			t.Errorf("%s: candidate %+v has category %q, want %q at (%v, %v)", cfg.Run, c, c.Category, want, tt, ts)
		}
		perCat[c.Query+"/"+c.Category]++
	}
	for q := range chosen {
		for _, c := range Categories {
			if perCat[q+"/"+c] != 3 {
				t.Errorf("%s: query %s has %d %s candidates, want 3", cfg.Run, q, perCat[q+"/"+c], c)
			}
		}
	}
}

func TestCalibrateCountsEveryGridPoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	fabricate(t, root, "c", 400, 2)
	cfg := testConfig(t, dir, "c", 1, "")
	if _, err := runStage(t, cfg, root, calibrate.Stage); err != nil {
		t.Fatal(err)
	}
	csv, err := store.ReadAll(ctx, root, "c/reports/"+calibrate.ReportCSV)
	if err != nil {
		t.Fatal(err)
	}
	// Count eligibility naively from the pairs, point by point.
	byQuery := map[string][]dataset.Pair{}
	ms, _ := layout.Complete(ctx, root, "c", "pairs")
	for _, m := range ms {
		rows, _ := dataset.Read[dataset.Pair](ctx, root, m.Outputs[0].Key)
		for _, p := range rows {
			byQuery[p.Query] = append(byQuery[p.Query], p)
		}
	}
	dom := func(q string) string {
		var i int
		fmt.Sscanf(q, "d%d", &i)
		if i == 3 {
			return ""
		}
		return domains[i%len(domains)]
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	tg, sg := cfg.Calibrate.TopicGrid.Values(), cfg.Calibrate.SummGrid.Values()
	if len(lines) != 1+len(tg)*len(sg) {
		t.Fatalf("csv has %d lines, want %d", len(lines), 1+len(tg)*len(sg))
	}
	nonzero := 0
	for n, line := range lines[1:] {
		tt, ts := tg[n/len(sg)], sg[n%len(sg)]
		want := map[string]int{}
		for q, rows := range byQuery {
			var c [3]int
			for _, p := range rows {
				switch pairs.Category(p.SimTopic, p.SimSumm, tt, ts) {
				case "topic":
					c[0]++
				case "summary":
					c[1]++
				case "both":
					c[2]++
				}
			}
			if c[0] >= 3 && c[1] >= 3 && c[2] >= 3 && dom(q) != "" {
				want[dom(q)]++
			}
		}
		f := strings.Split(line, ",")
		for d, name := range domains {
			if f[2+d] != fmt.Sprint(want[name]) {
				t.Fatalf("(%v, %v) %s: csv says %s, naive count %d", tt, ts, name, f[2+d], want[name])
			}
			if want[name] > 0 {
				nonzero++
			}
		}
	}
	if nonzero == 0 {
		t.Fatal("no grid point has an eligible query: the test checks nothing")
	}
}

func TestShortfall(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	fabricate(t, root, "short", 600, 1)
	cfg := testConfig(t, dir, "short", 1, ", domain_counts: {Geometry: 500}")
	if _, err := runStage(t, cfg, root, calibrate.Stage); err != nil {
		t.Fatal(err)
	}
	_, err := runStage(t, cfg, root, Stage)
	var se *ShortfallError
	if !errors.As(err, &se) || stage.ExitCode(err) != stage.ExitBadInput || len(se.Short) != 1 || se.Short[0].Domain != "Geometry" {
		t.Fatalf("select with 500 Geometry queries wanted: err %v (exit %d), want a Geometry shortfall and exit 2", err, stage.ExitCode(err))
	}
	if !strings.Contains(err.Error(), "Geometry has") || !strings.Contains(err.Error(), "--allow-shortfall") {
		t.Errorf("error does not say the shortfall and the way out: %v", err)
	}
	md, _ := store.ReadAll(ctx, root, "short/reports/"+ReportMarkdown)
	if !strings.Contains(string(md), "select stopped") {
		t.Errorf("report does not say select stopped:\n%s", md)
	}
	if done, _ := layout.Done(ctx, root, layout.DoneKey("short", "candidates", shard.Spec{Index: 0, Count: 1})); done {
		t.Fatal("a failed select left a completion manifest")
	}

	// The binary's flag accepts the shortfall.
	var stderr strings.Builder
	code := stage.Command(ctx, Stage, []string{"--config", filepath.Join(dir, "short.yaml"), "--allow-shortfall"}, &strings.Builder{}, &stderr)
	if code != stage.ExitOK {
		t.Fatalf("select --allow-shortfall: exit %d\n%s", code, stderr.String())
	}
	qs, err := dataset.Read[dataset.Query](ctx, root, layout.DataKey("short", "queries", shard.Spec{Index: 0, Count: 1}))
	if err != nil {
		t.Fatal(err)
	}
	var geo int
	for _, q := range qs {
		if q.Domain == "Geometry" {
			geo++
		}
	}
	th, _ := dataset.Read[dataset.Threshold](ctx, root, layout.DataKey("short", "thresholds", shard.Spec{Index: 0, Count: 1}))
	var elig int64
	for _, r := range th {
		if r.Scope == "Geometry" {
			elig = r.EligibleAtFinal
		}
	}
	if geo == 0 || int64(geo) != elig {
		t.Errorf("--allow-shortfall selected %d Geometry queries, want all %d eligible", geo, elig)
	}
}
