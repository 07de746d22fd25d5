package retrieval_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
)

// Every declared kind can be built and every builder has a declaration:
// the two halves of a kind live in two packages (jobs/retrievers must not
// link the LLM client), so nothing else keeps them in step.
func TestEveryKindHasABuilder(t *testing.T) {
	declared := slices.Sorted(slices.Values(retrievers.KindNames()))
	if built := retrieval.BuilderKinds(); !slices.Equal(declared, built) {
		t.Errorf("kinds declared in jobs/retrievers %q, builders in jobs/retrieval %q", declared, built)
	}
}

// The package doc describes each kind's retriever in a bullet "  - kind:";
// the bullets are the registry's kinds, in its order.
func TestPackageDocListsEveryKind(t *testing.T) {
	src, err := os.ReadFile("retrieval.go")
	if err != nil {
		t.Fatal(err)
	}
	var bullets []string
	for _, m := range regexp.MustCompile(`(?m)^//   - ([a-z_]+): `).FindAllStringSubmatch(string(src), -1) {
		bullets = append(bullets, m[1])
	}
	if want := retrievers.KindNames(); !slices.Equal(bullets, want) {
		t.Errorf("retrieval.go's package doc describes kinds %q, the registry has %q", bullets, want)
	}
}

// wordCount is the fake kind's retriever: a document's score is how many
// of the query's words it contains.
type wordCount struct{ name string }

func (w wordCount) Name() string { return w.name }
func (w wordCount) Close() error { return nil }
func (w wordCount) Score(_ context.Context, query string, docs []string) ([]float64, error) {
	out := make([]float64, len(docs))
	for i, d := range docs {
		for _, q := range strings.Fields(query) {
			if strings.Contains(d, q) {
				out[i]++
			}
		}
	}
	return out, nil
}

// A kind added in one place — its declaration and its builder, both
// registered here — is validated by config, built by evaluate's registry,
// placed in its frontier family and expanded by the instructions study,
// with no other file knowing of it.
func TestRegisteredKind(t *testing.T) {
	const kind = "wordcount"
	t.Cleanup(retrievers.Register(retrievers.Kind{
		Name:             kind,
		Family:           retrievers.FamilyCrossEncoder,
		TakesInstruction: true,
		Fields:           []string{"model"},
		Validate: func(s retrievers.Spec, p string, bad func(string, ...any)) {
			if s.Model == "" {
				bad("%s.model: required for kind wordcount", p)
			}
		},
	}))
	t.Cleanup(retrieval.RegisterBuilder(kind, func(_ context.Context, name string, _ retrievers.Spec, _ retrievers.Formatter, _ retrieval.Options) (retrieval.Retriever, error) {
		return wordCount{name: name}, nil
	}))

	const base = "run: r1\nroot: data\nretrievers:\n  wc:\n    kind: wordcount\n"
	// Validation: the kind's own check and the fields it does not use.
	_, err := config.Parse([]byte(base + "    endpoint: x\nevaluate:\n  retrievers: [wc]\n"))
	for _, want := range []string{"retrievers.wc.model: required for kind wordcount", "retrievers.wc.endpoint: not used by kind wordcount (only by rerank, score)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config.Parse: %v, want a problem %q", err, want)
		}
	}
	// An unknown kind's message lists the registered kind.
	if _, err := config.Parse([]byte("run: r1\nroot: data\nretrievers:\n  wc:\n    kind: nope\n")); err == nil || !strings.Contains(err.Error(), "plugin, wordcount") {
		t.Errorf("config.Parse of kind nope: %v, want the kinds listed with wordcount", err)
	}

	cfg, err := config.Parse([]byte(base+"    model: m\nevaluate:\n  retrievers: [wc]\n  instructions: [I1]\n"), reportdecl.Section)
	if err != nil {
		t.Fatal(err)
	}
	// Instructions study: the kind takes an instruction, so it gets a variant.
	if got := cfg.Evaluate.Retrievers; !slices.Equal(got, []string{"wc", "wc.I1"}) {
		t.Errorf("evaluate.retrievers %q, want wc and its instruction variant wc.I1", got)
	}
	if b, in, ok := cfg.InstructionVariant("wc.I1"); b != "wc" || in != "I1" || !ok {
		t.Errorf("InstructionVariant(wc.I1) = %q, %q, %v", b, in, ok)
	}
	// Family.
	if f := reportdecl.FamilyOf(cfg, "wc"); f != retrievers.FamilyCrossEncoder {
		t.Errorf("FamilyOf(wc) = %q, want %q", f, retrievers.FamilyCrossEncoder)
	}
	// Evaluate's build, through the registry of the config's retrievers.
	r, err := retrieval.NewRegistry(cfg.Retrievers, retrieval.Options{}).Build(context.Background(), "wc.I1")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, scores, _, err := retrieval.Rank(context.Background(), r, []string{"a", "b"}, "prime numbers", []string{"no", "prime numbers"})
	if err != nil || !slices.Equal(scores, []float64{0, 2}) {
		t.Errorf("Rank with the built wordcount retriever: scores %v, %v; want [0 2]", scores, err)
	}
}
