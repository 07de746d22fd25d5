// Package tag assigns ontology topics to every corpus document (paper
// §3.2.2, prompt F.1; SPEC §3 "Topic assignment"): the top-down traversal
// of lib/topics with one of two scorers, the LLM or the offline lexical
// one, and writes `topics`. A document whose answers stay unparseable goes
// to `tag_rejects` instead; every document lands in exactly one of the two.
package tag

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/tag/decl"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/lib/topics"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

// ReasonCallBudget rejects a document whose traversal needed more scorer
// calls than tag.max_calls allows: the document is kept out of `topics`
// (a half-traversed assignment would be a wrong one), and the shard goes
// on.
const ReasonCallBudget = "call_budget"

// budgetReject is the reject row of a document that exhausted the budget.
func budgetReject(id string, maxCalls int, err error) *dataset.Reject {
	return &dataset.Reject{Input: "tag", ID: id, Reason: ReasonCallBudget,
		Detail: fmt.Sprintf("%v; raise tag.max_calls (now %d) to tag it", err, maxCalls)}
}

// llmScorer asks the model (prompt F.1) to score a node's tags.
type llmScorer struct {
	client *llmcall.Client
}

// Score implements topics.Scorer. Tags the model was not offered are
// ignored, offered tags it left out score 0, and labels match without case
// or surrounding space.
func (s *llmScorer) Score(ctx context.Context, text topics.Text, tags []topics.Tag) ([]float64, error) {
	labels := make([]string, len(tags))
	for i, t := range tags {
		labels[i] = t.Label
	}
	return llmcall.Ask(ctx, s.client, PromptData(text, labels), func(raw string) ([]float64, error) {
		return ParseScores(raw, labels)
	})
}

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	docs, err := readers.ShardDocs(ctx, env)
	if err != nil {
		return err
	}
	tree, err := readers.Ontology(ctx, env)
	if err != nil {
		return err
	}
	if cfg.Backend == BackendSynthetic {
		return runSynthetic(ctx, env, docs, tree)
	}
	if !cfg.UsesLLM() {
		if err := labelOnlyGate(tree, cfg); err != nil {
			return err
		}
	}
	var scorer topics.Scorer = topics.NewLexical(tree)
	backend, model, version := "lexical", "", ""
	if cfg.UsesLLM() {
		client, record, err := llmcall.New(env, &cfg.Options, prompts.Topics)
		if err != nil {
			return err
		}
		defer record()
		scorer = &llmScorer{client: client}
		backend, model, version = client.Backend(), client.Model(), client.PromptVersion()
	}
	rows := make([]*dataset.TopicRow, len(docs))
	rejs := make([]*dataset.Reject, len(docs))
	prog := env.Progress("documents", int64(len(docs)))
	err = parallel.For(ctx, len(docs), cfg.InFlight(env.Config), func(ctx context.Context, i int) error {
		d := docs[i]
		a, err := topics.Assign(ctx, tree, scorer, topics.Text{Statement: d.Statement, Solution: d.Solution}, cfg.Tau, cfg.MaxCalls)
		if errors.Is(err, topics.ErrTooManyCalls) {
			rejs[i] = budgetReject(d.ID, cfg.MaxCalls, err)
			prog.Add(1)
			return nil
		}
		if err != nil {
			rej, err := llmcall.Reject("tag", d.ID, err)
			if err != nil {
				return fmt.Errorf("document %s: %w", d.ID, err)
			}
			rejs[i] = rej
			prog.Add(1)
			return nil
		}
		rows[i] = topicRow(tree, d.ID, a, backend, model, version)
		prog.Add(1)
		return nil
	})
	prog.Finish()
	if err != nil {
		return err
	}
	return finish(ctx, env, tree, docs, rows, rejs)
}

// labelOnlyGate stops the lexical backend before it tags anything when
// the ontology gives it too little to work with: fewer than
// topics.MinKeywordShare of the topics below the domains carry keywords,
// so that labels alone would decide (issue 38: MSC2020's "Farey
// sequences" on 23.5% of MATH). tag.allow_label_only overrides it.
func labelOnlyGate(tree *ontology.Tree, cfg *Config) error {
	n, share := topics.KeywordShare(tree)
	if cfg.AllowLabelOnly || n == 0 || share >= topics.MinKeywordShare {
		return nil
	}
	return stage.BadInput(fmt.Errorf("tag.backend lexical: only %.0f%% of the ontology's %d topics below the domains have keywords (at least %.0f%% needed): on labels alone the offline tagger's topics are mostly wrong; set tag.backend: llm, or add keywords to the ontology, or set tag.allow_label_only: true to tag anyway (a smoke test)",
		100*share, n, 100*topics.MinKeywordShare))
}

// ImplausibleTopicMsg is the log message of such a topic.
const ImplausibleTopicMsg = "topic on more of the documents than the ontology's size makes plausible: the scorer may match words every text has (tag.backend: llm, or give the ontology's nodes keywords; tag.max_topic_share sets a fixed share instead)"

