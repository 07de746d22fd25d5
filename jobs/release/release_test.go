package release

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	pkg "github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/shard"
)

// fixture writes a small finished run: 3 queries of 4 candidates, every
// input the release reads, the corpus in `corpusShards` parts and the
// ratings and runs in `shards`; docs of source aops forbid training; the
// audit flagged leak (q0, d1) when flagged.
func fixture(t *testing.T, st store.Store, corpusShards, shards int, flagged bool) {
	t.Helper()
	var docs []dataset.Document
	for i := 0; i < 15; i++ {
		d := dataset.Document{ID: fmt.Sprintf("d%02d", i), Statement: fmt.Sprintf("Problem %d: find $x$ with $x^2=%d$.", i, i*i),
			Solution: fmt.Sprintf("$x=\\boxed{%d}$", i), Source: "official", License: "MIT", Origin: "math", Subject: "Algebra"}
		if i%5 == 4 {
			d.Source, d.License, d.Origin, d.NoTraining = "aops", "AoPS terms", "aops", true
		}
		docs = append(docs, d)
	}
	put := func(ds dataset.Dataset[dataset.Document], rows []dataset.Document, n int) {
		for i := 0; i < n; i++ {
			lo, hi := shard.Spec{Index: i, Count: n}.Range(len(rows))
			stagetest.Put(t, st, "r", ds, shard.Spec{Index: i, Count: n}, rows[lo:hi])
		}
	}
	put(dataset.Corpus, docs, corpusShards)
	var queries []dataset.Query
	var cands []dataset.Candidate
	var ratings []dataset.Rating
	var judgments []dataset.Judgment
	var runs []dataset.RunRow
	var audit []dataset.AuditRow
	for q := 0; q < 3; q++ {
		qid := fmt.Sprintf("d%02d", q)
		queries = append(queries, dataset.Query{ID: qid, Domain: "Algebra", TopicOnly: 1, SummaryOnly: 1, Both: 2})
		for k := 0; k < 4; k++ {
			doc := fmt.Sprintf("d%02d", 3+q*4+k)
			cands = append(cands, dataset.Candidate{Query: qid, Doc: doc, Category: "both", SimTopic: 0.9, SimSumm: 0.4})
			ratings = append(ratings, dataset.Rating{Query: qid, Doc: doc, Rating: float64(k) * 1.25, Games: 3, Wins: int32(k)})
			runs = append(runs, dataset.RunRow{Retriever: "bm25", Setting: "statement-full", Query: qid, Doc: doc, Score: float64(4 - k), Rank: int32(k + 1)})
			audit = append(audit, dataset.AuditRow{Query: qid, Doc: doc, Rank: int32(4 - k), Rating: float64(k) * 1.25, Verdict: "distinct", Backend: "lexical"})
		}
		judgments = append(judgments, dataset.Judgment{Query: qid, Round: 1, Match: 0, Sample1: cands[len(cands)-1].Doc, Sample2: cands[len(cands)-2].Doc,
			Winner: cands[len(cands)-1].Doc, Backend: "lexical"})
	}
	stagetest.PutOne(t, st, "r", dataset.Queries, queries)
	stagetest.PutOne(t, st, "r", dataset.Candidates, cands)
	for i := 0; i < shards; i++ {
		spec := shard.Spec{Index: i, Count: shards}
		lo, hi := spec.Range(len(ratings))
		stagetest.Put(t, st, "r", dataset.Ratings, spec, ratings[lo:hi])
		lo, hi = spec.Range(len(runs))
		stagetest.Put(t, st, "r", dataset.Runs, spec, runs[lo:hi])
		lo, hi = spec.Range(len(audit))
		stagetest.Put(t, st, "r", dataset.Audit, spec, audit[lo:hi])
	}
	stagetest.PutOne(t, st, "r", dataset.Judgments, judgments)
	var topics []dataset.TopicRow
	var summaries []dataset.Summary
	for _, d := range docs {
		topics = append(topics, dataset.TopicRow{ID: d.ID, Topics: []string{"algebra"}, Scores: []float64{1}, Domains: []string{"Algebra"}, Domain: "Algebra", Backend: "lexical"})
		summaries = append(summaries, dataset.Summary{ID: d.ID, CoreIdea: "take the square root", Backend: "extractive"})
	}
	stagetest.PutOne(t, st, "r", dataset.Topics, topics)
	stagetest.PutOne(t, st, "r", dataset.Summaries, summaries)
	stagetest.PutOne(t, st, "r", dataset.Thresholds, []dataset.Threshold{{Scope: dataset.ScopeFinal, TauTopic: 0.9, TauSumm: 0.3, K: 1, Feasible: true}})
	// Every query's run ranks its candidates by rating ascending (0, 1.25,
	// 2.5, 3.75), the reverse of the ideal: the same nDCG@10 for each.
	g := func(r float64) float64 { return math.Pow(2, r) - 1 }
	dcg := func(rs ...float64) (s float64) {
		for i, r := range rs {
			s += g(r) / math.Log2(float64(i+2))
		}
		return s
	}
	nd := dcg(0, 1.25, 2.5, 3.75) / dcg(3.75, 2.5, 1.25, 0)
	stagetest.PutOne(t, st, "r", dataset.Results, []dataset.Result{{Retriever: "bm25", Setting: "statement-full", Gain: "exponential", Scope: "overall", Queries: 3, NDCG: nd, Lo: nd, Hi: nd}})
	var leaks []dataset.Leak
	if flagged {
		leaks = []dataset.Leak{{Query: "d00", Doc: "d03", Rank: 4, Rating: 0, Score: 0.8, Reason: "same answer and numbers", Backend: "lexical"}}
	}
	stagetest.PutOne(t, st, "r", dataset.Leaks, leaks)
}

