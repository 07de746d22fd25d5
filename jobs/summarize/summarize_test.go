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
				if st := res.Manifest.Stats; st[stage.StatInvalidShareCount] != 2 || st[stage.StatInvalidShareOf] != 10 {
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
