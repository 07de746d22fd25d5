package selection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/relevance"
	"github.com/saber-math/saber/shard"
)

var testDomains = []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis"}

// Thresholds the fixtures are selected at: on calibrate's grid (0.858 +
// k·0.02, 0.211 + k·0.03), and 0.9 is a value pairs hit exactly.
const (
	tauTopic = 0.9
	tauSumm  = 0.241
)

// fabricate writes `topics` (one part) and `pairs` (pairShards parts, by
// contiguous query ranges, as the pairs stage does), each part with its
// completion manifest, for nDocs documents whose pairs have random
// category sizes around k.
func fabricate(t *testing.T, root store.Store, run string, nDocs, pairShards int) {
	t.Helper()
	fabricateBy(t, root, run, nDocs, pairShards, map[string]string{"tag.backend": "lexical"}, map[string]string{"summarize.backend": "extractive"})
}

// fabricateBy is fabricate with the manifests of topics and summaries
// recording tagCfg and summCfg, as tag and summarize would.
func fabricateBy(t *testing.T, root store.Store, run string, nDocs, pairShards int, tagCfg, summCfg map[string]string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	ids := make([]string, nDocs)
	var topics []dataset.TopicRow
	for i := range ids {
		ids[i] = fmt.Sprintf("d%05d", i)
		topics = append(topics, dataset.TopicRow{ID: ids[i], Domain: testDomains[i%len(testDomains)]})
	}
	topics[3].Domain = "" // a document without topics: never a query
	stagetest.PutBy(t, root, run, dataset.Topics, "tag", tagCfg, topics)
	stagetest.PutBy(t, root, run, dataset.Summaries, "summarize", summCfg, []dataset.Summary{{ID: ids[0], CoreIdea: "x"}})
	perQuery := make([][]dataset.Pair, nDocs)
	for q := range ids {
		// Category sizes 0..14 around k = 3, so some queries are eligible
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
			p.Category = relevance.Category(p.SimTopic, p.SimSumm, 0.858, 0.211)
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
		stagetest.Put(t, root, run, dataset.Pairs, spec, rows)
	}
	// As pairs.keep_all leaves it: every pair listed, no counts.
	stagetest.PutOne(t, root, run, dataset.PairCounts, nil)
}

// putThresholds writes `thresholds` as calibrate would at (tauTopic,
// tauSumm): the final row (per-domain rows select does not read).
func putThresholds(t *testing.T, root store.Store, run string) layout.Object {
	t.Helper()
	return stagetest.PutOne(t, root, run, dataset.Thresholds, []dataset.Threshold{
		{Scope: dataset.ScopeFinal, TauTopic: tauTopic, TauSumm: tauSumm, Feasible: true, K: 3, MinEligible: 3, Eligible: -1},
	})
}

