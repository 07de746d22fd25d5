package downstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/downstream"
	"github.com/saber-math/saber/jobs/rewrite"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/hashembed"
	"github.com/saber-math/saber/lib/lexical"
	"github.com/saber-math/saber/lib/poolrank"
	"github.com/saber-math/saber/shard"
)

// statements of the benchmark: three queries and their candidates. q3 is
// "Hello there.": nothing for the offline rewriter to change, so its
// rewrite is identical to it and invalid.
var statements = map[string]string{
	"q1":  "Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 21$. Find the value of $x^2 + y^2$.",
	"q2":  "Noah claims that the remainder of $36^{1876}$ modulo $29$ can be found without a computer. Calculate that remainder.",
	"q3":  "Hello there.",
	"d01": "How many positive divisors does $36$ have?",
	"d02": "Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 21$. Find the value of $x^3 + y^3$.",
	"d03": "Compute $7^2 + 3^2$.",
	"d04": "Find the remainder when $2^{10}$ is divided by $7$.",
	"d05": "Find the number of positive integer solutions to $a+b+c+d\\leq 12$.",
	"d06": "A triangle has sides $3$, $4$ and $5$. What is its area?",
	"d07": "How many ways can $5$ books be arranged on a shelf?",
	"d08": "Solve $2x + 3 = 11$ for $x$.",
	"d09": "What is the sum of the interior angles of a hexagon, in degrees?",
	"d10": "Find the least common multiple of $12$ and $18$.",
}

var candidates = map[string][]string{
	"q1": {"d01", "d02", "d03", "d04", "q2"},
	"q2": {"d04", "d05", "d06", "d07", "d08"},
	"q3": {"d08", "d09", "d10", "q1"},
}

// embeddedTexts counts the texts every embedServer embedded.
var embeddedTexts atomic.Int64

