package forecast

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/jobs/stages/stagestest"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/lib/topics"
	"github.com/saber-math/saber/shard"
)

// promptLog records every chat prompt the fake server answers, by kind.
type promptLog struct {
	mu   sync.Mutex
	seen map[string]int // user prompt → times the server answered it
	kind map[string]int // kind → server calls
	list map[string][]string
}

func newPromptLog() *promptLog {
	return &promptLog{seen: map[string]int{}, kind: map[string]int{}, list: map[string][]string{}}
}

// promptKind tells fakeModel's three prompts apart, as it does.
func promptKind(user string) string {
	switch {
	case strings.Contains(user, "[Sample 1]"):
		return "judge"
	case strings.Contains(user, "Solution:") && !strings.Contains(user, "JSON:"):
		return "summary"
	case strings.Contains(user, "JSON:"):
		return "topics"
	}
	return "other"
}

func (l *promptLog) handler(req llmtest.ChatRequest) string {
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	l.mu.Lock()
	l.seen[user]++
	k := promptKind(user)
	l.kind[k]++
	l.list[k] = append(l.list[k], user)
	l.mu.Unlock()
	return fakeModel(req)
}

// chats is the number of chat requests answered in this phase.
func (l *promptLog) chats() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.kind {
		n += c
	}
	return n
}

// reset starts a new phase and returns the prompts of the one before.
func (l *promptLog) reset() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.seen
	l.seen, l.kind, l.list = map[string]int{}, map[string]int{}, map[string][]string{}
	return old
}

