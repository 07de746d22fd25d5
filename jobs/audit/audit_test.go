package audit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/audit"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/shard"
)

// The benchmark the tests audit: three queries and their rated documents.
// q1's third-ranked document, d05, is q1 reworded — the same numbers and
// answer, the variables renamed, the sentences reordered — which is the
// one leak. Its other documents are near misses: the same numbers with
// another question (d02, d11), the same answer with another problem (d03).
// q2 and its top document are the paper's own example of related but
// distinct counting problems (App. A.5).
var corpus = map[string][2]string{
	"q1":  {"Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 21$. Find the value of $x^2 + y^2$.", "We have $x^2 + y^2 = (x+y)^2 - 2xy = 100 - 42$, so the answer is $\\boxed{58}$."},
	"d05": {"Find the value of $a^2 + b^2$. Here $a$ and $b$ are positive integers with $a + b = 10$ and $ab = 21$.", "Since $a^2+b^2=(a+b)^2-2ab=100-42$, it is $\\boxed{58}$."},
	"d02": {"Let $x$ and $y$ be positive integers with $x + y = 10$ and $xy = 21$. Find the value of $x^3 + y^3$.", "$x^3+y^3=(x+y)^3-3xy(x+y)=1000-630=\\boxed{370}$."},
	"d03": {"Compute $7^2 + 3^2$.", "$49 + 9 = \\boxed{58}$."},
	"d11": {"Let $a$ and $b$ be real numbers with $a + b = 10$ and $ab = 21$. Find $a - b$ if $a > b$.", "$(a-b)^2 = 100 - 84 = 16$, so $a - b = \\boxed{4}$."},
	"d01": {"How many positive divisors does $36$ have?", "$36 = 2^2 3^2$ has $3 \\cdot 3 = \\boxed{9}$ divisors."},
	"d04": {"Find the remainder when $2^{10}$ is divided by $7$.", "$2^3 \\equiv 1$, so $2^{10} \\equiv 2$: $\\boxed{2}$."},
	"q2":  {"Find the number of positive integer solutions to $a+b+c+d\\leq 12$, where $a,b,c,d$ are positive integers.", "With a slack variable, $\\binom{12}{4} = \\boxed{495}$."},
	"d13": {"How many solutions are there to $3x+y+z\\leq 17$, where $x,y,z$ are nonnegative integers?", "Summing over $x$: $171+120+78+45+21+6=\\boxed{441}$."},
	"d07": {"How many ways can $5$ books be arranged on a shelf?", "$5! = \\boxed{120}$."},
	"d12": {"Evaluate $\\dbinom{8}{3}$.", "$\\boxed{56}$"},
	"d10": {"Find the least common multiple of $12$ and $18$.", "$\\boxed{36}$"},
	"d06": {"A triangle has sides $3$, $4$ and $5$. What is its area?", "It is right-angled: $\\boxed{6}$."},
	"d08": {"Solve $2x + 3 = 11$ for $x$.", "$x = \\boxed{4}$"},
	"q3":  {"What is the greatest common divisor of $84$ and $126$?", "$\\gcd(84, 126) = \\boxed{42}$."},
	"d09": {"What is the sum of the interior angles of a hexagon, in degrees?", "$(6-2) \\cdot 180 = \\boxed{720}$."},
}

// ratings per query: document and rating. Ties (q1: d02 and d03; q2: d07
// and d12; q3: d04 and d09) are ranked by document id.
var ratings = map[string][]struct {
	doc    string
	rating float64
}{
	"q1": {{"d01", 1}, {"d02", 4.5}, {"d03", 4.5}, {"d04", 0}, {"d05", 4}, {"d11", 3}},
	"q2": {{"d06", 0.5}, {"d07", 3}, {"d08", 0}, {"d10", 1}, {"d12", 3}, {"d13", 5}},
	"q3": {{"d01", 3.5}, {"d04", 2}, {"d06", 0}, {"d09", 2}, {"d10", 4}, {"d12", 1}},
}

// wantOrder is each query's documents by rank.
var wantOrder = map[string][]string{
	"q1": {"d02", "d03", "d05", "d11", "d01", "d04"},
	"q2": {"d13", "d07", "d12", "d10", "d06", "d08"},
	"q3": {"d10", "d01", "d04", "d09", "d12", "d06"},
}