func runRelease(t *testing.T, st store.Store, extra string, force bool) (stage.Result, error) {
	t.Helper()
	cfg, err := config.Parse([]byte("run: r\nroot: mem\nseed: 3\nrelease: {version: 1.0.0, date: 2026-12-01, homepage: 'https://example.org/s', creators: [{name: A. Author}]"+extra+"}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	return stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, st, zerolog.Nop(), stage.Options{Force: force})
}

func releaseFiles(t *testing.T, st store.Store) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	prefix := layout.ReleasePrefix("r", "1.0.0")
	infos, err := st.List(ctx, prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, in := range infos {
		b, _ := store.ReadAll(ctx, st, in.Key)
		out[strings.TrimPrefix(in.Key, prefix)] = b
	}
	return out
}

// TestReleaseVerifiesAndIgnoresShardCounts: the release of a fixture run
// verifies; 1 vs 3 shards upstream give the same bytes; a rerun gives the
// same bytes; the no-training rows are flagged and counted in the card.
func TestReleaseVerifiesAndIgnoresShardCounts(t *testing.T) {
	ctx := context.Background()
	a, b := store.NewMem(), store.NewMem()
	fixture(t, a, 1, 1, false)
	fixture(t, b, 3, 3, false)
	res, err := runRelease(t, a, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runRelease(t, b, "", false); err != nil {
		t.Fatal(err)
	}
	fa, fb := releaseFiles(t, a), releaseFiles(t, b)
	if len(fa) < 30 || len(fa) != len(fb) {
		t.Fatalf("%d files vs %d", len(fa), len(fb))
	}
	for p, data := range fa {
		if !bytes.Equal(data, fb[p]) {
			t.Errorf("%s differs between 1 and 3 shards upstream", p)
		}
	}
	if res.Manifest.Dataset != dataset.Release.Name || res.Manifest.Rows != int64(len(fa)) {
		t.Errorf("release manifest: dataset %q, %d rows for %d files", res.Manifest.Dataset, res.Manifest.Rows, len(fa))
	}
	rep, err := pkg.Verify(ctx, prefixed{a, layout.ReleasePrefix("r", "1.0.0")})
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", rep, err)
	}
	card := string(fa[pkg.CardFile])
	if !strings.Contains(card, "**3 of the 15 texts come from sources whose terms forbid training") {
		t.Errorf("card does not count the no-training texts:\n%s", card)
	}
	corpus, err := dataset.Decode[pkg.Doc](fa["data/corpus.parquet"], "corpus")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range corpus {
		if d.NoTraining != (d.Source == "aops") {
			t.Errorf("doc %s: source %s, no_training %v", d.ID, d.Source, d.NoTraining)
		}
	}
	if _, err := runRelease(t, a, "", true); err != nil {
		t.Fatal(err)
	}
	for p, data := range releaseFiles(t, a) {
		if !bytes.Equal(data, fa[p]) {
			t.Errorf("%s differs on a rerun", p)
		}
	}
}

// TestReleaseExcludesNoTraining: release.exclude_no_training leaves out
// the documents whose sources forbid training and everything derived
// from them; what is left verifies (its results recomputed over the runs
// left) and the card says how much was left out. Without it, the release
// needs a homepage and a creator.
func TestReleaseExcludesNoTraining(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	fixture(t, st, 1, 1, false)
	if _, err := runRelease(t, st, ", exclude_no_training: true", false); err != nil {
		t.Fatal(err)
	}
	fa := releaseFiles(t, st)
	rep, err := pkg.Verify(ctx, prefixed{st, layout.ReleasePrefix("r", "1.0.0")})
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %v", rep, err)
	}
	corpus, _ := dataset.Decode[pkg.Doc](fa["data/corpus.parquet"], "corpus")
	summaries, _ := dataset.Decode[pkg.Summary](fa["data/summaries.parquet"], "summaries")
	qrels, _ := dataset.Decode[pkg.Qrel](fa["data/qrels.parquet"], "qrels")
	if len(corpus) != 9 || len(summaries) != 12 || len(qrels) != 9 {
		t.Errorf("%d documents, %d summaries, %d qrels; want 9, 12 (9 + 3 queries), 9", len(corpus), len(summaries), len(qrels))
	}
	for _, d := range corpus {
		if d.NoTraining {
			t.Errorf("document %s of a no_training source released", d.ID)
		}
	}
	for _, p := range []string{"trec/runs/bm25.statement-full.run", "beir/statement-full/corpus.jsonl", "trec/qrels.txt"} {
		for _, id := range []string{"d04", "d09", "d14"} {
			if bytes.Contains(fa[p], []byte(id)) {
				t.Errorf("%s still names %s", p, id)
			}
		}
	}
	if card := string(fa[pkg.CardFile]); !strings.Contains(card, "were left out (`release.exclude_no_training`), with everything derived from them: 0 queries and 3 documents") {
		t.Errorf("card does not say what was left out:\n%s", card)
	}
	// No homepage or creator: exit 2 naming both keys.
	cfg, err := config.Parse([]byte("run: r\nroot: mem\nrelease: {version: 1.0.0, date: 2026-12-01}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	_, err = stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, st, zerolog.Nop(), stage.Options{Force: true})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "release.homepage") || !strings.Contains(err.Error(), "release.creators") {
		t.Errorf("no homepage or creator: %v", err)
	}
}

// TestReleaseRefusesLeaksUntilAccepted: a flagged pair stops the release
// (exit 2, naming the id and the key to set) until the config accepts it;
// an accepted id the audit did not flag is refused too.
func TestReleaseRefusesLeaksUntilAccepted(t *testing.T) {
	st := store.NewMem()
	fixture(t, st, 1, 1, true)
	_, err := runRelease(t, st, "", false)
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "d00/d03") || !strings.Contains(err.Error(), "release.accept_leaks") {
		t.Fatalf("flagged leak: %v", err)
	}
	if files := releaseFiles(t, st); len(files) != 0 {
		t.Errorf("a refused release wrote %d files", len(files))
	}
	if _, err := runRelease(t, st, ", accept_leaks: [d00/d03]", false); err != nil {
		t.Fatalf("accepted: %v", err)
	}
	leaks, err := dataset.Decode[pkg.Leak](releaseFiles(t, st)["data/leaks.parquet"], "leaks")
	if err != nil || len(leaks) != 1 || !leaks[0].Accepted {
		t.Errorf("leaks table %v, %v", leaks, err)
	}
	other := store.NewMem()
	fixture(t, other, 1, 1, false)
	if _, err := runRelease(t, other, ", accept_leaks: [d00/d99]", false); stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "not a pair the audit flagged") {
		t.Errorf("unflagged accepted id: %v", err)
	}
}

