package summarize_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/shard"
)

var one = shard.Spec{Index: 0, Count: 1}

// summary is a valid F.2 answer.
func summary() string {
	b, _ := json.Marshal(map[string]any{"noCoreIdea": false, "coreIdea": "factor the quadratic", "supportingIdeas": []string{"x"}, "keywords": []string{"y"}, "confidence": 0.8})
	return string(b)
}

// TestSummarizeInvalidShare: a model whose answers are mostly not the
// JSON asked for fails the shard (exit 2) naming the share,
// summarize.max_invalid_share and a sample reason, and nothing is
// written; a share under the threshold is written and counted.
func TestSummarizeInvalidShare(t *testing.T) {
	t.Setenv("SABER_TEST_UNSET_KEY", "")
	for _, tc := range []struct {
		name    string
		badFrom int // documents d<badFrom>... get a refusal
		fail    string
	}{
		{"all unparseable", 0, "10 of 10 documents rejected (100.0%)"},
		{"six of ten", 4, "6 of 10 documents rejected (60.0%)"},
		{"two of ten", 8, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
				// The document is in the first user message; a re-ask
				// appends the bad answer and a correction after it.
				var u string
				for _, m := range req.Messages {
					if m.Role == "user" {
						u = m.Content
						break
					}
				}
				for i := tc.badFrom; i < 10; i++ {
					if strings.Contains(u, fmt.Sprintf("problem number %d.", i)) {
						return "Sorry, I cannot summarise this."
					}
				}
				return summary()
			})
			cfg, err := config.Parse([]byte(fmt.Sprintf("run: r\nroot: mem\nlog: {progress_seconds: 0}\nllm: {base_url: %q, model: m, api_key_env: SABER_TEST_UNSET_KEY}\nsummarize: {backend: llm, parse_retries: 1}\n", srv.URL)), summarize.Section)
			if err != nil {
				t.Fatal(err)
			}
			root := store.NewMem()
			var docs []dataset.Document
			for i := range 10 {
				docs = append(docs, dataset.Document{ID: fmt.Sprintf("d%d", i), Statement: fmt.Sprintf("Solve problem number %d.", i), Solution: "Factor it."})
			}
			stagetest.PutOne(t, root, "r", dataset.Corpus, docs)
			res, err := stage.RunShard(ctx, cfg, summarize.Stage, summarize.Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
			if tc.fail == "" {
				if err != nil {
					t.Fatal(err)
				}
				if st := res.Manifest.Stats; st[llmcall.StatInvalidShareCount] != 2 || st[llmcall.StatInvalidShareOf] != 10 {
					t.Errorf("stats %v; want an invalid share of 2 of 10", st)
				}
				return
			}
			for _, w := range []string{tc.fail, "summarize.max_invalid_share = 0.5", "unparseable_answer"} {
				if !strings.Contains(fmt.Sprint(err), w) {
					t.Errorf("err = %v; want %q in it", err, w)
				}
			}
			if stage.ExitCode(err) != stage.ExitBadInput {
				t.Errorf("exit %d, want 2", stage.ExitCode(err))
			}
			for _, k := range stage.DoneKeys("r", summarize.Stage.Steps[0], one) {
				if done, _ := layout.Done(ctx, root, k); done {
					t.Errorf("manifest %s written", k)
				}
			}
			if left, _ := root.List(ctx, "r/summaries/"); len(left) != 0 {
				t.Errorf("wrote %v", left)
			}
		})
	}
}

// TestSummarizeSynthetic: the synthetic backend gives each document the
// core idea lib/synth/corpusdist draws for its id under the run seed
// (the draw tag's synthetic backend takes its topics from), and changing
// the seed changes them.
func TestSummarizeSynthetic(t *testing.T) {
	ctx := context.Background()
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2} {
		cfg, err := config.Parse([]byte(fmt.Sprintf("run: r\nroot: mem\nseed: %d\nlog: {progress_seconds: 0}\nsummarize: {backend: synthetic}\n", seed)), summarize.Section)
		if err != nil {
			t.Fatal(err)
		}
		root := store.NewMem()
		var docs []dataset.Document
		for i := range 200 {
			docs = append(docs, dataset.Document{ID: fmt.Sprintf("d%03d", i), Statement: "s", Solution: "x"})
		}
		stagetest.PutOne(t, root, "r", dataset.Corpus, docs)
		if _, err := stage.RunShard(ctx, cfg, summarize.Stage, summarize.Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{}); err != nil {
			t.Fatal(err)
		}
		rows, err := dataset.Read[dataset.Summary](ctx, root, layout.DataKey("r", dataset.Summaries.Name, one))
		if err != nil {
			t.Fatal(err)
		}
		gen, err := corpusdist.New(tree, seed, corpusdist.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		noIdea := 0
		for i, r := range rows {
			want := gen.DocFor(docs[i].ID)
			if r.ID != docs[i].ID || r.CoreIdea != want.CoreIdea || r.NoCoreIdea != want.NoCoreIdea || r.Backend != "synthetic" {
				t.Fatalf("seed %d: row %d is %+v, want the core idea %q (none: %v), backend synthetic", seed, i, r, want.CoreIdea, want.NoCoreIdea)
			}
			if r.NoCoreIdea {
				noIdea++
			}
		}
		if len(rows) != len(docs) || noIdea > 20 {
			t.Errorf("seed %d: %d rows of %d documents, %d without a core idea", seed, len(rows), len(docs), noIdea)
		}
	}
}