// setup writes the benchmark (queries; ratings in two parts, as rate with
// two shards writes them; the corpus in two parts) and returns the config.
func setup(t *testing.T, section string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	cfg, err := config.Parse([]byte(fmt.Sprintf("run: a\nroot: %s/data\nlog: {progress_seconds: 0}\n%s\n", dir, section)), audit.Section)
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(context.Background(), cfg.RootURI(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []dataset.Document
	for id, d := range corpus {
		docs = append(docs, dataset.Document{ID: id, Source: "other", Statement: d[0], Solution: d[1], Origin: "test"})
	}
	slices.SortFunc(docs, func(a, b dataset.Document) int { return strings.Compare(a.ID, b.ID) })
	for i := range 2 {
		spec := shard.Spec{Index: i, Count: 2}
		lo, hi := spec.Range(len(docs))
		stagetest.Put(t, root, cfg.Run, dataset.Corpus, spec, slices.Clone(docs[lo:hi]))
	}
	stagetest.PutOne(t, root, cfg.Run, dataset.Queries, []dataset.Query{{ID: "q1", Domain: "Algebra"}, {ID: "q2", Domain: "Combinatorics"}, {ID: "q3", Domain: "Number Theory"}})
	var part0, part1 []dataset.Rating
	for q, rs := range ratings {
		for _, r := range rs {
			row := dataset.Rating{Query: q, Doc: r.doc, Rating: r.rating, Theta: r.rating - 2}
			if q == "q3" {
				part1 = append(part1, row)
			} else {
				part0 = append(part0, row)
			}
		}
	}
	stagetest.Put(t, root, cfg.Run, dataset.Ratings, shard.Spec{Index: 0, Count: 2}, part0)
	stagetest.Put(t, root, cfg.Run, dataset.Ratings, shard.Spec{Index: 1, Count: 2}, part1)
	return cfg
}

// result is what a run of both steps wrote.
type result struct {
	rows      []dataset.AuditRow
	leaks     []dataset.Leak
	leaksHash string
	report    string
	manifests []*layout.Manifest // the map's
	reduce    *layout.Manifest
}

func run(t *testing.T, cfg *config.Config, opt stage.Options) result {
	t.Helper()
	ctx := context.Background()
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	for _, step := range audit.Stage.Steps {
		n := step.Count(cfg)
		for i := range n {
			if _, err := stage.RunShard(ctx, cfg, audit.Stage, step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), opt); err != nil {
				t.Fatalf("%s %d/%d: %v", step.Name, i, n, err)
			}
		}
	}
	var res result
	ms, err := layout.Complete(ctx, root, cfg.Run, dataset.Audit.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		res.manifests = append(res.manifests, m)
		for _, o := range m.Objects(dataset.Audit.Name) {
			rows, err := dataset.Read[dataset.AuditRow](ctx, root, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			res.rows = append(res.rows, rows...)
		}
	}
	lm, err := layout.Complete(ctx, root, cfg.Run, dataset.Leaks.Name)
	if err != nil || len(lm) != 1 {
		t.Fatalf("leaks: %d manifests, %v", len(lm), err)
	}
	res.reduce = lm[0]
	o := lm[0].Objects(dataset.Leaks.Name)[0]
	res.leaksHash = o.SHA256
	if res.leaks, err = dataset.Read[dataset.Leak](ctx, root, o.Key); err != nil {
		t.Fatal(err)
	}
	md, err := store.ReadAll(ctx, root, layout.ReportKey(cfg.Run, audit.Report))
	if err != nil {
		t.Fatal(err)
	}
	res.report = string(md)
	return res
}

// TestAuditLexical: the offline backend flags the reworded copy and
// nothing else; `leaks` holds exactly that pair, audit.md lists it with
// both texts and answers, and 1 and 3 shards give the same bytes.
func TestAuditLexical(t *testing.T) {
	one := run(t, setup(t, "audit: {shards: 1}"), stage.Options{})
	if len(one.rows) != 18 {
		t.Fatalf("%d audit rows, want 18 (6 per query: fewer than top)", len(one.rows))
	}
	for i, r := range one.rows {
		q := []string{"q1", "q2", "q3"}[i/6]
		if r.Query != q || r.Rank != int32(i%6+1) || r.Doc != wantOrder[q][i%6] {
			t.Errorf("row %d: %s rank %d doc %s, want %s rank %d doc %s", i, r.Query, r.Rank, r.Doc, q, i%6+1, wantOrder[q][i%6])
		}
		flag := r.Query == "q1" && r.Doc == "d05"
		if r.Flagged != flag || (r.Verdict == audit.Equivalent) != flag || r.Verdict != audit.Equivalent && r.Verdict != audit.Distinct {
			t.Errorf("%s/%s: verdict %s flagged %v (%s, score %.3f), want flagged %v", r.Query, r.Doc, r.Verdict, r.Flagged, r.Reason, r.Score, flag)
		}
		if r.Backend != "lexical" || r.Asks != 1 || len(r.AnswerSHA256) != 64 || r.Reason == "" || r.Score < 0 || r.Score > 1 {
			t.Errorf("row %+v: want backend lexical, 1 ask, the evidence's hash, a reason and a score in [0, 1]", r)
		}
	}
	want := []dataset.Leak{{Query: "q1", Doc: "d05", Rank: 3, Rating: 4, Score: one.rows[2].Score, Reason: one.rows[2].Reason, Backend: "lexical"}}
	if !slices.Equal(one.leaks, want) {
		t.Errorf("leaks %+v, want %+v", one.leaks, want)
	}
	for _, w := range []string{
		"| lexical | – | – | 3 | 18 | 1 | 17 | 0 |", "| **total** | | | 3 | 18 | 1 | 17 | 0 |",
		"3 of the queries have fewer than 50 rated documents",
		"## Flagged pairs (1)", "### 1. `q1` / `d05`", "Leak id `q1/d05`. Rank 3 of the query's documents, rating 4.0000; backend lexical",
		"**Query `q1` (Algebra)**\n\n> " + corpus["q1"][0] + "\n\nFinal answer: `58`",
		"**Document `d05`**\n\n> " + corpus["d05"][0] + "\n\nFinal answer: `58`",
		"## Invalid answers (0)\n\nNone.", "Its limits:", "≥ 0.8", "≥ 0.4",
	} {
		if !strings.Contains(one.report, w) {
			t.Errorf("audit.md lacks %q:\n%s", w, one.report)
		}
	}
	if one.reduce.Stats["leaks"] != 1 || one.reduce.Stats["pairs"] != 18 || one.manifests[0].Stats["equivalent"] != 1 || one.manifests[0].Stats["distinct"] != 17 {
		t.Errorf("stats: reduce %v, map %v", one.reduce.Stats, one.manifests[0].Stats)
	}

	three := run(t, setup(t, "audit: {shards: 3}"), stage.Options{})
	if len(three.manifests) != 3 {
		t.Fatalf("%d map manifests with 3 shards", len(three.manifests))
	}
	if !slices.Equal(one.rows, three.rows) {
		t.Errorf("audit rows differ between 1 and 3 shards:\n%+v\n%+v", one.rows, three.rows)
	}
	if one.leaksHash != three.leaksHash || one.report != three.report {
		t.Errorf("leaks %s vs %s; reports equal: %v", one.leaksHash, three.leaksHash, one.report == three.report)
	}
	// The reduce records every audit part it read.
	var read int
	for _, in := range three.reduce.Inputs {
		if in.Dataset == dataset.Audit.Name && !in.Unread {
			read++
		}
	}
	if read != 3 {
		t.Errorf("the reduce read %d audit parts, want 3", read)
	}
}

// TestAuditTop: audit.top limits the pairs to each query's highest rated
// (ties by document id), and with the copy below the cut there is no leak.
func TestAuditTop(t *testing.T) {
	res := run(t, setup(t, "audit: {top: 2, shards: 2}"), stage.Options{})
	var got []string
	for _, r := range res.rows {
		got = append(got, r.Query+"/"+r.Doc)
	}
	want := []string{"q1/d02", "q1/d03", "q2/d13", "q2/d07", "q3/d10", "q3/d01"}
	if !slices.Equal(got, want) {
		t.Errorf("audited %v, want %v", got, want)
	}
	if len(res.leaks) != 0 || !strings.Contains(res.report, "## Flagged pairs (0)\n\nNone.") || !strings.Contains(res.report, "its 2 highest-rated documents") {
		t.Errorf("leaks %v; report:\n%s", res.leaks, res.report)
	}
	if strings.Contains(res.report, "fewer than 2 rated documents") {
		t.Error("the report counts queries under top when none is")
	}
}

// fakeAuditor answers A.1 prompts: \boxed{equivalent} for q1 and its
// copy d05, an answer without a verdict for q3 and d04, and otherwise a
// reasoning that mentions \boxed{equivalent} before its final
// \boxed{distinct} (the last box decides).
type fakeAuditor struct {
	mu    sync.Mutex
	calls map[string]int
}

func problemOf(prompt, label string) string {
	_, rest, ok := strings.Cut(prompt, "["+label+"]\n- Problem: ")
	if !ok {
		return ""
	}
	p, _, _ := strings.Cut(rest, "\n- Solution: ")
	return p
}

func (f *fakeAuditor) handle(req llmtest.ChatRequest) string {
	// The pair is in the first user message; a re-ask appends the bad
	// answer and a correction after it.
	var u string
	for _, m := range req.Messages {
		if m.Role == "user" {
			u = m.Content
			break
		}
	}
	a, b := problemOf(u, "Problem A"), problemOf(u, "Problem B")
	f.mu.Lock()
	f.calls[a+"\x00"+b]++
	f.mu.Unlock()
	switch {
	case a == corpus["q1"][0] && b == corpus["d05"][0]:
		return "Both give x+y=10 and xy=21 and ask for x^2+y^2, with the variables renamed.\n$\\boxed{\\text{Equivalent}}$"
	case a == corpus["q3"][0] && b == corpus["d04"][0]:
		return "These look somewhat alike, I cannot tell."
	}
	return "Were they the same we would answer \\boxed{equivalent}; they ask different things.\n\\boxed{distinct}"
}

// TestAuditLLM: the llm backend against the fake server flags the pair
// the model calls equivalent; a pair whose answers never give a verdict is
// kept as invalid (3 asks), counted in the report and never flagged; a
// rerun of both steps repeats no call and gives the same bytes.
func TestAuditLLM(t *testing.T) {
	fa := &fakeAuditor{calls: map[string]int{}}
	srv := llmtest.NewServer(t, fa.handle)
	cfg := setup(t, fmt.Sprintf("llm: {base_url: %q, model: fake-judge, timeout_seconds: 5, max_attempts: 4, concurrency: 4}\naudit: {backend: llm, shards: 2}", srv.URL))
	if step := audit.Stage.Steps[0]; !step.Cache {
		t.Fatal("audit's map does not declare the LLM cache")
	}
	res := run(t, cfg, stage.Options{})
	if len(res.rows) != 18 {
		t.Fatalf("%d rows", len(res.rows))
	}
	for _, r := range res.rows {
		switch {
		case r.Query == "q1" && r.Doc == "d05":
			if r.Verdict != audit.Equivalent || !r.Flagged || r.Asks != 1 {
				t.Errorf("the copy: %+v", r)
			}
		case r.Query == "q3" && r.Doc == "d04":
			if r.Verdict != audit.Invalid || r.Flagged || r.Reason != audit.ReasonUnparseable || r.Asks != 3 || len(r.AnswerSHA256) != 64 {
				t.Errorf("the unparseable pair: %+v, want invalid, not flagged, unparseable, 3 asks, the answer's hash", r)
			}
		default:
			if r.Verdict != audit.Distinct || r.Flagged || r.Asks != 1 {
				t.Errorf("pair %s/%s: %+v, want distinct", r.Query, r.Doc, r)
			}
		}
		if r.Backend != "llm" || r.Model != "fake-judge" || r.PromptVersion != "a1.v1" || r.Score != 0 {
			t.Errorf("row %+v: want backend llm, model fake-judge, prompt a1.v1, score 0", r)
		}
	}
	if len(res.leaks) != 1 || res.leaks[0].Query != "q1" || res.leaks[0].Doc != "d05" || res.leaks[0].Backend != "llm" {
		t.Errorf("leaks %+v, want q1/d05 alone", res.leaks)
	}
	for _, w := range []string{
		"| llm | fake-judge | a1.v1 | 3 | 18 | 1 | 16 | 1 |", "**llm** (model `fake-judge`, prompt `a1.v1`)", "asked again up to 2 times",
		"## Invalid answers (1)", "| q3 | d04 | 3 | llm | unparseable | 3 | " + res.rows[14].AnswerSHA256 + " |",
		"## Flagged pairs (1)", "> " + corpus["d05"][0],
	} {
		if !strings.Contains(res.report, w) {
			t.Errorf("audit.md lacks %q:\n%s", w, res.report)
		}
	}
	var calls, cached, invalid int64
	for _, m := range res.manifests {
		calls += m.Stats["llm_calls"]
		cached += m.Stats["llm_cached"]
		invalid += m.Stats["invalid_unparseable"]
	}
	// Chat requests only: the manifests' server description adds one
	// GET /models per shard that sent any.
	chats := func() int64 { return srv.RequestsTo("/v1/chat/completions") }
	if chats() != 20 || calls != 20 || cached != 0 || invalid != 1 || res.reduce.Stats["invalid"] != 1 {
		t.Errorf("%d requests; manifests: %d calls, %d cached, %d unparseable, reduce %v; want 20 (17 pairs once, one three times)", chats(), calls, cached, invalid, res.reduce.Stats)
	}
	for k, n := range fa.calls {
		if a, b, _ := strings.Cut(k, "\x00"); n != 1 && !(a == corpus["q3"][0] && b == corpus["d04"][0] && n == 3) {
			t.Errorf("prompt for %.30q / %.30q answered %d times", a, b, n)
		}
	}

	// Redone (--force), both steps find every answer in the cache.
	again := run(t, cfg, stage.Options{Force: true})
	if chats() != 20 {
		t.Errorf("the rerun made %d requests", chats()-20)
	}
	calls, cached = 0, 0
	for _, m := range again.manifests {
		calls += m.Stats["llm_calls"]
		cached += m.Stats["llm_cached"]
	}
	if calls != 20 || cached != 20 {
		t.Errorf("rerun: %d calls, %d cached; want all 20 from the cache", calls, cached)
	}
	if !slices.Equal(res.rows, again.rows) || res.leaksHash != again.leaksHash || res.report != again.report {
		t.Error("the rerun from the cache changed the outputs")
	}
}

// TestAuditLLMRefused: requests the server refuses (400) leave their
// pairs invalid ("refused"): kept, never flagged, no answer hash. When
// every pair of a shard is refused the shard fails (exit 2) naming the
// share and audit.max_invalid_share, and writes nothing; with the
// threshold at 1 it completes.
func TestAuditLLMRefused(t *testing.T) {
	srv := llmtest.NewServer(t, func(llmtest.ChatRequest) string { return "\\boxed{equivalent}" })
	srv.SetFaults(llmtest.Faults{Rate: 1, Kinds: []llmtest.Fault{llmtest.FaultBadRequest}})
	ctx := context.Background()
	cfg := setup(t, fmt.Sprintf("llm: {base_url: %q, model: m, timeout_seconds: 5}\naudit: {backend: llm, top: 1}", srv.URL))
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	_, err := stage.RunShard(ctx, cfg, audit.Stage, audit.Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), "3 of 3 pairs with an invalid answer (100.0%)") ||
		!strings.Contains(fmt.Sprint(err), "audit.max_invalid_share") || !strings.Contains(fmt.Sprint(err), "refused") {
		t.Fatalf("every pair refused: err = %v (exit %d); want exit 2 naming the share, audit.max_invalid_share and a refusal", err, stage.ExitCode(err))
	}
	if left, _ := root.List(ctx, cfg.Run+"/audit/"); len(left) != 0 {
		t.Errorf("wrote %v", left)
	}

	cfg = setup(t, fmt.Sprintf("llm: {base_url: %q, model: m, timeout_seconds: 5}\naudit: {backend: llm, top: 1, max_invalid_share: 1}", srv.URL))
	res := run(t, cfg, stage.Options{})
	if len(res.rows) != 3 || len(res.leaks) != 0 {
		t.Fatalf("%d rows, %d leaks", len(res.rows), len(res.leaks))
	}
	for _, r := range res.rows {
		if r.Verdict != audit.Invalid || r.Reason != audit.ReasonRefused || r.Flagged || r.AnswerSHA256 != "" || r.Asks != 1 {
			t.Errorf("refused pair %+v", r)
		}
	}
	if !strings.Contains(res.report, "## Invalid answers (3)") || !strings.Contains(res.report, "| q1 | d02 | 1 | llm | refused | 1 | – |") {
		t.Errorf("report:\n%s", res.report)
	}
}

// TestAuditBadInput: a query without ratings, or a query rated as its own
// document, is bad input (exit 2) naming the query; nothing is written.
func TestAuditBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []dataset.Rating
		want string
	}{
		{"query without ratings", []dataset.Rating{{Query: "q1", Doc: "d01"}, {Query: "q2", Doc: "d01"}}, "query q3 has no ratings"},
		{"query rated as its own document", []dataset.Rating{{Query: "q1", Doc: "q1"}, {Query: "q2", Doc: "d01"}, {Query: "q3", Doc: "d01"}}, "query q1 is rated as its own document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := setup(t, "")
			root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
			stagetest.PutOne(t, root, cfg.Run, dataset.Ratings, tc.rows)
			for _, k := range []string{layout.DataKey(cfg.Run, dataset.Ratings.Name, shard.Spec{Index: 0, Count: 2}), layout.DoneKey(cfg.Run, dataset.Ratings.Name, shard.Spec{Index: 0, Count: 2}),
				layout.DataKey(cfg.Run, dataset.Ratings.Name, shard.Spec{Index: 1, Count: 2}), layout.DoneKey(cfg.Run, dataset.Ratings.Name, shard.Spec{Index: 1, Count: 2})} {
				if err := root.Delete(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			_, err := stage.RunShard(ctx, cfg, audit.Stage, audit.Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
			if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (exit %d), want exit 2 with %q", err, stage.ExitCode(err), tc.want)
			}
			if left, _ := root.List(ctx, cfg.Run+"/audit/"); len(left) != 0 {
				t.Errorf("wrote %v", left)
			}
		})
	}
}