func TestReleaseNeedsADateAndLicences(t *testing.T) {
	st := store.NewMem()
	fixture(t, st, 1, 1, false)
	cfg, err := config.Parse([]byte("run: r\nroot: mem\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	_, err = stage.RunShard(context.Background(), cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, st, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "release.date: required") {
		t.Errorf("no date: %v", err)
	}
	if _, err := config.Parse([]byte("run: r\nroot: d\nrelease: {date: 1 Dec 2026, version: 'a b', license: 'x y', settings: [nope], accept_leaks: [q]}\n"), Section); err == nil ||
		!strings.Contains(err.Error(), "release.date") || !strings.Contains(err.Error(), "release.version") || !strings.Contains(err.Error(), "release.settings[0]") || !strings.Contains(err.Error(), "release.accept_leaks[0]") {
		t.Errorf("bad release section: %v", err)
	}
	// A document without a licence stops the release, naming the source.
	bad := store.NewMem()
	fixture(t, bad, 1, 1, false)
	ctx := context.Background()
	ms, _ := layout.Complete(ctx, bad, "r", "corpus")
	docs, _ := dataset.Read[dataset.Document](ctx, bad, ms[0].Outputs[0].Key)
	docs[5].License = ""
	bad.Delete(ctx, layout.DoneKey("r", "corpus", shard.Spec{Index: 0, Count: 1}))
	stagetest.PutOne(t, bad, "r", dataset.Corpus, docs)
	if _, err := runRelease(t, bad, "", false); stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "no licence") {
		t.Errorf("missing licence: %v", err)
	}
}

// prefixed is a store seen from a prefix: the release folder.
type prefixed struct {
	store.Store
	prefix string
}

func (p prefixed) URI(key string) string { return p.Store.URI(p.prefix + key) }
func (p prefixed) Open(ctx context.Context, key string) (store.Object, error) {
	return p.Store.Open(ctx, p.prefix+key)
}
func (p prefixed) Stat(ctx context.Context, key string) (store.Info, error) {
	in, err := p.Store.Stat(ctx, p.prefix+key)
	in.Key = strings.TrimPrefix(in.Key, p.prefix)
	return in, err
}
func (p prefixed) List(ctx context.Context, prefix string) ([]store.Info, error) {
	infos, err := p.Store.List(ctx, p.prefix+prefix)
	for i := range infos {
		infos[i].Key = strings.TrimPrefix(infos[i].Key, p.prefix)
	}
	return infos, err
}
