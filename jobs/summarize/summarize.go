// Package summarize extracts each corpus document's solution summary
// (paper §3.3, prompt F.2; SPEC §3 "Summaries") with an LLM, or offline
// with an extractive backend, and writes `summaries`. A document whose
// answer stays unparseable after the re-asks goes to `summary_rejects`
// instead: every document of the shard lands in exactly one of the two.
package summarize

import (
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize/decl"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/summary"
	"github.com/saber-math/saber/lib/synth/corpusdist"
)

// Stage is the stage declared in decl, with its steps' work.
var Stage = stage.Implement(decl.Stage, map[string]stage.RunFunc{"map": run})

func run(ctx context.Context, env *stage.Env) error {
	cfg := Section.Of(env.Config)
	docs, err := readers.ShardDocs(ctx, env)
	if err != nil {
		return err
	}
	var synthetic *corpusdist.Generator
	if cfg.Backend == BackendSynthetic {
		tree, err := readers.Ontology(ctx, env)
		if err != nil {
			return err
		}
		if synthetic, err = corpusdist.New(tree, env.RunSeed(), corpusdist.DefaultParams()); err != nil {
			return stage.BadInput(fmt.Errorf("summarize.backend synthetic: %w (it draws from the default ontology's domains)", err))
		}
	}
	useLLM := cfg.UsesLLM()
	var client *llmcall.Client
	backend, model, version := "extractive", "", ""
	if synthetic != nil {
		backend = BackendSynthetic
	}
	if useLLM {
		var record func()
		if client, record, err = llmcall.New(env, &cfg.Options, prompts.Summary); err != nil {
			return err
		}
		defer record()
		backend, model, version = client.Backend(), client.Model(), client.PromptVersion()
	}
	rows := make([]*dataset.Summary, len(docs))
	rejs := make([]*dataset.Reject, len(docs))
	// Why a row has no core idea, and whether its core idea was cut:
	// counted, not stored (the summaries schema has no column for them).
	reasons := make([]string, len(docs))
	cut := make([]bool, len(docs))
	prog := env.Progress("summaries", int64(len(docs)))
	err = parallel.For(ctx, len(docs), cfg.InFlight(env.Config), func(ctx context.Context, i int) error {
		d := docs[i]
		var s summary.Summary
		if useLLM {
			var err error
			s, err = llmcall.Ask(ctx, client, map[string]string{"Problem": d.Statement, "Solution": d.Solution}, summary.Parse)
			if err != nil {
				rej, err := llmcall.Reject("summarize", d.ID, err)
				if err != nil {
					return fmt.Errorf("document %s: %w", d.ID, err)
				}
				rejs[i] = rej
				prog.Add(1)
				return nil
			}
		} else if synthetic != nil {
			g := synthetic.DocFor(d.ID)
			s = summary.Summary{CoreIdea: g.CoreIdea, NoCoreIdea: g.NoCoreIdea}
			if s.NoCoreIdea {
				s.NoCoreIdeaReason = BackendSynthetic
			}
		} else {
			s = summary.Extractive(d.Statement, d.Solution)
		}
		if !s.NoCoreIdea && strings.TrimSpace(s.CoreIdea) == "" {
			// A row flagged as having a core idea never has an empty one
			// (pairs would compare it as no tokens): said, and counted.
			s = summary.Summary{NoCoreIdea: true, NoCoreIdeaReason: summary.ReasonEmpty, Keywords: s.Keywords, Confidence: s.Confidence}
		}
		if s.NoCoreIdea {
			s.CoreIdea = ""
		}
		reasons[i], cut[i] = s.NoCoreIdeaReason, s.Cut
		rows[i] = &dataset.Summary{
			ID: d.ID, NoCoreIdea: s.NoCoreIdea, CoreIdea: s.CoreIdea, CoreIdeaWords: int32(summary.Words(s.CoreIdea)),
			TooLong: s.TooLong(), SupportingIdeas: s.SupportingIdeas, Keywords: s.Keywords, Confidence: s.Confidence,
			Backend: backend, Model: model, PromptVersion: version,
		}
		prog.Add(1)
		return nil
	})
	prog.Finish()
	if err != nil {
		return err
	}
	var out []dataset.Summary
	var rejects []dataset.Reject
	var words, noIdea int64
	for i := range docs {
		switch {
		case rows[i] != nil:
			out = append(out, *rows[i])
			words += int64(rows[i].CoreIdeaWords)
			if rows[i].NoCoreIdea {
				env.Count("no_core_idea", 1)
				if reasons[i] != "" {
					env.Count("no_core_idea_"+reasons[i], 1)
				}
				noIdea++
			}
			if rows[i].TooLong {
				env.Count("core_idea_too_long", 1)
			}
			if cut[i] {
				env.Count("core_idea_cut", 1)
			}
		case rejs[i] != nil:
			rejects = append(rejects, *rejs[i])
			env.Count("rejected_"+rejs[i].Reason, 1)
		}
	}
	env.Count("documents", int64(len(docs)))
	env.Count("summaries", int64(len(out)))
	env.Count("core_idea_words_total", words)
	env.Log.Info().Int("documents", len(docs)).Int("summaries", len(out)).Int("rejects", len(rejects)).Msg("summarized")
	if noIdea > 0 && !useLLM && synthetic == nil {
		// Said, not hidden: these rows carry no_core_idea and an empty core
		// idea, which select and report show as such.
		env.Log.Info().Int64("no_core_idea", noIdea).Msg("extractive: solutions with no sentence of four prose words (maths, drawings and stop words not counted), or none whose clauses keep four within 30 words without cutting a formula, have no core idea (no_core_idea_<reason> counts them)")
	}
	sample := ""
	if len(rejects) > 0 {
		sample = "document " + rejects[0].ID + ": " + rejects[0].Reason + ": " + rejects[0].Detail
	}
	if err := llmcall.RecordInvalidShare(env, "documents rejected", int64(len(rejects)), int64(len(docs)), "summarize.max_invalid_share", cfg.MaxInvalidShare, sample); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.Summaries, out); err != nil {
		return err
	}
	if err := stage.WriteOutput(ctx, env, dataset.SummaryRejects, rejects); err != nil {
		return err
	}
	return nil
}