// rerunStale runs the named stages in-process the way `saber run
// --rerun-stale` does (Graph.runLocal): Prepare invalidates the stale
// shards and every shard downstream of them, and before each step the
// step is checked again (a step recomputed with other bytes makes its
// readers stale in the same run), then only its missing shards run. It
// returns what Prepare said it recomputed.
func rerunStale(t *testing.T, cfg *config.Config, root store.Store, list string) string {
	t.Helper()
	ctx := context.Background()
	g := pipeline.Default()
	sel, err := pipeline.Select(cfg, list)
	if err != nil {
		t.Fatal(err)
	}
	nodes := g.NodesOf(sel)
	p := g.NewPlanner(cfg, root)
	var said bytes.Buffer
	rerun := pipeline.Rerun{Stale: true}
	if err := g.Prepare(ctx, p, nodes, rerun, &said); err != nil {
		t.Fatal(err)
	}
	for _, i := range nodes {
		if err := g.Prepare(ctx, p, []int{i}, rerun, &said); err != nil {
			t.Fatal(err)
		}
		sp, err := p.Plan(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		n := g.Nodes()[i]
		fmt.Fprintf(&said, "%s: ran %v of %d\n", n, sp.Missing, sp.Shards)
		for _, s := range sp.Missing {
			if _, err := stage.RunShard(ctx, cfg, stages.Of(n.Stage), n.Step, shard.Spec{Index: s, Count: sp.Shards}, root, zerolog.Nop(), stage.Options{}); err != nil {
				t.Fatalf("%s %d/%d: %v", n, s, sp.Shards, err)
			}
		}
		p.Forget(i)
	}
	return said.String()
}

func readRows[T any](t *testing.T, root store.Store, run, ds string) []T {
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
	return out
}

// judgmentKey is what a judge prompt is made of: the query and the two
// samples in the order shown.
func judgmentKey(j dataset.Judgment) string { return j.Query + "\x00" + j.Sample1 + "\x00" + j.Sample2 }

// TestRebuildAddingASource is issue 23's incremental rebuild: a run
// finished through rate with every LLM stage on the fake server; a second
// source is added to ingest.sources and what is stale is rerun the way
// `saber run --rerun-stale` decides it. The server then sees tag's and
// summarize's prompts for the new documents only (each prompt holds a new
// document's text, tag's calls are the new documents' traversals,
// summarize's one per new document) and judge's for the comparisons not
// judged before, and no prompt it answered in the first run. The plain
// forecast (no --measure) made before each GPU phase of the rebuild says
// how many calls the run's cache saves, and the calls left are the calls
// made, within 10%.
func TestRebuildAddingASource(t *testing.T) {
	ctx := context.Background()
	log := newPromptLog()
	srv := llmtest.NewServer(t, log.handler)
	t.Setenv("SABER_TEST_LLM_KEY", "sk-test")
	dir := t.TempDir()
	write := func(name string, c synth.Config) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := synth.Write(f, c); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("synth.jsonl", synth.Config{N: 160, Seed: 11})
	write("more.jsonl", synth.Config{N: 40, Seed: 12, IDPrefix: "more"})
	// Without the position audit: its swapped calls are judge calls
	// too, which the count of new comparisons below does not include.
	y := strings.Replace(fmt.Sprintf(fakeYAML, dir, srv.URL, dir), ", position_audit: 0.2", "", 1)
	cfg, err := pipeline.ParseConfig([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if judge.Section.Of(cfg).PositionAudit != 0 {
		t.Fatal("fakeYAML's judge changed: update this test")
	}
	first := `fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}`
	if !strings.Contains(y, first+"]") {
		t.Fatal("fakeYAML's source changed: update this test")
	}
	y2 := strings.Replace(y, first+"]", first+fmt.Sprintf(", {name: more, paths: [%s/more.jsonl], %s]", dir, first), 1)
	// The plan's sample covers the corpus: the new documents are a fifth
	// of it, which a 40-document sample measures to ±6 points, ±30% of
	// the calls left to make; the 10% bar needs the whole corpus.
	y2 = strings.Replace(y2, "plan: {sample: 40}", "plan: {sample: 400}", 1)
	cfg2, err := pipeline.ParseConfig([]byte(y2))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	all := "ingest,dedup,tag,summarize,pairs,calibrate,select,judge,rate"
	stagestest.Run(t, cfg, root, all)
	oldCorpus := map[string]bool{}
	for _, d := range readRows[dataset.Document](t, root, cfg.Run, dataset.Corpus.Name) {
		oldCorpus[d.ID] = true
	}
	oldJudged := map[string]bool{}
	for _, j := range readRows[dataset.Judgment](t, root, cfg.Run, dataset.Judgments.Name) {
		oldJudged[judgmentKey(j)] = true
	}
	answered := log.reset()

	// The rebuild, phase by phase as an admin would run it, with the
	// plain forecast of the GPU steps made before each LLM phase.
	sel, err := pipeline.Select(cfg2, "")
	if err != nil {
		t.Fatal(err)
	}
	plan := func(keep ...string) map[string]*Step {
		t.Helper()
		// It may count tokens with the server's /tokenize, but asks
		// the model nothing: the cache is read, not filled.
		before := log.chats()
		steps, err := Forecast(ctx, cfg2, pipeline.Default(), sel, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := log.chats() - before; n != 0 {
			t.Fatalf("the plain forecast sent %d chat requests to the server", n)
		}
		out := map[string]*Step{}
		for _, st := range steps {
			for _, k := range keep {
				if st.Stage == k {
					out[k] = st
				}
			}
		}
		return out
	}
	// Right after the source is added, every step is stale: the plan
	// samples the last run's corpus, which the cache answers, and counts
	// the rows beyond it as new. Once ingest and dedup reran, it samples
	// the rebuild's corpus itself.
	early := plan("tag", "summarize")
	said := rerunStale(t, cfg2, root, "ingest,dedup")
	forecast := plan("tag", "summarize")
	said += rerunStale(t, cfg2, root, "tag,summarize,pairs,calibrate,select")
	for k, v := range plan("judge") {
		forecast[k] = v
	}
	said += rerunStale(t, cfg2, root, "judge,rate")
	t.Logf("the rebuild:\n%s", said)

	var newDocs []dataset.Document
	for _, d := range readRows[dataset.Document](t, root, cfg2.Run, dataset.Corpus.Name) {
		if !oldCorpus[d.ID] {
			newDocs = append(newDocs, d)
		}
	}
	if len(newDocs) == 0 {
		t.Fatal("the added source brought no new document into the corpus")
	}
	var newCalls int
	for _, r := range readRows[dataset.TopicRow](t, root, cfg2.Run, dataset.Topics.Name) {
		if !oldCorpus[r.ID] {
			newCalls += int(r.Calls)
		}
	}
	need := traversalPrompts(t, cfg2, newDocs)
	newRejects := 0
	for _, r := range readRows[dataset.Reject](t, root, cfg2.Run, "tag_rejects") {
		if !oldCorpus[r.ID] {
			newRejects++
		}
	}
	var newJudgments, judgments int
	for _, j := range readRows[dataset.Judgment](t, root, cfg2.Run, dataset.Judgments.Name) {
		judgments++
		if !oldJudged[judgmentKey(j)] {
			newJudgments += int(max(j.Asks, 1))
		}
	}

	// No prompt the first run paid for reaches the server again.
	for p, n := range log.seen {
		if answered[p] > 0 {
			t.Errorf("a %s prompt answered in the first run was sent again (%d times): %.120q", promptKind(p), n, p)
		}
	}
	// Tag's and summarize's prompts are the new documents' only.
	for _, kind := range []string{"topics", "summary"} {
		for _, p := range log.list[kind] {
			found := false
			for _, d := range newDocs {
				if strings.Contains(p, d.Statement) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("a %s prompt of no new document reached the server: %.120q", kind, p)
			}
		}
	}
	if got := log.kind["summary"]; got != len(newDocs) {
		t.Errorf("summarize made %d calls for %d new documents", got, len(newDocs))
	}
	// A traversal may ask one prompt twice (two nodes with the same label
	// and children): the cache answers the second, so the server sees
	// the distinct prompts of the new documents' traversals, each once.
	if got := log.kind["topics"]; got != need || newRejects > 0 {
		t.Errorf("tag made %d calls; the %d new documents' traversals ask %d distinct prompts in %d calls (%d new rejects)", got, len(newDocs), need, newCalls, newRejects)
	}
	for p, n := range log.seen {
		if n > 1 {
			t.Errorf("a %s prompt reached the server %d times in the rebuild", promptKind(p), n)
		}
	}
	if got := log.kind["judge"]; got != newJudgments {
		t.Errorf("judge made %d calls for %d comparisons not judged before (of %d)", got, newJudgments, judgments)
	}
	t.Logf("new documents %d; server calls: tag %d, summarize %d, judge %d (%d of %d comparisons new)",
		len(newDocs), log.kind["topics"], log.kind["summary"], log.kind["judge"], newJudgments, judgments)

	// The plan said so: the calls the cache does not save are the calls
	// made, within 10%. Judge's plain forecast does not look its
	// comparisons up (they depend on the rebuild's candidates and on the
	// answers of each Swiss round), so it counts every comparison: an
	// upper bound of the calls.
	check := func(when string, forecast map[string]*Step, kind, stageName string, bound bool) {
		t.Helper()
		st := forecast[stageName]
		if st == nil || st.LLM == nil {
			t.Errorf("%s: no LLM forecast of %s", when, stageName)
			return
		}
		left := st.LLM.Calls - st.LLM.SavedCalls
		made := float64(log.kind[kind])
		b, _ := json.Marshal(st)
		switch {
		case bound && left < made:
			t.Errorf("%s: %s: the plan left %.0f calls to make, %.0f were made: not an upper bound (%s)", when, stageName, left, made, b)
		case !bound && (made == 0 && left > 0.5 || made > 0 && (left/made < 0.9 || left/made > 1.1)):
			t.Errorf("%s: %s: the plan left %.0f calls to make, %.0f were made: not within 10%% (%s)", when, stageName, left, made, b)
		default:
			t.Logf("%s: %s: forecast %.0f calls left of %.0f, %.0f made", when, stageName, left, st.LLM.Calls, made)
		}
	}
	for _, f := range []struct {
		when     string
		forecast map[string]*Step
	}{{"before the rebuild", early}, {"once the corpus is rebuilt", forecast}} {
		check(f.when, f.forecast, "topics", "tag", false)
		check(f.when, f.forecast, "summary", "summarize", false)
	}
	check("once the benchmark is selected", forecast, "judge", "judge", true)
}

// traversalPrompts is the number of distinct prompts tag's traversals of
// docs ask: the stage's own scorer, on a server of its own with no cache.
func traversalPrompts(t *testing.T, cfg *config.Config, docs []dataset.Document) int {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
		b, _ := json.Marshal(req.Messages)
		mu.Lock()
		seen[string(b)] = true
		mu.Unlock()
		return fakeModel(req)
	})
	tcfg := tag.Section.Of(cfg)
	lcfg := cfg.LLMFor(tcfg.LLM)
	lcfg.BaseURL = srv.URL
	client, err := llm.New(lcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	scorer, err := tag.NewLLMScorer(client, tcfg.ParseRetries)
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := readers.LoadOntology(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := topics.Assign(ctx, tree, scorer, topics.Text{Statement: d.Statement, Solution: d.Solution}, tcfg.Tau, tcfg.MaxCalls); err != nil {
			t.Fatalf("%s: %v", d.ID, err)
		}
	}
	return len(seen)
}
