package tag

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	aontology "github.com/saber-math/saber/artifacts/ontology"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stage/stagetest"
	"github.com/saber-math/saber/lib/synth/corpusdist"
	"github.com/saber-math/saber/shard"
)

func TestParseScores(t *testing.T) {
	labels := []string{"Algebra", "Number Theory", "Geometry"}
	tests := []struct {
		raw     string
		want    string
		wantErr bool
	}{
		{`{"Algebra": 1.0, "Number Theory": 0.4, "Geometry": 0}`, "[1 0.4 0]", false},
		{"```json\n{\"algebra \": 0.9, \"Made Up\": 1}\n```", "[0.9 0 0]", false}, // case and space; unoffered ignored; missing → 0
		{`{"Algebra": "0.5", "Geometry": -2}`, "[0.5 0 0]", false},                // numeric strings; negatives → 0
		{`{"Other": 1}`, "", true}, // none of the offered tags
		{`{"Algebra": "high"}`, "", true},
		{`I think Algebra.`, "", true},
	}
	for _, tt := range tests {
		got, err := ParseScores(tt.raw, labels)
		if (err != nil) != tt.wantErr || (!tt.wantErr && fmt.Sprint(got) != tt.want) {
			t.Errorf("ParseScores(%q) = %v, %v; want %s", tt.raw, got, err, tt.want)
		}
	}
}

// loadTree reads the ontology of a config with yaml as the tag stage
// does (readers.Ontology in a tag shard) and returns its size and the
// files the shard records as read.
func loadTree(t *testing.T, yaml string) (int, []layout.Object, error) {
	t.Helper()
	cfg, err := config.Parse([]byte("run: r\nroot: d\n"+yaml), Section)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SetDir(t.TempDir())
	env := stage.NewEnv(cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, store.NewMem(), store.NewMem(), zerolog.Nop())
	tree, err := readers.Ontology(context.Background(), env)
	if err != nil {
		return 0, nil, err
	}
	return tree.Len(), env.Inputs(), nil
}

// fileObject is how a shard records a file outside the run it read.
func fileObject(t *testing.T, path string) layout.Object {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return layout.Object{URI: path, SHA256: hex.EncodeToString(sum[:]), Size: int64(len(b))}
}

func TestLoadTree(t *testing.T) {
	if n, files, err := loadTree(t, ""); err != nil || n < 300 || len(files) != 0 {
		t.Fatalf("default ontology: %d nodes, files %v, %v", n, files, err)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "o.csv")
	os.WriteFile(csv, []byte("parent,child,label\n,alg,Algebra\nalg,quad,Quadratics\n,nt,Number Theory\nnt,quad,Quadratics\n"), 0o644)
	n, files, err := loadTree(t, "benchmark: {ontology: {file: "+csv+"}}\n")
	if err != nil || n != 1+2+2 {
		t.Errorf("csv: %d nodes (want 5: root, 2 domains, quad twice), %v", n, err)
	}
	if want := []layout.Object{fileObject(t, csv)}; fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("csv: recorded %+v, want %+v", files, want)
	}
	bad := filepath.Join(dir, "cycle.csv")
	os.WriteFile(bad, []byte("parent,child,label\n,a,A\na,b,B\nb,a,A\n"), 0o644)
	if _, _, err := loadTree(t, "benchmark: {ontology: {file: "+bad+"}}\n"); err == nil || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("cycle: %v", err)
	}
	if _, _, err := loadTree(t, "benchmark: {ontology: {file: "+filepath.Join(dir, "missing.json")+"}}\n"); err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "benchmark.ontology.file") {
		t.Errorf("missing file: %v", err)
	}
	data, _ := filepath.Abs("../../../shared/data/ontology")
	if _, err := os.Stat(filepath.Join(data, "mathworld_tree_nodes.jsonl")); err != nil {
		t.Skip("MathWorld data absent")
	}
	nodes, edges := filepath.Join(data, "mathworld_tree_nodes.jsonl"), filepath.Join(data, "mathworld_tree_edges.tsv")
	n, files, err = loadTree(t, fmt.Sprintf("benchmark: {ontology: {file: %s, edges: %s, roots: [topics/Algebra, topics/Geometry, topics/NumberTheory, topics/Combinatorics, topics/CalculusandAnalysis]}}\n", nodes, edges))
	if err != nil || n < 15000 || n > 17500 {
		t.Errorf("MathWorld tree: %d nodes, %v", n, err)
	}
	if want := []layout.Object{fileObject(t, nodes), fileObject(t, edges)}; fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("MathWorld: recorded %+v, want the nodes and edges files %+v", files, want)
	}
	if _, _, err := loadTree(t, fmt.Sprintf("benchmark: {ontology: {file: %s}}\n", nodes)); err == nil || !strings.Contains(err.Error(), "benchmark.ontology.edges") {
		t.Errorf("MathWorld without edges: %v", err)
	}
}

