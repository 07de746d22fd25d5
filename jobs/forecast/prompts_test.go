package forecast

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/topics"
)

// recorder is a stage.ForecastInput with ten rows of every dataset, no
// sample, and no server: it keeps the LLM work each forecast asks for.
type recorder struct {
	cfg   *config.Config
	works []*stage.LLMWork
}

func (r *recorder) Config() *config.Config { return r.cfg }
func (r *recorder) Root() store.Store      { return nil }
func (r *recorder) Measuring() bool        { return false }
func (r *recorder) Rows(context.Context, string) (float64, string, error) {
	return 10, "ten rows", nil
}
func (r *recorder) Complete(context.Context, string) ([]*layout.Manifest, error) {
	return nil, errors.New("not complete")
}
func (r *recorder) Ontology(ctx context.Context) (*ontology.Tree, error) {
	tree, _, err := readers.LoadOntology(ctx, r.cfg)
	return tree, err
}
func (r *recorder) Stats(context.Context, string) map[string]int64                   { return nil }
func (r *recorder) Sample(context.Context) ([]dataset.Document, error)               { return nil, nil }
func (r *recorder) Cached(context.Context, *stage.LLMWork) (*stage.CacheLook, error) { return nil, nil }
func (r *recorder) Measured(context.Context, *stage.LLMWork) (float64, int, error) {
	return 0, 0, errors.New("not measured")
}
func (r *recorder) LLM(_ context.Context, _ *plan.Step, _ float64, _ []plan.Phase, w *stage.LLMWork) error {
	r.works = append(r.works, w)
	return nil
}

// TestDeclaredPromptDataIsTheStages: a declaration fills its prompt with a
// map (it links no prompt code, whose types live beside the LLM client),
// so nothing but this test ties the map's keys to the fields of the
// prompt's data type: each LLM step's sampled prompt renders the same
// bytes as the stage's own data would — a document (F.1 against the
// ontology's domains, F.2), against the next two (F.3) or the next (A.1).
func TestDeclaredPromptDataIsTheStages(t *testing.T) {
	ctx := context.Background()
	cfg, err := pipeline.ParseConfig([]byte(`run: p
root: /nonexistent
llm: {base_url: "http://127.0.0.1:1", model: m}
tag: {backend: llm}
summarize: {backend: llm}
judge: {backend: llm, rounds: 3}
audit: {backend: llm}
`))
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := readers.LoadOntology(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]func(docs []dataset.Document, i int) any{
		prompts.Topics: func(docs []dataset.Document, i int) any {
			return prompts.TopicsData{ProblemAndSolution: docs[i].Statement + "\n\n" + docs[i].Solution, Tags: prompts.JoinTags(topics.DomainLabels(tree))}
		},
		prompts.Summary: func(docs []dataset.Document, i int) any {
			return prompts.SummaryData{Problem: docs[i].Statement, Solution: docs[i].Solution}
		},
		prompts.Judge: func(docs []dataset.Document, i int) any {
			d, o1, o2 := docs[i], docs[(i+1)%len(docs)], docs[(i+2)%len(docs)]
			return prompts.JudgeData{TargetProblem: d.Statement, TargetSolution: d.Solution, Sample1Problem: o1.Statement,
				Sample1Solution: o1.Solution, Sample2Problem: o2.Statement, Sample2Solution: o2.Solution}
		},
		prompts.Audit: func(docs []dataset.Document, i int) any {
			d, o := docs[i], docs[(i+1)%len(docs)]
			return prompts.AuditData{QueryProblem: d.Statement, QuerySolution: d.Solution, DocumentProblem: o.Statement, DocumentSolution: o.Solution}
		},
	}
	docs := []dataset.Document{
		{ID: "a", Statement: "Find x if 2x = 4.", Solution: "x = 2."},
		{ID: "b", Statement: "How many primes are below 10?", Solution: "Four: 2, 3, 5, 7."},
		{ID: "c", Statement: "Area of a unit circle?", Solution: "$\\pi$."},
	}
	rec := &recorder{cfg: cfg}
	for _, st := range pipeline.Stages {
		for _, step := range st.Steps {
			if step.Forecast == nil {
				continue
			}
			out := &plan.Step{Rows: map[string]float64{}, Bytes: map[string]float64{}}
			if err := step.Forecast(ctx, rec, out); err != nil {
				t.Fatalf("forecast of %s %s: %v", st.Name, step.Name, err)
			}
		}
	}
	var seen []string
	for _, w := range rec.works {
		seen = append(seen, w.Prompt)
		fill, ok := want[w.Prompt]
		if !ok {
			t.Errorf("prompt %q: no data type of lib/prompts to check its declared data against", w.Prompt)
			continue
		}
		p, err := prompts.Get(w.Prompt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range docs {
			got, err := p.Render(w.Data(docs, i))
			if err != nil {
				t.Fatalf("prompt %q, document %d: the declared data does not fill it: %v", w.Prompt, i, err)
			}
			exp, err := p.Render(fill(docs, i))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, exp) {
				t.Errorf("prompt %q, document %d: the declared data renders\n%v\nthe stage's\n%v", w.Prompt, i, got, exp)
			}
		}
	}
	slices.Sort(seen)
	if all := []string{prompts.Audit, prompts.Judge, prompts.Summary, prompts.Topics}; !slices.Equal(seen, all) {
		t.Errorf("the LLM steps' forecasts asked for prompts %v, want %v", seen, all)
	}
}
