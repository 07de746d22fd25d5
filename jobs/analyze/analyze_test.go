package analyze

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/report"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/shard"
)

// The benchmark: three queries with statements, one of them without any
// maths (dropped), and six candidates each, two per category, rated so
// that "both" candidates rank highest.
var statements = map[string]string{
	"q1": "Let $x$ and $y$ be positive integers with $x + y = 10$. Find the largest value of $xy$.",
	"q2": "How many ways can a committee of three be chosen from a club of seven people?", // "three", "seven": no maths
	"q3": "Find the remainder when 2^10 is divided by 7.",                                 // bare maths, delimited by rule
}

func setup(t *testing.T, extra string) (*config.Config, store.Store) {
	t.Helper()
	dir := t.TempDir()
	yaml := fmt.Sprintf("run: a\nroot: %s/data\nlog: {progress_seconds: 0}\nevaluate:\n  retrievers: [bm25, jaccard]\n%s\n", dir, extra)
	cfg, err := config.Parse([]byte(yaml), Section, report.Section)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root, err := store.Open(ctx, cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := readers.LoadOntology(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Two subdomains of the first two domains, for the topics.
	var subs []string
	var doms []string
	for _, d := range tree.Children(tree.Root())[:2] {
		doms = append(doms, tree.Label(d))
		subs = append(subs, tree.Path(tree.Children(d)[0]))
	}
	var docs []dataset.Document
	var topics []dataset.TopicRow
	var queries []dataset.Query
	var cands []dataset.Candidate
	var ratings []dataset.Rating
	cats := []string{"topic", "summary", "both"}
	for qi, q := range []string{"q1", "q2", "q3"} {
		docs = append(docs, dataset.Document{ID: q, Statement: statements[q], Solution: "The answer is $25$."})
		topics = append(topics, dataset.TopicRow{ID: q, Topics: []string{subs[qi%2]}, Domains: []string{doms[qi%2]}, Domain: doms[qi%2], Backend: "lexical"})
		queries = append(queries, dataset.Query{ID: q, Domain: doms[qi%2]})
		for k := range 6 {
			d := fmt.Sprintf("%s-d%d", q, k)
			cat := cats[k%3]
			docs = append(docs, dataset.Document{ID: d, Statement: fmt.Sprintf("Problem %d about $x^%d$ and committees.", k, k), Solution: fmt.Sprintf("So $%d$.", k)})
			// Two domains for every other document: its weight splits.
			tr := dataset.TopicRow{ID: d, Topics: []string{subs[k%2]}, Domains: []string{doms[k%2]}, Backend: "lexical"}
			if k%2 == 1 {
				tr.Topics = append(tr.Topics, subs[0])
				tr.Domains = []string{doms[0], doms[1]}
			}
			topics = append(topics, tr)
			cands = append(cands, dataset.Candidate{Query: q, Doc: d, Category: cat})
			rating := map[string]float64{"both": 5, "summary": 3, "topic": 1}[cat] - 0.1*float64(k)
			ratings = append(ratings, dataset.Rating{Query: q, Doc: d, Rating: rating})
		}
	}
	slices.SortFunc(docs, func(a, b dataset.Document) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(topics, func(a, b dataset.TopicRow) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(cands, func(a, b dataset.Candidate) int { return dataset.Candidates.Compare(&a, &b) })
	slices.SortFunc(ratings, func(a, b dataset.Rating) int { return dataset.Ratings.Compare(&a, &b) })
	stagetest.PutOne(t, root, cfg.Run, dataset.Corpus, docs)
	stagetest.PutBy(t, root, cfg.Run, dataset.Topics, "tag", map[string]string{"tag.backend": "lexical"}, topics)
	stagetest.PutBy(t, root, cfg.Run, dataset.Summaries, "summarize", map[string]string{"summarize.backend": "extractive"}, []dataset.Summary{})
	stagetest.PutBy(t, root, cfg.Run, dataset.Judgments, "judge", map[string]string{"judge.backend": "lexical"}, []dataset.Judgment{})
	stagetest.PutOne(t, root, cfg.Run, dataset.Queries, queries)
	stagetest.PutOne(t, root, cfg.Run, dataset.Candidates, cands)
	stagetest.PutOne(t, root, cfg.Run, dataset.Ratings, ratings)
	stagetest.PutOne(t, root, cfg.Run, dataset.Results, []dataset.Result{
		{Retriever: "bm25", Setting: "statement-full", Gain: "exponential", Scope: "overall", NDCG: 0.41},
		{Retriever: "jaccard", Setting: "statement-full", Gain: "exponential", Scope: "overall", NDCG: 0.302},
	})
	return cfg, root
}

func runStage(t *testing.T, cfg *config.Config, root store.Store) []dataset.MathTextRow {
	t.Helper()
	ctx := context.Background()
	if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{}); err != nil {
		t.Fatal(err)
	}
	ms, err := layout.Complete(ctx, root, cfg.Run, dataset.MathText.Name)
	if err != nil || len(ms) != 1 {
		t.Fatalf("mathtext: %d manifests, %v", len(ms), err)
	}
	rows, err := dataset.Read[dataset.MathTextRow](ctx, root, ms[0].Objects(dataset.MathText.Name)[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func reportFile(t *testing.T, cfg *config.Config, root store.Store, name string) []byte {
	t.Helper()
	b, err := store.ReadAll(context.Background(), root, layout.ReportKey(cfg.Run, name))
	if err != nil {
		t.Fatalf("report %s: %v", name, err)
	}
	return b
}

func TestAnalyzeStage(t *testing.T) {
	dir := t.TempDir()
	dates := filepath.Join(dir, "dates.csv")
	if err := os.WriteFile(dates, []byte("retriever,mteb_score,release_date\nbm25,,1994-11-01\njaccard,-,2001-05-01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, root := setup(t, "analyze:\n  release_dates: "+dates+"\nreport:\n  families: {bm25: bi-encoder, jaccard: bi-encoder}\n")
	rows := runStage(t, cfg, root)

	// q2 has no maths: dropped, counted; q1 and q3 are kept for each
	// retriever.
	var got []string
	for _, r := range rows {
		got = append(got, r.Retriever+"/"+r.Query)
		if r.Docs != 5 {
			t.Errorf("%s/%s scored against %d documents, want the top 5", r.Retriever, r.Query, r.Docs)
		}
		if r.MathRatio <= 0 || r.MathRatio >= 1 {
			t.Errorf("%s: ratio %v", r.Query, r.MathRatio)
		}
	}
	if want := []string{"bm25/q1", "bm25/q3", "jaccard/q1", "jaccard/q3"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	md := string(reportFile(t, cfg, root, ReportMathText+".md"))
	for _, want := range []string{"2 of 3 queries kept; 1 dropped: 1 no maths (q2)", "| bm25 |", "offline"} {
		if !strings.Contains(md, want) {
			t.Errorf("mathtext.md lacks %q:\n%s", want, md)
		}
	}

	// Signal groups: monotone, ending at 1, "both" fastest.
	curves := readCSV(t, reportFile(t, cfg, root, ReportSignalGroups+".csv"))
	if len(curves) != 7 || strings.Join(curves[0], ",") != "rank,topic,summary,both" {
		t.Fatalf("signal_groups.csv: %v", curves)
	}
	sums := make([]float64, 3)
	for c := 1; c <= 3; c++ {
		prev := 0.0
		for r := 1; r < len(curves); r++ {
			v, _ := strconv.ParseFloat(curves[r][c], 64)
			if v < prev {
				t.Errorf("%s falls at rank %d", curves[0][c], r)
			}
			prev = v
			sums[c-1] += v
		}
		if prev != 1 {
			t.Errorf("%s ends at %v, want 1", curves[0][c], prev)
		}
	}
	if !(sums[2] > sums[1] && sums[1] > sums[0]) {
		t.Errorf("areas topic %v summary %v both %v: want both > summary > topic", sums[0], sums[1], sums[2])
	}
	if sg := string(reportFile(t, cfg, root, ReportSignalGroups+".md")); !strings.Contains(sg, "Fastest rising (largest mean over r): both.") {
		t.Errorf("signal_groups.md:\n%s", sg)
	}

	// Distributions: the corpus weights sum to the documents.
	dist := readCSV(t, reportFile(t, cfg, root, ReportDistribution+".csv"))
	total := 0.0
	for _, r := range dist[1:] {
		if r[0] == "domain" {
			v, _ := strconv.ParseFloat(r[4], 64)
			total += v
		}
	}
	if total != 21 {
		t.Errorf("corpus domain weights sum to %v, want 21 documents", total)
	}
	if ex := string(reportFile(t, cfg, root, ReportExample+".md")); !strings.Contains(ex, "Query q1") || !strings.Contains(ex, "✓") {
		t.Errorf("example_query.md:\n%s", ex)
	}

	// Score over time: both dated, bm25 (earlier, better) alone on the
	// bi-encoder frontier.
	ot := readCSV(t, reportFile(t, cfg, root, ReportOverTime+".csv"))
	if len(ot) != 3 || ot[1][0] != "bm25" || ot[1][4] != "true" || ot[2][4] != "false" {
		t.Errorf("score_over_time.csv: %v", ot)
	}
	t10 := string(reportFile(t, cfg, root, ReportTable10+".md"))
	if !strings.Contains(t10, "set evaluate.instructions") {
		t.Errorf("table10.md does not say how to fill it:\n%s", t10)
	}

	// Every figure opens and is readable.
	for _, f := range []string{ReportMathText, ReportSignalGroups, ReportDistribution, ReportOverTime} {
		l, err := chart.Inspect(reportFile(t, cfg, root, f+".svg"))
		if err != nil {
			t.Fatalf("%s.svg: %v", f, err)
		}
		if err := l.Readable(2); err != nil {
			t.Errorf("%s.svg:\n%v", f, err)
		}
		if png := reportFile(t, cfg, root, f+".png"); !strings.HasPrefix(string(png), "\x89PNG") {
			t.Errorf("%s.png is not a PNG", f)
		}
	}
	idx := string(reportFile(t, cfg, root, ReportIndex))
	for _, f := range []string{ReportMathText + ".md", ReportSignalGroups + ".md", ReportDistribution + ".md", ReportOverTime + ".md", ReportTable10 + ".md"} {
		if !strings.Contains(idx, "("+f+")") {
			t.Errorf("analyze.md does not link %s:\n%s", f, idx)
		}
	}

	// Same inputs, same bytes.
	first := reportFile(t, cfg, root, ReportMathText+".csv")
	rows2 := runStage(t, cfg, root)
	if !slices.Equal(rows, rows2) {
		t.Error("a rerun gives other mathtext rows")
	}
	if again := reportFile(t, cfg, root, ReportMathText+".csv"); string(again) != string(first) {
		t.Error("a rerun gives another mathtext.csv")
	}
}

func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		out = append(out, strings.Split(l, ","))
	}
	return out
}

// sideScorer scores a query by how much of it is maths (mathsOnly: the
// count of $ signs, so only the maths part scores) or words.
type sideScorer struct{ mathsOnly bool }

func (s sideScorer) Name() string { return "side" }
func (s sideScorer) Close() error { return nil }
func (s sideScorer) Score(_ context.Context, q string, docs []string) ([]float64, error) {
	v := float64(strings.Count(q, "$"))
	if !s.mathsOnly {
		v = float64(len(strings.Fields(strings.NewReplacer("$", "").Replace(q))))
		if strings.Contains(q, "$") {
			v = 0
		}
	}
	out := make([]float64, len(docs))
	for i := range out {
		out[i] = v
	}
	return out, nil
}

// A retriever that sees only maths gets the maths side winning on every
// query, one that sees only words the words side: the sides are never
// swapped. A query without maths is dropped, one with bare maths is
// kept once normalised.
func TestSplitAndSides(t *testing.T) {
	ctx := context.Background()
	var kept []split
	for _, c := range []struct {
		q, drop string
	}{
		{"Let $x$ and $y$ satisfy $x+y=3$.", ""},
		{"Find the remainder when 2^10 is divided by 7.", ""},
		{"How many ways can a committee of three be chosen?", DropNoMaths},
		{"$x^2 = 4$", DropNoWords},
	} {
		m, w, ratio, drop, err := Split(ctx, rulesNormaliser{}, c.q)
		if err != nil || drop != c.drop {
			t.Errorf("Split(%q): drop %q, err %v; want drop %q", c.q, drop, err, c.drop)
			continue
		}
		if drop == "" {
			kept = append(kept, split{query: c.q, maths: m, words: w, ratio: ratio})
		}
	}
	docs := [][]string{{"a", "b"}, {"c"}}
	for _, c := range []struct {
		ret      sideScorer
		mathWins bool
	}{{sideScorer{mathsOnly: true}, true}, {sideScorer{mathsOnly: false}, false}} {
		got, err := scoreSides(ctx, c.ret, kept, docs, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range got {
			if q.MathWins() != c.mathWins {
				t.Errorf("mathsOnly %v: query %q: maths %v, words %v", c.ret.mathsOnly, q.Query, q.MathMean, q.TextMean)
			}
		}
	}
}

func TestReadReleaseDates(t *testing.T) {
	got, err := ReadReleaseDates(strings.NewReader("Retriever,release_date,mteb_score\nbm25,1994-11-01,\nnew,,61.2\n"), "d.csv")
	if err != nil || len(got) != 1 || got["bm25"] != "1994-11-01" {
		t.Errorf("dates %v, %v", got, err)
	}
	for in, want := range map[string]string{
		"retriever,mteb_score\nx,1\n":                          `no column "release_date"`,
		"retriever,release_date\nx,2024/01/01\n":               "line 2: release_date \"2024/01/01\" is not YYYY-MM-DD",
		"retriever,release_date\nx,2024-01-01\nx,2024-01-02\n": "line 3: retriever x again",
	} {
		if _, err := ReadReleaseDates(strings.NewReader(in), "d.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