// MinConcentrationDocs is the fewest documents on one topic that can make
// it implausibly common: on a shard of a few documents every topic holds
// a large share.
const MinConcentrationDocs = 20

// finish counts, logs and writes a shard's rows and rejects (one per
// document, nil where the other is set).
func finish(ctx context.Context, env *stage.Env, tree *ontology.Tree, docs []readers.Doc, rows []*dataset.TopicRow, rejs []*dataset.Reject) error {
	cfg := Section.Of(env.Config)
	var out []dataset.TopicRow
	var rejects []dataset.Reject
	for i := range docs {
		switch {
		case rows[i] != nil:
			r := rows[i]
			out = append(out, *r)
			env.Count("topics_total", int64(len(r.Topics)))
			env.Count("scorer_calls", int64(r.Calls))
			if len(r.Topics) == 0 {
				env.Count("no_topics", 1)
			}
			for _, p := range r.Topics {
				env.Count(fmt.Sprintf("topic_depth_%d", strings.Count(p, ontology.PathSep)+1), 1)
			}
			if r.Domain != "" {
				env.Count("domain_"+strings.ReplaceAll(strings.ToLower(r.Domain), " ", "_"), 1)
			}
		case rejs[i] != nil:
			rejects = append(rejects, *rejs[i])
			env.Count("rejected_"+rejs[i].Reason, 1)
		}
	}
	env.Count("documents", int64(len(docs)))
	env.Count("tagged", int64(len(out)))
	env.Log.Info().Int("documents", len(docs)).Int("tagged", len(out)).Int("rejects", len(rejects)).Msg("tagged")
	// The five commonest topics are logged, and every topic on more of the
	// documents than plausible warns: in the log, and through the
	// implausible_topics count of the manifest in `saber run`'s summary.
	atDepth := topics.TopicsAtDepth(tree)
	for i, ts := range commonTopics(out, 0) {
		limit := cfg.MaxTopicShare
		if limit == 0 {
			limit = topics.PlausibleShare(atDepth[min(strings.Count(ts.Topic, ontology.PathSep)+1, len(atDepth)-1)])
		}
		over := ts.Share > limit && ts.Docs >= MinConcentrationDocs
		if i >= 5 && !over {
			continue
		}
		ev, msg := env.Log.Info(), "common topic"
		if over {
			env.Count(StatImplausibleTopics, 1)
			ev, msg = env.Log.Warn(), ImplausibleTopicMsg
		}
		ev.Str("topic", ts.Topic).Int("documents", ts.Docs).Float64("share", ts.Share).Float64("plausible_share", limit).Msg(msg)
	}
	sample := ""
	if len(rejects) > 0 {
		sample = "document " + rejects[0].ID + ": " + rejects[0].Reason + ": " + rejects[0].Detail
	}
	if err := llmcall.RecordInvalidShare(env, "documents rejected", int64(len(rejects)), int64(len(docs)), "tag.max_invalid_share", cfg.MaxInvalidShare, sample); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Topics, out); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.TagRejects, rejects); err != nil {
		return err
	}
	return nil
}

// topicRow is the `topics` row of document id from its assignment.
func topicRow(tree *ontology.Tree, id string, a topics.Assignment, backend, model, version string) *dataset.TopicRow {
	row := &dataset.TopicRow{ID: id, Scores: a.Scores, Backend: backend, Model: model, PromptVersion: version, Calls: int32(a.Calls)}
	seen := map[int]bool{}
	for _, n := range a.Topics {
		row.Topics = append(row.Topics, tree.Path(n))
		if dom := tree.Domain(n); !seen[dom] {
			seen[dom] = true
			row.Domains = append(row.Domains, tree.Label(dom))
		}
	}
	if dom := topics.MainDomain(tree, a.Topics); dom >= 0 {
		row.Domain = tree.Label(dom)
	}
	return row
}

func runSynthetic(ctx context.Context, env *stage.Env, docs []readers.Doc, tree *ontology.Tree) error {
	gen, err := corpusdist.New(tree, env.RunSeed(), corpusdist.DefaultParams())
	if err != nil {
		return stage.BadInput(fmt.Errorf("tag.backend synthetic: %w (it draws from the default ontology's domains)", err))
	}
	rows := make([]*dataset.TopicRow, len(docs))
	prog := env.Progress("documents", int64(len(docs)))
	err = parallel.For(ctx, len(docs), stage.Workers(Section.Of(env.Config).Workers), func(_ context.Context, i int) error {
		d := gen.DocFor(docs[i].ID)
		a := topics.Assignment{Topics: d.Topics, Scores: make([]float64, len(d.Topics))}
		for k := range a.Scores {
			a.Scores[k] = 1
		}
		rows[i] = topicRow(tree, d.ID, a, BackendSynthetic, "", "")
		prog.Add(1)
		return nil
	})
	prog.Finish()
	if err != nil {
		return err
	}
	return finish(ctx, env, tree, docs, rows, make([]*dataset.Reject, len(docs)))
}