// embedServer is a bi-encoder over lib/hashembed, as the demo serves it.
func embedServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		embeddedTexts.Add(int64(len(in.Input)))
		var data []map[string]any
		for i, s := range in.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": hashembed.Vector(s, 64)})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "h", "data": data, "usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func setup(t *testing.T, extra string, cands map[string][]string) (*config.Config, store.Store) {
	t.Helper()
	dir := t.TempDir()
	y := fmt.Sprintf(`run: a
root: %s/data
log: {progress_seconds: 0}
retrievers:
  hash:
    kind: embedding
    model: h
    base_url: %s
downstream:
  shards: 2
  retrievers: [bm25, jaccard, hash]
  check: 100
%s`, dir, embedServer(t), extra)
	cfg, err := config.Parse([]byte(y), downstream.Section, rewrite.Section)
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(context.Background(), cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []dataset.Document
	for id, s := range statements {
		docs = append(docs, dataset.Document{ID: id, Source: "other", Statement: s, Solution: "It is $\\boxed{1}$.", Origin: "test"})
	}
	stagetest.PutOne(t, root, cfg.Run, dataset.Corpus, docs)
	stagetest.PutOne(t, root, cfg.Run, dataset.Queries, []dataset.Query{{ID: "q1"}, {ID: "q2"}, {ID: "q3"}})
	var cs []dataset.Candidate
	for q, ds := range cands {
		for _, d := range ds {
			cs = append(cs, dataset.Candidate{Query: q, Doc: d, Category: "both"})
		}
	}
	stagetest.PutOne(t, root, cfg.Run, dataset.Candidates, cs)
	stagetest.PutOne(t, root, cfg.Run, dataset.Results, []dataset.Result{
		{Retriever: "bm25", Setting: "statement-full", Gain: "exponential", Scope: "overall", NDCG: 0.4},
		{Retriever: "jaccard", Setting: "statement-full", Gain: "exponential", Scope: "overall", NDCG: 0.3},
		{Retriever: "hash", Setting: "statement-full", Gain: "exponential", Scope: "overall", NDCG: 0.5},
		{Retriever: "hash", Setting: "full-full", Gain: "exponential", Scope: "overall", NDCG: 0.9},
	})
	return cfg, root
}

func runStage(t *testing.T, cfg *config.Config, root store.Store, st stage.Stage) error {
	t.Helper()
	for _, step := range st.Steps {
		n := step.Count(cfg)
		for i := range n {
			if _, err := stage.RunShard(context.Background(), cfg, st, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
				return fmt.Errorf("%s %s %d/%d: %w", st.Name, step.Name, i, n, err)
			}
		}
	}
	return nil
}

func readAll[T any](t *testing.T, root store.Store, run, ds string) ([]T, []*layout.Manifest) {
	t.Helper()
	ms, err := layout.Complete(context.Background(), root, run, ds)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, m := range ms {
		for _, o := range m.Objects(ds) {
			rows, err := dataset.Read[T](context.Background(), root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rows...)
		}
	}
	return out, ms
}

func TestExperiment(t *testing.T) {
	cfg, root := setup(t, "", candidates)
	for _, st := range []stage.Stage{rewrite.Stage, downstream.EmbedStage, downstream.Stage} {
		if err := runStage(t, cfg, root, st); err != nil {
			t.Fatal(err)
		}
	}
	rws, _ := readAll[dataset.RewriteRow](t, root, cfg.Run, dataset.Rewrites.Name)
	byQuery := map[string]dataset.RewriteRow{}
	for _, r := range rws {
		byQuery[r.Query] = r
	}
	if len(rws) != 3 || !byQuery["q1"].Valid || !byQuery["q2"].Valid || byQuery["q3"].Valid || byQuery["q3"].Reason != "identical" {
		t.Fatalf("rewrites: %+v", rws)
	}

	// The pool: every unique document once (q1 and q2 are also
	// candidates), sorted by id.
	pool := slices.Sorted(func(yield func(string) bool) {
		for id := range statements {
			if !yield(id) {
				return
			}
		}
	})
	texts := make([]string, len(pool))
	for i, id := range pool {
		texts[i] = statements[id]
	}
	ranks, _ := readAll[dataset.DedupRank](t, root, cfg.Run, dataset.DedupRanks.Name)
	got := map[string]dataset.DedupRank{}
	for _, r := range ranks {
		got[r.Retriever+"/"+r.Scale+"/"+r.Query] = r
		if r.Query == "q3" {
			t.Errorf("q3's invalid rewrite was ranked: %+v", r)
		}
	}
	// 2 valid queries × (3 retrievers × 2 scales).
	if len(ranks) != 12 {
		t.Fatalf("%d ranks, want 12: %+v", len(ranks), ranks)
	}
	for _, q := range []string{"q1", "q2"} {
		target := slices.Index(pool, q)
		rw := byQuery[q].Statement
		// The rewrite is never a document of the pool; the original is
		// in it once.
		if slices.Contains(texts, rw) {
			t.Fatalf("%s's rewrite is in the pool", q)
		}
		// BM25 over the pool, computed here from lib/lexical directly.
		bm, _ := lexical.Lookup("bm25")
		scores, err := bm.Score(rw, texts)
		if err != nil {
			t.Fatal(err)
		}
		r := got["bm25/pool/"+q]
		if want := poolrank.RankOf(scores, target); int(r.Rank) != want || r.Pool != int32(len(pool)) || r.Score != scores[target] {
			t.Errorf("bm25 pool %s: %+v, want rank %d of %d, score %v", q, r, want, len(pool), scores[target])
		}
		// The bi-encoder: naive float64 cosines of the vectors.
		qv := hashembed.Vector(rw, 64)
		cos := make([]float64, len(pool))
		for i, s := range texts {
			dv := hashembed.Vector(s, 64)
			var d, nq, nd float64
			for k := range qv {
				d += float64(qv[k]) * float64(dv[k])
				nq += float64(qv[k]) * float64(qv[k])
				nd += float64(dv[k]) * float64(dv[k])
			}
			cos[i] = d / math.Sqrt(nq*nd)
		}
		h := got["hash/pool/"+q]
		if want := poolrank.RankOf(cos, target); int(h.Rank) != want || math.Abs(h.Score-cos[target]) > 1e-5 {
			t.Errorf("hash pool %s: %+v, want rank %d, score %v", q, h, want, cos[target])
		}
		// Candidates: the query's own and the original.
		c := got["bm25/candidates/"+q]
		if c.Pool != int32(len(candidates[q])+1) || c.Rank < 1 || c.Rank > c.Pool {
			t.Errorf("bm25 candidates %s: %+v", q, c)
		}
	}
	_, ms := readAll[dataset.DedupRank](t, root, cfg.Run, dataset.DedupRanks.Name)
	checked := int64(0)
	for _, m := range ms {
		checked += m.Stats["checked_queries"]
	}
	if checked != 2 {
		t.Errorf("naive check ran on %d queries, want both", checked)
	}

	res, _ := readAll[dataset.DedupResult](t, root, cfg.Run, dataset.DedupResults.Name)
	if len(res) != 6 {
		t.Fatalf("%d results, want a row per retriever and scale: %+v", len(res), res)
	}
	for _, r := range res {
		for _, p := range []float64{r.Top1, r.Top4, r.Top16, r.Top64} {
			if !(p >= 0 && p <= 100) {
				t.Errorf("%s %s: percentage %v", r.Scale, r.Retriever, p)
			}
		}
		if r.Queries != 2 || r.Median < 1 || !r.HasNDCG {
			t.Errorf("%+v", r)
		}
		if r.Retriever == "hash" && r.NDCG != 0.5 {
			t.Errorf("hash's nDCG@10 %v is not the statement-full one", r.NDCG)
		}
	}
	md, err := store.ReadAll(context.Background(), root, layout.ReportKey(cfg.Run, downstream.ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| hash | 0.500 |", "1 invalid rewrites left out (identical 1)", "Spearman", "−median rank"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("downstream.md lacks %q:\n%s", want, md)
		}
	}
	for _, name := range []string{downstream.ReportCSV, downstream.ReportTeX} {
		b, err := store.ReadAll(context.Background(), root, layout.ReportKey(cfg.Run, name))
		if err != nil || !strings.Contains(string(b), "bm25") {
			t.Errorf("%s: %v\n%s", name, err, b)
		}
	}
}

// TestEmbedAsksEachTextOnce: the pool's statements are embedded once each;
// a forced rerun of embed asks the server nothing (the run's memo, shared
// with evaluate: jobs/retrieval/memo.go); downstream's map asks only for
// the rewrites, once each, whether it ranks the pool or the candidates.
func TestEmbedAsksEachTextOnce(t *testing.T) {
	cfg, root := setup(t, "", candidates)
	if err := runStage(t, cfg, root, rewrite.Stage); err != nil {
		t.Fatal(err)
	}
	before := embeddedTexts.Load()
	if err := runStage(t, cfg, root, downstream.EmbedStage); err != nil {
		t.Fatal(err)
	}
	if got := embeddedTexts.Load() - before; got != int64(len(statements)) {
		t.Errorf("embed sent %d texts for a pool of %d", got, len(statements))
	}
	before = embeddedTexts.Load()
	for i, n := 0, downstream.EmbedStage.Steps[0].Count(cfg); i < n; i++ {
		step := downstream.EmbedStage.Steps[0]
		if _, err := stage.RunShard(context.Background(), cfg, downstream.EmbedStage, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	if got := embeddedTexts.Load() - before; got != 0 {
		t.Errorf("a forced rerun of embed sent %d texts, want 0", got)
	}
	before = embeddedTexts.Load()
	if err := runStage(t, cfg, root, downstream.Stage); err != nil {
		t.Fatal(err)
	}
	rws, _ := readAll[dataset.RewriteRow](t, root, cfg.Run, dataset.Rewrites.Name)
	valid := map[string]bool{}
	for _, r := range rws {
		if r.Valid {
			valid[r.Statement] = true
		}
	}
	if got := embeddedTexts.Load() - before; got != int64(len(valid)) {
		t.Errorf("downstream sent %d texts, want its %d distinct valid rewrites", got, len(valid))
	}
}

func TestOwnCandidateRefused(t *testing.T) {
	cfg, root := setup(t, "", map[string][]string{"q1": {"q1", "d01"}, "q2": {"d01"}, "q3": {"d02"}})
	err := runStage(t, cfg, root, downstream.EmbedStage)
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "own candidate") {
		t.Fatalf("err = %v, want bad input naming the own candidate", err)
	}
}

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name   string
		ranks  []int32
		median float64
		top    [4]float64
	}{
		{"even count", []int32{100, 1, 3, 2}, 2.5, [4]float64{25, 75, 75, 75}},
		{"odd count", []int32{5, 17, 65}, 17, [4]float64{0, 0, 100.0 / 3, 200.0 / 3}},
		{"all first", []int32{1, 1}, 1, [4]float64{100, 100, 100, 100}},
	} {
		med, top := downstream.Summarize(c.ranks)
		if med != c.median || top != c.top {
			t.Errorf("%s: %v %v, want %v %v", c.name, med, top, c.median, c.top)
		}
	}
	if med, _ := downstream.Summarize(nil); !math.IsNaN(med) {
		t.Errorf("no ranks: median %v", med)
	}
}

// TestOffSaysHowToTurnItOn: downstream run by hand with no retrievers
// says it is off and which setting turns it on, not that it has "0 shards
// (downstream.shards 1 × 0 retrievers), not 1".
func TestOffSaysHowToTurnItOn(t *testing.T) {
	cfg, root := setup(t, "", candidates)
	off, err := config.Parse([]byte(fmt.Sprintf("run: a\nroot: %s\ndownstream: {retrievers: []}\n", cfg.RootURI())), downstream.Section, rewrite.Section)
	if err != nil {
		t.Fatal(err)
	}
	_, err = stage.RunShard(context.Background(), off, downstream.Stage, downstream.Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "downstream is off under this config: set downstream.retrievers") {
		t.Errorf("err %v (exit %d), want exit 2 saying it is off and how to turn it on", err, stage.ExitCode(err))
	}
}
