package decl

import (
	"context"
	"errors"
	"fmt"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/topics"
)

// forecast: each document's traversal of the ontology makes a number of
// scorer calls (callsPerDoc); with the llm backend each is a model call,
// a document's made one after another.
func forecast(ctx context.Context, in stage.ForecastInput, out *plan.Step) error {
	docs, basis, err := in.Rows(ctx, dataset.Corpus.Name)
	if err != nil {
		return err
	}
	cfg := Section.Of(in.Config())
	out.Metrics = append(out.Metrics, plan.Metric{Name: "documents", Value: docs, Stats: []string{"documents"}, Basis: basis})
	tree, err := in.Ontology(ctx)
	if err != nil {
		return err
	}
	w := llmWork(in.Config(), cfg, tree)
	perDoc, how, err := callsPerDoc(ctx, in, cfg, tree, w)
	if err != nil {
		return err
	}
	calls := docs * perDoc
	out.Metrics = append(out.Metrics, plan.Metric{Name: "scorer calls", Value: calls, Stats: []string{"scorer_calls"},
		Basis: fmt.Sprintf("%.2f calls per document (%s) × documents", perDoc, how)})
	out.Rows[dataset.Topics.Name] = docs
	if cfg.Backend != llmstage.BackendLLM {
		return nil
	}
	// A document's traversal is a chain: each level's call waits for the
	// scores of the one above.
	return in.LLM(ctx, out, calls, []plan.Phase{{Name: "documents", Items: docs, Chain: perDoc}}, w)
}

// llmWork is how the llm backend asks: F.1 over each document's whole
// traversal, with the stage's prompt data, parsing and re-asks.
func llmWork(core *config.Config, cfg *Config, tree *ontology.Tree) *stage.LLMWork {
	domains := topics.DomainLabels(tree)
	return &stage.LLMWork{
		LLM:     core.LLMFor(cfg.LLM),
		Workers: cfg.Workers,
		Prompt:  "topics", // F.1 (lib/prompts, which this package does not link)
		// A sampled prompt is a traversal's first: the document against
		// the domains.
		Data: func(docs []dataset.Document, i int) any {
			return PromptData(topics.Text{Statement: docs[i].Statement, Solution: docs[i].Solution}, domains)
		},
		Row: func(ctx context.Context, d dataset.Document, ask stage.Ask) (int, error) {
			a, err := topics.Assign(ctx, tree, askScorer{ask}, topics.Text{Statement: d.Statement, Solution: d.Solution}, cfg.Tau, cfg.MaxCalls)
			if errors.Is(err, topics.ErrTooManyCalls) {
				// The stage rejects the document (ReasonCallBudget).
				err = fmt.Errorf("%w: %w", stage.ErrRowRejected, err)
			}
			return a.Calls, err
		},
		ParseRetries:    cfg.ParseRetries,
		CompletionGuess: 60, // a JSON object of a few tag scores
	}
}

// askScorer is the stage's llm scorer over a stage.Ask: the same prompt
// data and parsing, the model (or the run's cache) the forecast's.
type askScorer struct{ ask stage.Ask }

func (s askScorer) Score(ctx context.Context, text topics.Text, tags []topics.Tag) ([]float64, error) {
	labels := make([]string, len(tags))
	for i, t := range tags {
		labels[i] = t.Label
	}
	var scores []float64
	err := s.ask(ctx, PromptData(text, labels), func(raw string) error {
		var err error
		scores, err = ParseScores(raw, labels)
		return err
	})
	return scores, err
}

// callsPerDoc is the scorer calls per document: the model's traversal of
// a seeded corpus sample (--measure, or read back from the run's cache
// when an earlier run tagged some of it), else the lexical traversal of
// the sample (the tag backend's own with backend: lexical; a proxy for the
// llm's), else, with no corpus yet, the ontology's descent cost (a floor:
// one kept child per level).
func callsPerDoc(ctx context.Context, in stage.ForecastInput, cfg *Config, tree *ontology.Tree, w *stage.LLMWork) (float64, string, error) {
	docs, err := in.Sample(ctx)
	if err != nil {
		return 0, "", err
	}
	llm := cfg.Backend == llmstage.BackendLLM
	if len(docs) > 0 && llm && in.Measuring() {
		perRow, rows, err := in.Measured(ctx, w)
		if err != nil {
			return 0, "", fmt.Errorf("--measure: %w", err)
		}
		return perRow, fmt.Sprintf("--measure: the model's traversal of %d sampled documents", rows), nil
	}
	if len(docs) > 0 && llm {
		// The model's own traversals, read back from the run's cache,
		// when earlier runs tagged some of the sample (a rebuild).
		look, err := in.Cached(ctx, w)
		if err != nil {
			return 0, "", err
		}
		if look != nil && look.Cached > 0 {
			return look.PerRow, fmt.Sprintf("the model's traversal of the %d of %d sampled documents the run's LLM cache answers", look.Cached, look.Rows), nil
		}
	}
	if len(docs) == 0 {
		return tree.DescentCalls(), fmt.Sprintf("the ontology's descent cost, one kept child per level over %d nodes: a floor, as documents keep several", tree.Len()), nil
	}
	lex := topics.NewLexical(tree)
	var calls float64
	for _, d := range docs {
		a, err := topics.Assign(ctx, tree, lex, topics.Text{Statement: d.Statement, Solution: d.Solution}, cfg.Tau, cfg.MaxCalls)
		if err != nil && ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		calls += float64(a.Calls)
	}
	how := fmt.Sprintf("the lexical traversal of %d sampled documents", len(docs))
	if llm {
		how += ", a proxy for the model's (--measure asks it)"
	}
	return calls / float64(len(docs)), how, nil
}
