package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/artifacts/trec"
)

// sample is a small release: 2 queries with 3 candidates each, one
// candidate shared, one source that forbids training.
func sample() *Contents {
	c := &Contents{Settings: Settings}
	c.Meta = Meta{Name: "SABER-Math", Version: "1.0.0", Date: "2026-12-01", License: "CC-BY-SA-4.0", Citation: "@misc{x}",
		Homepage: "https://example.org/saber-math", Creators: []Creator{{Name: "A. Author", Affiliation: "Somewhere"}},
		CodeVersion: "abc", ConfigHash: "def", Seed: 7,
		Upstream: []Provenance{{Stage: "rate", Step: "map", ConfigHash: "h", CodeVersion: "abc", Datasets: []string{"ratings"}, Config: map[string]string{"rate.lambda": "0.01"}}},
		Datasets: []DatasetDigest{{Dataset: "ratings", Rows: 6, SHA256: strings.Repeat("ab", 32)}},
		Sources:  []SourceFile{{Name: "input/math.jsonl", Size: 10, SHA256: strings.Repeat("cd", 32)}},
		Config:   []byte("run: test\nroot: data\n")}
	c.Queries = []Query{
		{ID: "q1", Statement: "Find $x$ if $x+1=2$.", Solution: "$x=\\boxed{1}$.", Domain: "Algebra", Topics: []string{"alg > lin"}, Source: "official", License: "MIT", Origin: "math"},
		{ID: "q2", Statement: "Area of a unit square?", Solution: "$\\boxed{1}$", Domain: "Geometry", Topics: []string{"geo"}, Source: "official", License: "MIT", Origin: "math"},
	}
	c.Corpus = []Doc{
		{ID: "d1", Statement: "Solve $2x=4$.", Solution: "$x=2$", Source: "official", License: "MIT", Origin: "math"},
		{ID: "d2", Statement: "Solve $x-1=0$.", Solution: "$x=1$", Source: "aops", License: "AoPS terms", Origin: "aops", NoTraining: true},
		{ID: "d3", Statement: "Perimeter of a unit square?", Solution: "4", Source: "official", License: "MIT", Origin: "math"},
		{ID: "d4", Statement: "A circle's area.", Solution: "$\\pi r^2$", Source: "official", License: "MIT", Origin: "math"},
	}
	for _, k := range [][2]string{{"q1", "d1"}, {"q1", "d2"}, {"q1", "d3"}, {"q2", "d2"}, {"q2", "d3"}, {"q2", "d4"}} {
		c.Candidates = append(c.Candidates, Candidate{Query: k[0], Doc: k[1], Category: "both", SimTopic: 0.9, SimSumm: 0.3})
	}
	for i, k := range c.Candidates {
		r := float64(i%3) * 2.25 // 0, 2.25, 4.5 → levels 0, 2, 5
		lv, _ := trec.Level(r)
		c.Qrels = append(c.Qrels, Qrel{Query: k.Query, Doc: k.Doc, Rating: r, Level: int32(lv), Games: 2, Wins: int32(i % 3)})
	}
	c.Judgments = []Judgment{{Query: "q1", Round: 1, Match: 0, Sample1: "d1", Sample2: "d2", Winner: "d2", Valid: true, Backend: "lexical"}}
	c.Topics = []Topic{{ID: "d1", Topics: []string{"alg > lin"}, Scores: []float64{1}, Domains: []string{"Algebra"}, Domain: "Algebra", Backend: "lexical"}}
	c.Summaries = []Summary{{ID: "d1", CoreIdea: "isolate x", Keywords: []string{"linear"}, Backend: "extractive"}}
	c.Nodes = []OntologyNode{{ID: "alg", Label: "Algebra"}, {ID: "lin", Label: "Linear equations", Keywords: []string{"linear"}}}
	c.Edges = []OntologyEdge{{Parent: "alg", Child: "lin"}}
	c.Tree = []OntologyTreeNode{{Path: "alg", ID: "alg", Label: "Algebra", Depth: 1}, {Path: "alg > lin", ID: "lin", Label: "Linear equations", Parent: "alg", Depth: 2}}
	c.Thresholds = []Threshold{{Scope: dataset.ScopeFinal, TauTopic: 0.9, TauSumm: 0.3, K: 1, Feasible: true}}
	// The run ranks q1's d1 (rating 0), d2 (2.25), d3 (4.5) and q2's d4
	// (4.5), d3 (2.25), d2 (0): nDCG@10 of q2 is 1, of q1 the DCG of
	// 0, 2.25, 4.5 over that of 4.5, 2.25, 0 (exponential gain 2^r − 1).
	g := func(r float64) float64 { return math.Pow(2, r) - 1 }
	q1 := (g(0) + g(2.25)/math.Log2(3) + g(4.5)/2) / (g(4.5) + g(2.25)/math.Log2(3) + g(0)/2)
	c.Results = []Result{{Retriever: "bm25", Setting: "statement-full", Gain: "exponential", Scope: "overall", Queries: 2, NDCG: (q1 + 1) / 2, Lo: 0.5, Hi: 1}}
	c.Leaks = []Leak{{Query: "q1", Doc: "d2", Rank: 1, Rating: 4.5, Score: 0.9, Reason: "same answer", Backend: "lexical", Accepted: true}}
	tag := "bm25/statement-full"
	c.Runs = map[System][]trec.RunLine{{"bm25", "statement-full"}: {
		{Query: "q1", Doc: "d1", Rank: 1, Score: 3, Tag: tag}, {Query: "q1", Doc: "d2", Rank: 2, Score: 2, Tag: tag}, {Query: "q1", Doc: "d3", Rank: 3, Score: 2, Tag: tag},
		{Query: "q2", Doc: "d4", Rank: 1, Score: 0.5, Tag: tag}, {Query: "q2", Doc: "d3", Rank: 2, Score: 0.5, Tag: tag}, {Query: "q2", Doc: "d2", Rank: 3, Score: 0.1, Tag: tag},
	}}
	c.Labellers = []Labeller{{What: "topics", Backend: "lexical", Rows: 1}, {What: "judgments", Backend: "lexical", Rows: 1}}
	c.Audit = Audit{Backend: "lexical", Top: 3, Audited: 6, Flagged: 1, Accepted: 1}
	return c
}