// ontologyCSV is a small ontology with keywords for the lexical scorer.
const ontologyCSV = `parent,child,label,keywords
,alg,Algebra,equation;polynomial
alg,quad,Quadratics,quadratic;discriminant;roots
,geo,Geometry,triangle;circle
geo,tri,Triangles,triangle;angle;hypotenuse
`

// TestShardRecordsOntologyFile: a tag shard tags every document of its
// range of the corpus and records, in each of its manifests, the corpus
// part it read and the ontology file (benchmark.ontology.file) with the
// SHA-256 and size of its bytes; the config recorded is tag's section and
// benchmark.ontology, without the operational keys or llm. A changed
// ontology file, or other ontology settings, make the done shard stale.
func TestShardRecordsOntologyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	onto := filepath.Join(dir, "o.csv")
	if err := os.WriteFile(onto, []byte(ontologyCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	y := "run: r\nroot: mem\nlog: {progress_seconds: 0}\nbenchmark: {ontology: {file: " + onto + "}}\ntag: {workers: 2}\n"
	parse := func(y string) *config.Config {
		cfg, err := config.Parse([]byte(y), Section)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := parse(y)
	root := store.NewMem()
	part := stagetest.PutOne(t, root, "r", dataset.Corpus, []dataset.Document{
		{ID: "d1", Source: "official", Statement: "Solve the quadratic equation x^2 - 5x + 6 = 0.", Solution: "The discriminant is 1, so the roots are 2 and 3."},
		{ID: "d2", Source: "official", Statement: "A right triangle has legs 3 and 4.", Solution: "The hypotenuse is 5 and the angle opposite it is right."},
	})
	one := shard.Spec{Index: 0, Count: 1}
	step := Stage.Steps[0]
	res, err := stage.RunShard(ctx, cfg, Stage, step, one, root, zerolog.Nop(), stage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := dataset.Read[dataset.TopicRow](ctx, root, layout.DataKey("r", "topics", one))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != "d1" || rows[0].Domain != "Algebra" || rows[1].Domain != "Geometry" || rows[0].Backend != "lexical" {
		t.Fatalf("topics %+v", rows)
	}
	if res.Manifest.Dataset != "topics" {
		t.Errorf("result manifest is %s's, want topics'", res.Manifest.Dataset)
	}
	wantFile := fileObject(t, onto)
	wantPart := part
	wantPart.Unread = false
	for _, ds := range []string{"topics", "tag_rejects"} {
		m, err := layout.ReadDone(ctx, root, layout.DoneKey("r", ds, one))
		if err != nil {
			t.Fatal(err)
		}
		var files, parts []layout.Object
		for _, o := range m.Inputs {
			if o.Dataset == "" {
				files = append(files, o)
			} else {
				parts = append(parts, o)
			}
		}
		if fmt.Sprint(files) != fmt.Sprint([]layout.Object{wantFile}) {
			t.Errorf("%s manifest: files read %+v, want the ontology %+v", ds, files, wantFile)
		}
		if fmt.Sprint(parts) != fmt.Sprint([]layout.Object{wantPart}) {
			t.Errorf("%s manifest: parts read %+v, want the corpus part %+v", ds, parts, wantPart)
		}
		if m.InputsHash != stage.InputsHash(m.Inputs) {
			t.Errorf("%s manifest: inputs hash %s does not cover its inputs", ds, m.InputsHash)
		}
		if got := m.Config["benchmark.ontology.file"]; got != fmt.Sprintf("%q", onto) {
			t.Errorf("%s manifest: benchmark.ontology.file = %s", ds, got)
		}
		if m.Config["tag.tau"] != "0.85" || m.Config["tag.backend"] != `"lexical"` {
			t.Errorf("%s manifest: config %v lacks tag's section", ds, m.Config)
		}
		for k := range m.Config {
			if k == "tag.shards" || k == "tag.workers" || strings.HasPrefix(k, "llm") || strings.HasPrefix(k, "benchmark.k") || k == "seed" {
				t.Errorf("%s manifest: config records %s", ds, k)
			}
		}
	}

	// Unchanged: served as done.
	if res, err := stage.RunShard(ctx, cfg, Stage, step, one, root, zerolog.Nop(), stage.Options{}); err != nil || !res.Skipped {
		t.Fatalf("unchanged: %+v, %v", res, err)
	}
	// Operational keys do not make it stale.
	if res, err := stage.RunShard(ctx, parse(strings.Replace(y, "workers: 2", "workers: 5", 1)), Stage, step, one, root, zerolog.Nop(), stage.Options{}); err != nil || !res.Skipped {
		t.Fatalf("other tag.workers: %+v, %v; want skipped", res, err)
	}
	var stale *stage.StaleError
	_, err = stage.RunShard(ctx, parse(strings.Replace(y, "}}", ", roots: [alg]}}", 1)), Stage, step, one, root, zerolog.Nop(), stage.Options{})
	if !errors.As(err, &stale) || !strings.Contains(err.Error(), "benchmark.ontology.roots") {
		t.Errorf("other roots: %v; want stale naming benchmark.ontology.roots", err)
	}
	if err := os.WriteFile(onto, []byte(ontologyCSV+"alg,lin,Linear Equations,linear\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = stage.RunShard(ctx, cfg, Stage, step, one, root, zerolog.Nop(), stage.Options{})
	if !errors.As(err, &stale) || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "input file "+onto+" changed") {
		t.Errorf("changed ontology file: %v; want stale naming the file", err)
	}
}

// TestDefaultOntologyRecordsNoFile: with the built-in ontology the shard
// reads no file outside the run; only the corpus is its input.
func TestDefaultOntologyRecordsNoFile(t *testing.T) {
	ctx := context.Background()
	cfg, err := config.Parse([]byte("run: r\nroot: mem\nlog: {progress_seconds: 0}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	root := store.NewMem()
	stagetest.PutOne(t, root, "r", dataset.Corpus, []dataset.Document{{ID: "d1", Statement: "Find the area of a circle of radius 2.", Solution: "4 pi."}})
	res, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], shard.Spec{Index: 0, Count: 1}, root, zerolog.Nop(), stage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in := res.Manifest.Inputs; len(in) != 1 || in[0].Dataset != "corpus" {
		t.Errorf("inputs %+v, want only the corpus part", in)
	}
	if got := res.Manifest.Config["benchmark.ontology.file"]; got != `""` {
		t.Errorf("benchmark.ontology.file recorded as %s", got)
	}
}

// TestUsesLLMOnlyWithTheLLMBackend: the llm settings are part of what
// determines tag's bytes only with its llm backend.
func TestUsesLLMOnlyWithTheLLMBackend(t *testing.T) {
	for _, tt := range []struct {
		yaml    string
		wantLLM bool
	}{
		{"llm: {model: m}\n", false},
		{"llm: {model: m}\ntag: {backend: llm}\n", true},
	} {
		cfg, err := config.Parse([]byte("run: r\nroot: d\n"+tt.yaml), Section)
		if err != nil {
			t.Fatal(err)
		}
		keys := Stage.ConfigKeys(cfg)
		if slices.Contains(keys, "llm") != tt.wantLLM || !slices.Contains(keys, "benchmark.ontology") || keys[0] != "tag" {
			t.Errorf("%q: config keys %v", tt.yaml, keys)
		}
		_, hasModel := Stage.ConfigValues(cfg)["llm.model"]
		if hasModel != tt.wantLLM {
			t.Errorf("%q: llm.model recorded: %v, want %v", tt.yaml, hasModel, tt.wantLLM)
		}
	}
}

// TestTagSynthetic: the synthetic backend gives each document the topics
// lib/synth/corpusdist draws for its id under the run seed, as tree paths
// with their domains, no scorer calls and no rejects; and the seed is in
// the stage's config hash.
func TestTagSynthetic(t *testing.T) {
	ctx := context.Background()
	tree, err := aontology.DefaultTree()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("run: r\nroot: mem\nseed: 5\nlog: {progress_seconds: 0}\ntag: {backend: synthetic}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(Stage.Uses(cfg), "seed") {
		t.Errorf("uses %v: the synthetic labels are drawn from the seed", Stage.Uses(cfg))
	}
	root := store.NewMem()
	var docs []dataset.Document
	for i := range 200 {
		docs = append(docs, dataset.Document{ID: fmt.Sprintf("d%03d", i), Statement: "s", Solution: "x"})
	}
	stagetest.PutOne(t, root, "r", dataset.Corpus, docs)
	spec := shard.Spec{Index: 0, Count: 1}
	if _, err := stage.RunShard(ctx, cfg, Stage, Stage.Steps[0], spec, root, zerolog.Nop(), stage.Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := dataset.Read[dataset.TopicRow](ctx, root, layout.DataKey("r", dataset.Topics.Name, spec))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := corpusdist.New(tree, 5, corpusdist.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(docs) {
		t.Fatalf("%d rows for %d documents", len(rows), len(docs))
	}
	multi := 0
	for i, r := range rows {
		want := gen.DocFor(docs[i].ID)
		var paths []string
		for _, n := range want.Topics {
			paths = append(paths, tree.Path(n))
		}
		if r.ID != docs[i].ID || !slices.Equal(r.Topics, paths) || r.Backend != "synthetic" || r.Calls != 0 || r.Domain == "" || len(r.Scores) != len(r.Topics) {
			t.Fatalf("row %d is %+v, want topics %v, backend synthetic, a domain", i, r, paths)
		}
		if len(r.Topics) > 1 {
			multi++
		}
	}
	if multi < 40 || multi > 140 {
		t.Errorf("%d of 200 documents with several topics, want about 42%%", multi)
	}
}
