package tag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
)

// labelOnlyOntology is a small ontology in the project's JSON whose topics
// below the domains have no keywords (MSC2020's shape) unless keyworded.
func labelOnlyOntology(t *testing.T, keyworded bool) string {
	t.Helper()
	kw := ""
	if keyworded {
		kw = `, "keywords": ["quadratic"]`
	}
	body := fmt.Sprintf(`{"nodes": [
  {"id": "alg", "label": "Algebra", "keywords": ["equation"]},
  {"id": "geo", "label": "Geometry", "keywords": ["triangle"]},
  {"id": "poly", "label": "Polynomials"%s},
  {"id": "roots", "label": "Roots of polynomials"%s},
  {"id": "tri", "label": "Triangles"}],
 "edges": [{"parent": "alg", "child": "poly"}, {"parent": "poly", "child": "roots"}, {"parent": "geo", "child": "tri"}]}`, kw, kw)
	p := filepath.Join(t.TempDir(), "onto.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLabelOnlyGate: the lexical backend with an ontology whose topics
// have no keywords stops before tagging, exit 2, naming the share, the
// fixes (tag.backend: llm, keywords) and the override, and writes nothing;
// tag.allow_label_only: true tags anyway, and an ontology with keywords on
// most topics passes without it.
func TestLabelOnlyGate(t *testing.T) {
	setup := func(onto, tagYAML string) (*config.Config, store.Store) {
		t.Helper()
		y := fmt.Sprintf("run: r\nroot: mem\nlog: {progress_seconds: 0}\nbenchmark: {ontology: {file: %s}}\ntag: %s\n", onto, tagYAML)
		cfg, err := config.Parse([]byte(y), Section)
		if err != nil {
			t.Fatal(err)
		}
		root := store.NewMem()
		stagetest.PutOne(t, root, "r", dataset.Corpus, []dataset.Document{{ID: "d1", Source: "s",
			Statement: "Find the roots of the quadratic polynomial x^2 - 5x + 6.", Solution: "Factor: (x-2)(x-3)."}})
		return cfg, root
	}
	ctx := context.Background()

	cfg, root := setup(labelOnlyOntology(t, false), "{backend: lexical}")
	_, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
	if stage.ExitCode(err) != stage.ExitBadInput {
		t.Fatalf("label-only: err = %v (exit %d), want exit 2", err, stage.ExitCode(err))
	}
	for _, w := range []string{"0% of the ontology's 3 topics", "tag.backend: llm", "add keywords", "tag.allow_label_only: true"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v; want it to say %q", err, w)
		}
	}
	nothingWritten(t, root)

	for name, c := range map[string]struct {
		keyworded bool
		tag       string
	}{
		"override":  {false, "{backend: lexical, allow_label_only: true}"},
		"keyworded": {true, "{backend: lexical}"},
	} {
		cfg, root := setup(labelOnlyOntology(t, c.keyworded), c.tag)
		res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], one, root, zerolog.Nop(), stage.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Manifest.Stats["tagged"] != 1 {
			t.Errorf("%s: stats %v, want 1 tagged", name, res.Manifest.Stats)
		}
	}
}
