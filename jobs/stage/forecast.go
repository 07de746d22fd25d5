package stage

import (
	"context"
	"errors"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/lib/llmconf"
	"github.com/saber-math/saber/lib/ontology"
)

// ForecastFunc fills a step's forecast (`saber plan`): its Metrics, Rows
// and, for an LLM step, LLM. It must derive every number from in (the
// config, the inputs' rows, a sample) and say how in each Metric's Basis.
// An error wrapping ErrRowsUnknown (from in.Rows) makes the forecast a
// note instead of failing the plan.
type ForecastFunc func(ctx context.Context, in ForecastInput, out *plan.Step) error

// ErrRowsUnknown is returned (wrapped) by ForecastInput.Rows for a dataset
// that is neither complete nor forecast.
var ErrRowsUnknown = errors.New("rows not known")

// ForecastInput is what a step's Forecast reads. It is an interface,
// implemented by jobs/forecast, so that a declaration — which every stage
// binary links — can ask for an LLM step's sampled and measured costs
// without linking the LLM client that measures them.
type ForecastInput interface {
	// Config is the run's config.
	Config() *config.Config
	// Root is the run's storage, for a forecast that reads an input's rows.
	Root() store.Store
	// Measuring says whether `saber plan --measure` asks the server.
	Measuring() bool
	// Rows is the number of rows of a run dataset: the actual one when it
	// is complete, else its writer's forecast; basis says which. An
	// unknown dataset is an error wrapping ErrRowsUnknown.
	Rows(ctx context.Context, ds string) (n float64, basis string, err error)
	// Complete returns the manifests of a complete dataset (an error when
	// it is not, or when a rerun recomputes it).
	Complete(ctx context.Context, ds string) ([]*layout.Manifest, error)
	// Stats sums the statistics of a complete dataset's manifests (nil
	// when it is not complete).
	Stats(ctx context.Context, ds string) map[string]int64
	// Ontology is the run's ontology (benchmark.ontology), read by the
	// engine: a binary that never forecasts links no ontology loader.
	Ontology(ctx context.Context) (*ontology.Tree, error)
	// Sample is a seeded sample of up to plan.sample corpus documents (nil
	// when the corpus was never written).
	Sample(ctx context.Context) ([]dataset.Document, error)
	// Measured sends the sample through w with --measure's server, once
	// per step: the calls a row took (w.Row's) and how many rows.
	Measured(ctx context.Context, w *LLMWork) (perRow float64, rows int, err error)
	// Cached looks the sample up in the run's LLM cache, once per step,
	// without a server call; nil when there is no sample or w's requests
	// cannot be rebuilt from a document alone (w.NoLookup).
	Cached(ctx context.Context, w *LLMWork) (*CacheLook, error)
	// LLM fills out.LLM, and the metrics of its calls and tokens, for
	// calls calls of w sent in phases.
	LLM(ctx context.Context, out *plan.Step, calls float64, phases []plan.Phase, w *LLMWork) error
}

// LLMWork is how an LLM step asks the model, as its forecast tells the
// engine that samples, measures and looks up its prompts: the prompt and
// what fills it are the stage's, the client and its cache the engine's.
type LLMWork struct {
	// LLM is the step's client config (config.LLMFor of its section's).
	LLM llmconf.Config
	// Workers is the stage's workers setting (0: llm.concurrency).
	Workers int
	// Prompt is the prompt's name (lib/prompts).
	Prompt string
	// Data is the prompt's template data for the i-th of a sample of
	// documents (a comparison's other documents are the next ones).
	Data func(docs []dataset.Document, i int) any
	// Row, when set, is a document's whole work (tag's traversal of the
	// ontology): it asks through ask and returns the calls it made. Nil is
	// one call with Data.
	Row func(ctx context.Context, d dataset.Document, ask Ask) (calls int, err error)
	// ParseRetries re-ask an answer Row's parse refuses (the stage's own
	// setting), when measuring.
	ParseRetries int
	// CompletionGuess is the completion tokens of a well-formed answer,
	// when neither done shards, --measure nor llm.max_tokens say.
	CompletionGuess float64
	// NoLookup, when set, says why the run's cache cannot be looked up for
	// the step's requests (their prompts depend on what only the run
	// makes).
	NoLookup string
}

// Ask renders the work's prompt with data and asks the model (or, for a
// look-up, the run's cache), handing the answer to parse; an answer parse
// refuses is re-asked (measuring) or a miss (looking up).
type Ask func(ctx context.Context, data any, parse func(raw string) error) error

// ErrRowRejected marks an error of Row that the stage turns into a reject
// of the row (too many calls), not a failure: a measurement counts the
// row's calls, a look-up counts it as not cached.
var ErrRowRejected = errors.New("row rejected")

// CacheLook is what the run's LLM cache answers of a step's sample.
type CacheLook struct {
	Rows, Cached int // sampled rows, and those the cache answers whole
	// PerRow are the model's calls per row over the cached rows (tag's
	// traversal, read back from the cache); 0 when none is cached.
	PerRow float64
}

// CandidatesPerQuery reads the benchmark's size for the steps that work
// through it (judge, rate, evaluate, audit): the queries' rows, and the
// candidates' rows over them; basis is the queries'.
func CandidatesPerQuery(ctx context.Context, in ForecastInput) (queries, perQuery float64, basis string, err error) {
	queries, basis, err = in.Rows(ctx, dataset.Queries.Name)
	if err != nil {
		return 0, 0, "", err
	}
	cands, _, err := in.Rows(ctx, dataset.Candidates.Name)
	if err != nil {
		return 0, 0, "", err
	}
	if queries > 0 {
		perQuery = cands / queries
	}
	return queries, perQuery, basis, nil
}