func testConfig(t *testing.T, dir, run string, seed uint64, extra string) *config.Config {
	t.Helper()
	y := fmt.Sprintf("run: %s\nroot: %s\nseed: %d\nlog: {progress_seconds: 0}\nbenchmark: {k: 3}\n"+
		"select: {per_domain: 4%s}\n", run, dir, seed, extra)
	path := filepath.Join(dir, run+".yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, Section)
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

// readPairs reads every pair of run, by query.
func readPairs(t *testing.T, ctx context.Context, root store.Store, run string) map[string][]dataset.Pair {
	t.Helper()
	ms, err := layout.Complete(ctx, root, run, dataset.Pairs.Name)
	if err != nil {
		t.Fatal(err)
	}
	byQuery := map[string][]dataset.Pair{}
	for _, m := range ms {
		for _, o := range m.Objects(dataset.Pairs.Name) {
			rows, err := dataset.Read[dataset.Pair](ctx, root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range rows {
				byQuery[p.Query] = append(byQuery[p.Query], p)
			}
		}
	}
	return byQuery
}

// counts returns a query's pairs per category (topic, summary, both) at
// the thresholds, counted naively.
func counts(rows []dataset.Pair, tt, ts float64) [3]int {
	var c [3]int
	for _, p := range rows {
		switch relevance.Category(p.SimTopic, p.SimSumm, tt, ts) {
		case relevance.CategoryTopic:
			c[0]++
		case relevance.CategorySummary:
			c[1]++
		case relevance.CategoryBoth:
			c[2]++
		}
	}
	return c
}

// eligible counts, per domain, the queries with at least 3 pairs in each
// category at the fixtures' thresholds (document d00003 has no domain).
func eligible(byQuery map[string][]dataset.Pair) map[string]int {
	out := map[string]int{}
	for q, rows := range byQuery {
		var i int
		fmt.Sscanf(q, "d%d", &i)
		if c := counts(rows, tauTopic, tauSumm); i != 3 && c[0] >= 3 && c[1] >= 3 && c[2] >= 3 {
			out[testDomains[i%len(testDomains)]]++
		}
	}
	return out
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
		putThresholds(t, root, tc.run)
		cfg := testConfig(t, dir, tc.run, tc.seed, "")
		sel, err := runStage(t, cfg, root, Stage)
		if err != nil {
			t.Fatalf("%s select: %v", tc.run, err)
		}
		hashes[tc.run] = sel
		checkSelection(t, ctx, cfg, root)
	}
	for _, k := range []string{"queries/part-00000-of-00001.parquet", "candidates/part-00000-of-00001.parquet",
		"reports/" + ReportMarkdown, "reports/" + ReportJSON} {
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
	if th[0].Scope != dataset.ScopeFinal {
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
	byQuery := readPairs(t, ctx, root, cfg.Run)
	for _, rows := range byQuery {
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
		if c := counts(byQuery[q.ID], tt, ts); c != [3]int{int(q.TopicOnly), int(q.SummaryOnly), int(q.Both)} || q.TauTopic != tt || q.TauSumm != ts {
			t.Errorf("%s: query %+v: naive counts %v at (%v, %v)", cfg.Run, q, c, tt, ts)
		}
	}
	for _, d := range testDomains {
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
		if want := relevance.Category(c.SimTopic, c.SimSumm, tt, ts); c.Category != want {
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

func TestShortfall(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	fabricate(t, root, "short", 600, 1)
	putThresholds(t, root, "short")
	cfg := testConfig(t, dir, "short", 1, ", domain_counts: {Geometry: 500}")
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
	code := stage.Command(ctx, stage.Binary{Stage: Stage}, []string{"--config", filepath.Join(dir, "short.yaml"), "--allow-shortfall"}, &strings.Builder{}, &stderr)
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
	elig := eligible(readPairs(t, ctx, root, "short"))["Geometry"]
	if geo == 0 || geo != elig {
		t.Errorf("--allow-shortfall selected %d Geometry queries, want all %d eligible", geo, elig)
	}
}

// inputsOf returns the input parts a manifest records, by dataset.
func inputsOf(m *layout.Manifest) map[string][]layout.Object {
	out := map[string][]layout.Object{}
	for _, o := range m.Inputs {
		out[o.Dataset] = append(out[o.Dataset], o)
	}
	return out
}

// TestSelectThresholdSources: with select.thresholds: fixed, select reads
// no `thresholds` (none exists here) and its manifest records none, only
// pairs (and the empty pair_counts pairs.keep_all leaves) and topics (and summaries, unread: their writers' manifests give
// the provenance); with the calibrated default it reads calibrate's and
// records that part, hashed as read. At the same thresholds both give the
// same benchmark, byte for byte. Calibrated without `thresholds` is bad
// input that says how to get them.
func TestSelectThresholdSources(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	one := shard.Spec{Index: 0, Count: 1}

	fabricate(t, root, "fixed", 600, 2)
	fixed := testConfig(t, dir, "fixed", 5, fmt.Sprintf(", thresholds: fixed, tau_topic: %v, tau_summ: %v", tauTopic, tauSumm))
	fh, err := runStage(t, fixed, root, Stage)
	if err != nil {
		t.Fatalf("fixed thresholds: %v", err)
	}
	checkFixed := func() {
		m, err := layout.ReadDone(ctx, root, layout.DoneKey("fixed", dataset.Queries.Name, one))
		if err != nil {
			t.Fatal(err)
		}
		in := inputsOf(m)
		if len(in[dataset.Thresholds.Name]) != 0 || len(in[dataset.Pairs.Name]) != 2 || len(in[dataset.Topics.Name]) != 1 ||
			len(in[dataset.Summaries.Name]) != 1 || !in[dataset.Summaries.Name][0].Unread || len(in[dataset.PairCounts.Name]) != 1 || len(in) != 4 {
			t.Errorf("fixed thresholds: manifest inputs %v, want the 2 pairs parts, the empty pair_counts, topics and summaries (unread), no thresholds", m.Inputs)
		}
		if m.Config["select.thresholds"] != `"fixed"` || m.Config["select.tau_topic"] != fmt.Sprint(tauTopic) || m.Config["select.tau_summ"] != fmt.Sprint(tauSumm) {
			t.Errorf("fixed thresholds: manifest config %v", m.Config)
		}
	}
	checkFixed()
	// A thresholds dataset appearing later is no input of the fixed select:
	// the done shard stays current.
	putThresholds(t, root, "fixed")
	res, err := stage.RunShard(ctx, fixed, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if err != nil || !res.Skipped {
		t.Fatalf("fixed select after thresholds appeared: skipped %v, err %v", res.Skipped, err)
	}
	checkFixed()

	fabricate(t, root, "cal", 600, 2)
	cal := testConfig(t, dir, "cal", 5, "")
	if Section.Of(cal).Thresholds != ThresholdsCalibrated {
		t.Fatalf("default select.thresholds %q", Section.Of(cal).Thresholds)
	}
	_, err = runStage(t, cal, root, Stage)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "run calibrate first, or set select.thresholds: fixed") {
		t.Fatalf("calibrated select without thresholds: err %v (exit %d), want exit 2 saying how to get them", err, stage.ExitCode(err))
	}
	th := putThresholds(t, root, "cal")
	ch, err := runStage(t, cal, root, Stage)
	if err != nil {
		t.Fatalf("calibrated thresholds: %v", err)
	}
	m, err := layout.ReadDone(ctx, root, layout.DoneKey("cal", dataset.Queries.Name, one))
	if err != nil {
		t.Fatal(err)
	}
	in := inputsOf(m)
	if got := in[dataset.Thresholds.Name]; len(got) != 1 || got[0].Key != th.Key || got[0].SHA256 != th.SHA256 || got[0].Unread {
		t.Errorf("calibrated thresholds: manifest records thresholds %+v, want the part read, %+v", got, th)
	}
	if len(in[dataset.Pairs.Name]) != 2 || len(in[dataset.Topics.Name]) != 1 || len(in[dataset.Summaries.Name]) != 1 || len(in[dataset.PairCounts.Name]) != 1 || len(in) != 5 {
		t.Errorf("calibrated thresholds: manifest inputs %v", m.Inputs)
	}
	for _, k := range []string{"queries/part-00000-of-00001.parquet", "candidates/part-00000-of-00001.parquet"} {
		if fh[k] == "" || fh[k] != ch[k] {
			t.Errorf("%s: fixed %q, calibrated at the same thresholds %q", k, fh[k], ch[k])
		}
	}
}

// TestSelectProvenance: select.md opens with the backend and model of the
// topics and summaries, from their writers' manifests, and select.json
// carries the same fields; with an offline backend both say plainly that
// the numbers are not model judgments.
func TestSelectProvenance(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	const offline = "These numbers come from offline backends"
	for _, tc := range []struct {
		run       string
		tag, summ map[string]string
		want      []string
		offline   bool
	}{
		{"off", map[string]string{"tag.backend": "lexical"}, map[string]string{"summarize.backend": "extractive"},
			[]string{"topics: tag lexical backend (offline)", "summaries: summarize extractive backend (offline)",
				"**" + offline + " — topics (lexical), summaries (extractive) — and are not model judgments"}, true},
		{"llm", map[string]string{"tag.backend": "llm", "llm.model": "m-large"}, map[string]string{"summarize.backend": "llm", "summarize.llm.model": "m-small", "llm.model": "m-large"},
			[]string{"topics: tag llm backend, model m-large", "summaries: summarize llm backend, model m-small"}, false},
	} {
		fabricateBy(t, root, tc.run, 400, 1, tc.tag, tc.summ)
		putThresholds(t, root, tc.run)
		if _, err := runStage(t, testConfig(t, dir, tc.run, 1, ""), root, Stage); err != nil {
			t.Fatalf("%s: %v", tc.run, err)
		}
		md, err := os.ReadFile(filepath.Join(dir, tc.run, "reports", ReportMarkdown))
		if err != nil {
			t.Fatal(err)
		}
		head := strings.SplitN(string(md), "\n\n", 3)[1]
		if !strings.HasPrefix(head, "**Provenance.** Labels from: ") {
			t.Errorf("%s: select.md does not open with the provenance:\n%s", tc.run, md)
		}
		for _, w := range tc.want {
			if !strings.Contains(head, w) {
				t.Errorf("%s: select.md provenance lacks %q:\n%s", tc.run, w, head)
			}
		}
		if got := strings.Contains(head, offline); got != tc.offline {
			t.Errorf("%s: offline wording present %v, want %v:\n%s", tc.run, got, tc.offline, head)
		}
		js, err := os.ReadFile(filepath.Join(dir, tc.run, "reports", ReportJSON))
		if err != nil {
			t.Fatal(err)
		}
		var rep Report
		if err := json.Unmarshal(js, &rep); err != nil {
			t.Fatal(err)
		}
		p := rep.Provenance
		if len(p.Labellers) != 2 || p.Labellers[0].Labels != "topics" || p.Labellers[0].Backend != tc.tag["tag.backend"] ||
			p.Labellers[1].Labels != "summaries" || p.Labellers[1].Backend != tc.summ["summarize.backend"] ||
			p.Offline != tc.offline || p.Labellers[0].Offline != tc.offline || (p.Warning != "") != tc.offline || !strings.Contains(head, p.Note) {
			t.Errorf("%s: select.json provenance %+v", tc.run, p)
		}
		if !tc.offline && (p.Labellers[0].Model != "m-large" || p.Labellers[1].Model != "m-small") {
			t.Errorf("%s: models %q, %q; want m-large, m-small", tc.run, p.Labellers[0].Model, p.Labellers[1].Model)
		}
	}
}

// TestSelectDomainsCaseInsensitive: benchmark.domains and
// select.domain_counts name the ontology's domains in any case; the
// report lists them in the configured order, spelled as the ontology does.
func TestSelectDomainsCaseInsensitive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, _ := store.Open(ctx, dir, store.Options{})
	fabricate(t, root, "ci", 400, 1)
	putThresholds(t, root, "ci")
	y := fmt.Sprintf("run: ci\nroot: %s\nseed: 1\nlog: {progress_seconds: 0}\n"+
		"benchmark: {k: 3, domains: [number theory, ALGEBRA, Geometry]}\nselect: {per_domain: 4, domain_counts: {NUMBER THEORY: 2}}\n", dir)
	path := filepath.Join(dir, "ci.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, Section)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runStage(t, cfg, root, Stage); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "ci", "reports", ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Domains {
		got = append(got, fmt.Sprintf("%s:%d/%d", d.Domain, d.Selected, d.Wanted))
	}
	if want := []string{"Number Theory:2/2", "Algebra:4/4", "Geometry:4/4"}; !slices.Equal(got, want) {
		t.Errorf("domains %q, want %q", got, want)
	}
}

// TestDomainNamesValidated: names that differ only in case are one domain,
// so listing both is a config error naming the key.
func TestDomainNamesValidated(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"benchmark: {domains: [Algebra, ALGEBRA]}\n", `benchmark.domains[1]: "ALGEBRA" listed twice (domains match case-insensitively)`},
		{"select: {domain_counts: {Algebra: 1, algebra: 2}}\n", `select.domain_counts: "Algebra" and "algebra" name the same domain`},
		{"benchmark: {domains: [Number Theory]}\nselect: {domain_counts: {number theory: 2, Geometry: 1}}\n", `select.domain_counts.Geometry: not one of benchmark.domains`},
	} {
		_, err := config.Parse([]byte("run: r\nroot: /tmp/x\n"+tc.yaml), Section)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := config.Parse([]byte("run: r\nroot: /tmp/x\nbenchmark: {domains: [Number Theory]}\nselect: {domain_counts: {number theory: 2}}\n"), Section); err != nil {
		t.Errorf("domain_counts naming a configured domain in another case: %v", err)
	}
}