// write puts files in a fresh store, as the release stage does.
func write(t *testing.T, files []File) store.Store {
	t.Helper()
	st := store.NewMem()
	for _, f := range files {
		if _, err := store.Put(context.Background(), st, f.Path, f.Data, store.Replace); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func build(t *testing.T, c *Contents) []File {
	t.Helper()
	files, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func verify(t *testing.T, st store.Store) *Report {
	t.Helper()
	rep, err := Verify(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestBuildVerifiesAndIsDeterministic(t *testing.T) {
	files := build(t, sample())
	again := build(t, sample())
	if len(files) != len(again) {
		t.Fatalf("%d files, then %d", len(files), len(again))
	}
	for i := range files {
		if files[i].Path != again[i].Path || !bytes.Equal(files[i].Data, again[i].Data) {
			t.Errorf("%s differs between two builds", files[i].Path)
		}
	}
	if files[len(files)-1].Path != SumsFile {
		t.Errorf("the last file is %s, want %s", files[len(files)-1].Path, SumsFile)
	}
	want := []string{"data/queries.parquet", "data/corpus.parquet", "data/leaks.parquet", "beir/statement-full/corpus.jsonl",
		"beir/full-full/qrels/test.tsv", "mteb/statement-statement/top_ranked.parquet", "trec/qrels.txt", "trec/ratings.tsv",
		"trec/runs/bm25.statement-full.run", CardFile, CroissantFile, LicensesFile, ManifestFile}
	have := map[string]File{}
	for _, f := range files {
		have[f.Path] = f
	}
	for _, p := range want {
		if _, ok := have[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
	rep := verify(t, write(t, files))
	if !rep.OK() || rep.Files != len(files)-1 {
		t.Fatalf("verify: %d files, %v", rep.Files, rep.Problems)
	}
	// sha256sum -c's format: "<hex>  <path>".
	for _, line := range strings.Split(strings.TrimSpace(string(have[SumsFile].Data)), "\n") {
		sum, p, ok := strings.Cut(line, "  ")
		h := sha256.Sum256(have[p].Data)
		if !ok || sum != hex.EncodeToString(h[:]) {
			t.Errorf("SHA256SUMS line %q", line)
		}
	}
}

func TestCardAndCroissant(t *testing.T) {
	files := build(t, sample())
	have := map[string][]byte{}
	for _, f := range files {
		have[f.Path] = f.Data
	}
	head, ok := frontMatter(have[CardFile])
	if !ok {
		t.Fatal("no front matter")
	}
	var h map[string]any
	if err := yaml.Unmarshal(head, &h); err != nil {
		t.Fatal(err)
	}
	if h["license"] != "other" || h["license_link"] != LicensesFile || fmt.Sprint(h["size_categories"]) != "[n<1K]" {
		t.Errorf("card header %v", h)
	}
	card := string(have[CardFile])
	for _, want := range []string{"2 queries (Algebra 1, Geometry 1)", "3 candidate documents", "exponential gain", "**1 of the 6 texts come from sources whose terms forbid training",
		"6 pairs audited, 1 flagged, 1 accepted", fmt.Sprintf("| bm25 | %.3f | [0.500, 1.000] |", sample().Results[0].NDCG), "## Citation", "`data/qrels.parquet` (config `saber_qrels`), 6 rows"} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %q", want)
		}
	}
	var cr Croissant
	if err := json.Unmarshal(have[CroissantFile], &cr); err != nil {
		t.Fatal(err)
	}
	if cr.ConformsTo != CroissantConformsTo || len(cr.RecordSet) != len(Tables) {
		t.Errorf("croissant: conformsTo %q, %d record sets", cr.ConformsTo, len(cr.RecordSet))
	}
	for _, d := range cr.Distribution {
		h := sha256.Sum256(have[d.ContentURL])
		if d.SHA256 != hex.EncodeToString(h[:]) {
			t.Errorf("croissant %s: sha256 %s", d.ContentURL, d.SHA256)
		}
	}
	var topics CroissantField
	for _, rs := range cr.RecordSet {
		for _, f := range rs.Field {
			if f.ID == "queries/topics" {
				topics = f
			}
		}
	}
	if topics.DataType != "sc:Text" || !topics.Repeated || topics.Source.Extract.Column != "topics" {
		t.Errorf("queries/topics field %+v", topics)
	}
}

// TestVerifyNamesTheFile: one flipped byte in any file, a deleted corpus
// row or a file added or removed makes Verify fail naming the file.
func TestVerifyNamesTheFile(t *testing.T) {
	files := build(t, sample())
	for i, f := range files {
		st := write(t, files)
		b := append([]byte(nil), f.Data...)
		b[len(b)/2] ^= 0x20
		if _, err := store.Put(context.Background(), st, f.Path, b, store.Replace); err != nil {
			t.Fatal(err)
		}
		rep := verify(t, st)
		named := false
		for _, p := range rep.Problems {
			named = named || p.File == f.Path
		}
		if rep.OK() || !named {
			t.Errorf("file %d %s flipped: %v", i, f.Path, rep.Problems)
		}
	}
	// A corpus row deleted, the checksums rewritten to match: the
	// cross-references still fail, naming the corpus.
	c := sample()
	c.Corpus = c.Corpus[1:]
	c.Topics, c.Summaries = nil, nil
	c.Meta.Version = "x"
	bad, err := buildUnchecked(c)
	if err != nil {
		t.Fatal(err)
	}
	rep := verify(t, write(t, bad))
	found := false
	for _, p := range rep.Problems {
		found = found || p.File == "data/corpus.parquet" && strings.Contains(p.Msg, "d1")
	}
	if !found {
		t.Errorf("deleted corpus row: %v", rep.Problems)
	}
	// An extra file, and a missing one.
	st := write(t, files)
	store.Put(context.Background(), st, "extra.txt", []byte("x"), store.Replace)
	st.Delete(context.Background(), "data/judgments.parquet")
	rep = verify(t, st)
	got := fmt.Sprint(rep.Problems)
	if !strings.Contains(got, "extra.txt: not in SHA256SUMS") || !strings.Contains(got, "data/judgments.parquet: listed in SHA256SUMS but missing") {
		t.Errorf("extra and missing: %s", got)
	}
}

// buildUnchecked builds a release as Build does but without its refusals,
// to make folders a broken build could leave.
func buildUnchecked(c *Contents) ([]File, error) {
	keep := c.Leaks
	c.Leaks = nil
	files, err := Build(c)
	c.Leaks = keep
	return files, err
}

func TestBuildRefuses(t *testing.T) {
	c := sample()
	c.Corpus[3].License = ""
	var le *LicenceError
	if _, err := Build(c); !errors.As(err, &le) || !strings.Contains(err.Error(), `origin "math"`) || !strings.Contains(err.Error(), "license:") {
		t.Errorf("no licence: %v", err)
	}
	c = sample()
	c.Leaks[0].Accepted = false
	if _, err := Build(c); err == nil || !strings.Contains(err.Error(), "q1/d2 is not accepted") {
		t.Errorf("unaccepted leak: %v", err)
	}
	c = sample()
	c.Qrels[0].Rating = 5.5
	if _, err := Build(c); err == nil {
		t.Error("a rating over 5 accepted")
	}
}

func TestPublishWriteOnce(t *testing.T) {
	ctx := context.Background()
	files := build(t, sample())
	src, dst := write(t, files), store.NewMem()
	var out bytes.Buffer
	sum, err := Publish(ctx, src, dst, &out)
	if err != nil || sum.Uploaded != len(files) || sum.Skipped != 0 {
		t.Fatalf("first publish: %+v, %v", sum, err)
	}
	if rep := verify(t, dst); !rep.OK() {
		t.Fatalf("published copy: %v", rep.Problems)
	}
	// Again: nothing uploaded.
	sum, err = Publish(ctx, src, dst, &out)
	if err != nil || sum.Uploaded != 0 || sum.Skipped != len(files) {
		t.Errorf("second publish: %+v, %v", sum, err)
	}
	// Interrupted: half the files there, no SHA256SUMS; it resumes.
	half := store.NewMem()
	for _, f := range files[:len(files)/2] {
		store.Put(ctx, half, f.Path, f.Data, store.Once)
	}
	sum, err = Publish(ctx, src, half, &out)
	if err != nil || sum.Skipped != len(files)/2 || sum.Uploaded != len(files)-len(files)/2 {
		t.Errorf("resumed publish: %+v, %v", sum, err)
	}
	// Other content under the version: refused before anything is uploaded.
	other := sample()
	other.Queries[0].Statement = "Find $y$."
	otherFiles := build(t, other)
	fresh := store.NewMem()
	store.Put(ctx, fresh, "data/queries.parquet", otherFiles[indexOf(otherFiles, "data/queries.parquet")].Data, store.Once)
	_, err = Publish(ctx, src, fresh, &out)
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0] != "data/queries.parquet" {
		t.Fatalf("conflict: %v", err)
	}
	if infos, _ := fresh.List(ctx, ""); len(infos) != 1 {
		t.Errorf("a refused publish uploaded %d objects", len(infos)-1)
	}
	// A folder that does not verify is not published.
	broken := write(t, files)
	broken.Delete(ctx, "data/topics.parquet")
	var nv *NotVerifiedError
	if _, err := Publish(ctx, broken, store.NewMem(), &out); !errors.As(err, &nv) {
		t.Errorf("unverified: %v", err)
	}
}

func indexOf(files []File, p string) int {
	for i, f := range files {
		if f.Path == p {
			return i
		}
	}
	return -1
}

// TestCardDomainOrder: the card lists the domains in the run's order
// (Contents.Domains: benchmark.domains, else the ontology's), a query's
// label matched case-insensitively and counted under the run's spelling,
// any other label after, alphabetically.
func TestCardDomainOrder(t *testing.T) {
	for _, tc := range []struct {
		order  []string
		labels []string
		want   string
	}{
		{[]string{"Geometry", "Algebra"}, []string{"Algebra", "Geometry"}, "2 queries (Geometry 1, Algebra 1)"},
		{[]string{"Number theory", "Geometry"}, []string{"geometry", "NUMBER THEORY"}, "2 queries (Number theory 1, Geometry 1)"},
		{[]string{"Geometry"}, []string{"Topology", "GEOMETRY"}, "2 queries (Geometry 1, Topology 1)"},
		{nil, []string{"Geometry", "Algebra"}, "2 queries (Algebra 1, Geometry 1)"},
	} {
		c := sample()
		c.Domains = tc.order
		for i := range c.Queries {
			c.Queries[i].Domain = tc.labels[i]
		}
		card := ""
		for _, f := range build(t, c) {
			if f.Kind == KindCard {
				card = string(f.Data)
			}
		}
		if !strings.Contains(card, tc.want) {
			t.Errorf("order %q, labels %q: the card lacks %q", tc.order, tc.labels, tc.want)
		}
	}
}