// TestSummarizeTooLongAndEmpty: too_long is true whenever the stored core
// idea was cut (extractive) or is over the limit (a model's, kept as
// answered); a row with a core idea never has an empty one; why a row has
// none is counted per reason.
func TestSummarizeTooLongAndEmpty(t *testing.T) {
	t.Setenv("SABER_TEST_UNSET_KEY", "")
	long := strings.TrimSpace(strings.Repeat("count the ordered lattice points ", 8))
	docs := []dataset.Document{
		{ID: "a-whole", Statement: "s", Solution: "Let $x=2$. Substitute it into the quadratic and simplify the expression to obtain the value."},
		{ID: "b-cut", Statement: "s", Solution: "We " + long + " now."},
		{ID: "c-maths", Statement: "s", Solution: "$1+1=\\boxed{2}$"},
		{ID: "d-formula", Statement: "s", Solution: "Then $" + strings.Repeat("x + ", 20) + "1$ is the sum of squares of the real numbers here."},
	}
	srv := llmtest.NewServer(t, func(req llmtest.ChatRequest) string {
		b, _ := json.Marshal(map[string]any{"noCoreIdea": false, "coreIdea": long, "confidence": 0.8})
		return string(b)
	})
	for _, tc := range []struct {
		backend string
		want    map[string][2]bool // id → too_long, no_core_idea
		stats   map[string]int64
	}{
		{"extractive",
			map[string][2]bool{"a-whole": {false, false}, "b-cut": {true, false}, "c-maths": {false, true}, "d-formula": {false, true}},
			map[string]int64{"core_idea_too_long": 1, "core_idea_cut": 1, "no_core_idea": 2, "no_core_idea_no_prose_sentence": 1, "no_core_idea_nothing_fits": 1}},
		{"llm",
			map[string][2]bool{"a-whole": {true, false}, "b-cut": {true, false}, "c-maths": {true, false}, "d-formula": {true, false}},
			map[string]int64{"core_idea_too_long": 4, "core_idea_cut": 0, "no_core_idea": 0}},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			ctx := context.Background()
			cfg, err := config.Parse([]byte(fmt.Sprintf("run: r\nroot: mem\nlog: {progress_seconds: 0}\nllm: {base_url: %q, model: m, api_key_env: SABER_TEST_UNSET_KEY}\nsummarize: {backend: %s}\n", srv.URL, tc.backend)), summarize.Section)
			if err != nil {
				t.Fatal(err)
			}
			root := store.NewMem()
			stagetest.PutOne(t, root, "r", dataset.Corpus, docs)
			res, err := stage.RunShard(ctx, cfg, summarize.Stage, summarize.Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := dataset.Read[dataset.Summary](ctx, root, layout.DataKey("r", dataset.Summaries.Name, one))
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(docs) {
				t.Fatalf("%d rows of %d documents", len(rows), len(docs))
			}
			for _, r := range rows {
				if w := tc.want[r.ID]; r.TooLong != w[0] || r.NoCoreIdea != w[1] {
					t.Errorf("%s: too_long %v, no_core_idea %v; want %v, %v (core idea %q)", r.ID, r.TooLong, r.NoCoreIdea, w[0], w[1], r.CoreIdea)
				}
				if !r.NoCoreIdea && strings.TrimSpace(r.CoreIdea) == "" {
					t.Errorf("%s: flagged as having a core idea, but it is empty", r.ID)
				}
				if r.TooLong && tc.backend == "extractive" && (!strings.HasSuffix(r.CoreIdea, "…") || r.CoreIdeaWords > 30) {
					t.Errorf("%s: cut core idea %q (%d words) not marked or over the limit", r.ID, r.CoreIdea, r.CoreIdeaWords)
				}
			}
			for k, v := range tc.stats {
				if got := res.Manifest.Stats[k]; got != v {
					t.Errorf("stat %s = %d, want %d (stats %v)", k, got, v, res.Manifest.Stats)
				}
			}
		})
	}
}
