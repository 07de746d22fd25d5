package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/shard"
)

// Every example in examples/ is run as a user would first run it: `saber
// plan` and `saber run --dry-run`. The repository ships none of their
// data, so each gets what its header says it needs: the MATH files of
// ../shared/data (CI has them; a fresh clone skips those examples), a
// small sample in the example's own shape for the rest. A root on S3 is
// moved to local disk: the example's storage is its cluster's.

// exampleData writes, under dir (the examples folder of a scratch copy),
// a sample of the data an example reads and that the repository does not
// ship, in the shape its comments describe.
var exampleData = map[string]func(t *testing.T, dir string){
	"competition-json.yaml": func(t *testing.T, dir string) {
		var rows []any
		for i := range 20 {
			rows = append(rows, map[string]any{
				"id":        17 + i,
				"content":   map[string]any{"problem": fmt.Sprintf("Find the %d-th term of the sequence.", i), "answer": "12", "topic": "Geometry"},
				"meta":      map[string]any{"contest": "AIME 2001"},
				"solutions": []string{fmt.Sprintf("By symmetry the %d-th term is 12.", i), "Coordinates give 12."},
			})
		}
		b, _ := json.MarshalIndent(rows, "", "  ")
		writeFile(t, filepath.Join(dir, "data", "competition", "aime.json"), b)
	},
	"numina-parquet.yaml": func(t *testing.T, dir string) {
		type row struct {
			Problem      string `parquet:"problem"`
			Solution     string `parquet:"solution"`
			Answer       string `parquet:"answer"`
			ProblemType  string `parquet:"problem_type"`
			QuestionType string `parquet:"question_type"`
			Source       string `parquet:"source"`
		}
		var rows []row
		for i := range 20 {
			rows = append(rows, row{Problem: fmt.Sprintf("Solve x + %d = 2%d.", i, i), Solution: "Subtract.", Answer: fmt.Sprint(i),
				ProblemType: "Algebra", QuestionType: "math-word-problem", Source: "olympiads"})
		}
		p := filepath.Join(dir, "data", "numina", "part-0.parquet")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := parquet.WriteFile(p, rows); err != nil {
			t.Fatal(err)
		}
	},
	"msc2020-jskos.yaml": func(t *testing.T, dir string) {
		// The published file's top and second-level classes, as the
		// ontology tests read them.
		b, err := os.ReadFile(filepath.Join(repoRoot, "artifacts", "ontology", "testdata", "msc2020-classes.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "msc2020.jsonl"), b)
	},
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var s3Root = regexp.MustCompile(`(?m)^root: s3://\S+`)

// exampleTree writes example name (its text body) into examples/ of a
// scratch tree whose ../../shared/data/math is the real one, so that its
// paths resolve as they do in the repository, with the data exampleData
// makes; it returns the config's path, or skips when the example reads
// the MATH files and they are absent.
func exampleTree(t *testing.T, name string, body []byte, math string, mathErr error) string {
	t.Helper()
	needsMath := bytes.Contains(body, []byte("shared/data/math"))
	if needsMath && mathErr != nil {
		t.Skipf("it reads the MATH files, absent at %s (CI has them)", math)
	}
	tree := t.TempDir()
	dir := filepath.Join(tree, "repo", "examples")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if needsMath {
		if err := os.MkdirAll(filepath.Join(tree, "shared", "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(math, filepath.Join(tree, "shared", "data", "math")); err != nil {
			t.Fatal(err)
		}
	}
	if fill := exampleData[name]; fill != nil {
		fill(t, dir)
	}
	body = s3Root.ReplaceAll(body, []byte("root: "+filepath.Join(tree, "runs")))
	cfg := filepath.Join(dir, name)
	writeFile(t, cfg, body)
	return cfg
}

func mathFiles() (string, error) {
	math, _ := filepath.Abs(filepath.Join(repoRoot, "..", "shared", "data", "math"))
	_, err := os.Stat(filepath.Join(math, "MATH_train.jsonl"))
	return math, err
}

// TestMSCExampleRunsToSelect: examples/msc2020-jskos.yaml, on the MATH
// files and MSC2020's top and second-level classes, runs every stage to
// select and selects queries — with the default sizes select stopped
// with exit 2 (several classes 0 of 200 eligible).
func TestMSCExampleRunsToSelect(t *testing.T) {
	ctx := context.Background()
	const name = "msc2020-jskos.yaml"
	body, err := os.ReadFile(filepath.Join(repoRoot, "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	math, mathErr := mathFiles()
	cfg, err := pipeline.LoadConfig(exampleTree(t, name, body, math, mathErr))
	if err != nil {
		t.Fatal(err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range pipeline.Default().Nodes() {
		st, step := node.Stage, node.Step
		if st.Optional && (st.Enabled == nil || !st.Enabled(cfg)) {
			continue
		}
		n := step.Count(cfg)
		for i := range n {
			if _, err := stage.RunShard(ctx, cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
				t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
			}
		}
		if st.Name != "select" {
			continue
		}
		qs, err := dataset.Read[dataset.Query](ctx, root, layout.DataKey(cfg.Run, dataset.Queries.Name, shard.Spec{Index: 0, Count: 1}))
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) == 0 {
			t.Fatal("select chose no query")
		}
		t.Logf("%d queries selected", len(qs))
		return
	}
	t.Fatal("no select step on the main line")
}

func TestExamplesPlanAndDryRun(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(repoRoot, "examples", "*.yaml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	math, mathErr := mathFiles()
	for _, p := range names {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`(?m)^# Needs: \S`).Match(body) {
				t.Errorf("%s does not say what it needs (a \"# Needs: …\" line in its header)", name)
			}
			cfg := exampleTree(t, name, body, math, mathErr)
			for _, args := range [][]string{{"plan", "--config", cfg}, {"run", "--config", cfg, "--dry-run"}} {
				var out, errb bytes.Buffer
				if code := dispatch(context.Background(), args, &out, &errb); code != 0 {
					t.Errorf("saber %s: exit %d\n%s\n%s", strings.Join(args, " "), code, errb.String(), out.String())
				}
			}
		})
	}
}