// TestAuditReduceNeedsEveryQuery: an audit that misses a query of
// `queries` (from another selection) is refused by the reduce.
func TestAuditReduceNeedsEveryQuery(t *testing.T) {
	ctx := context.Background()
	cfg := setup(t, "")
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	stagetest.PutOne(t, root, cfg.Run, dataset.Audit, []dataset.AuditRow{{Query: "q1", Doc: "d01", Rank: 1, Verdict: audit.Distinct}})
	_, err := stage.RunShard(ctx, cfg, audit.Stage, audit.Stage.Steps[1], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "no audited pair for query q2") {
		t.Fatalf("err %v (exit %d)", err, stage.ExitCode(err))
	}
}

// TestUndeclared: the map cannot ask an LLM without declaring the cache.
func TestUndeclared(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	cfg := setup(t, fmt.Sprintf("llm: {base_url: %q, model: m}\naudit: {backend: llm}", srv.URL))
	root, _ := store.Open(context.Background(), cfg.RootURI(), store.Options{})
	step := audit.Stage.Steps[0]
	step.Cache = false
	env := stage.NewEnv(cfg, audit.Stage, step, shard.Spec{Index: 0, Count: 1}, root, root, zerolog.Nop())
	var ue *stage.UndeclaredError
	if err := step.Run(context.Background(), env); !errors.As(err, &ue) || srv.Requests() != 0 {
		t.Errorf("err %v, %d requests; want an UndeclaredError before any request", err, srv.Requests())
	}
}

// TestAuditStopsOnUnknownModel: a 404 (an unknown model) stops the map at
// once with exit 2 naming llm.model, instead of a "refused" pair each.
func TestAuditStopsOnUnknownModel(t *testing.T) {
	ctx := context.Background()
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "model not found", http.StatusNotFound)
	}))
	defer hs.Close()
	cfg := setup(t, fmt.Sprintf("llm: {base_url: %q, model: no-such-model, timeout_seconds: 5, concurrency: 1}\naudit: {backend: llm}", hs.URL+"/v1"))
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	_, err := stage.RunShard(ctx, cfg, audit.Stage, audit.Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(fmt.Sprint(err), `llm.model "no-such-model"`) || n.Load() != 1 {
		t.Fatalf("err = %v (exit %d) after %d requests; want exit 2 naming llm.model after 1", err, stage.ExitCode(err), n.Load())
	}
	if left, _ := root.List(ctx, cfg.Run+"/audit/"); len(left) != 0 {
		t.Errorf("wrote %v", left)
	}
}
