package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline/pipelinetest"
	"github.com/saber-math/saber/jobs/retrievers"
)

// coreFields are the fields of config.Config whose keys determine a
// step's bytes and that a step reads through a config.CoreKey (or
// Retriever, RetrieverSpecs, LLMFor), never directly.
var coreFields = []string{"Benchmark", "Evaluate", "Retrievers", "LLM", "Seed"}

// TestStepsReadCoreKeysThroughKeys (issue 40): no package a stage binary
// links, but jobs/config itself, reads the core's fields that determine
// bytes (benchmark, evaluate, retrievers, llm, seed) directly. Read
// through their keys, a step's view refuses a key its stage did not
// declare (TestCoreKeyRefusesUndeclared), so that what a step reads and
// what its manifests hash are the same keys; a direct read would pass
// unseen and leave the shard current when that key changes. The driver
// (cmd/saber, and what only it links: plan, demo, studies) reads the
// whole config and is not a step.
func TestStepsReadCoreKeysThroughKeys(t *testing.T) {
	pipelinetest.GoCommand(t) // go/packages runs the go command
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..")
	entries, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "saber" {
			mains = append(mains, "./cmd/"+e.Name())
		}
	}
	if len(mains) < 10 {
		t.Fatalf("found %d stage binaries under cmd/ (%v): the layout changed", len(mains), mains)
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
		Dir:  root,
	}
	pkgs, err := packages.Load(cfg, mains...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the stage binaries do not load")
	}
	const module = "github.com/saber-math/saber/"
	const configPkg = module + "jobs/config"
	checked := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !strings.HasPrefix(p.PkgPath, module) || p.PkgPath == configPkg {
			return
		}
		checked++
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				se, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				sel := p.TypesInfo.Selections[se]
				if sel == nil || sel.Kind() != types.FieldVal || !slices.Contains(coreFields, se.Sel.Name) {
					return true
				}
				recv := sel.Recv()
				if ptr, ok := recv.(*types.Pointer); ok {
					recv = ptr.Elem()
				}
				named, ok := recv.(*types.Named)
				if !ok || named.Obj().Name() != "Config" || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != configPkg {
					return true
				}
				t.Errorf("%s: reads config.Config.%s directly: a stage binary links it, so read the key through its config.CoreKey (config.Benchmark…, config.Evaluate…, config.Seed), Config.Retriever or RetrieverSpecs, or LLMFor, which refuse a key the step did not declare",
					p.Fset.Position(se.Pos()), se.Sel.Name)
				return true
			})
		}
	})
	if checked < 20 {
		t.Fatalf("checked %d packages of the module: the stage binaries' dependencies did not load", checked)
	}
}

// TestCoreKeyRefusesUndeclared: on a step's view, each core key, the
// retrievers' definitions and the llm settings are refused unless the
// step declared them or a key above them.
func TestCoreKeyRefusesUndeclared(t *testing.T) {
	c := config.Default()
	c.Retrievers = map[string]retrievers.Spec{"e5": {Kind: "embedding"}, "bge": {Kind: "embedding"}}
	reads := map[string]func(c *config.Config){
		"benchmark.ontology":    func(c *config.Config) { config.BenchmarkOntology.Get(c) },
		"benchmark.k":           func(c *config.Config) { config.BenchmarkK.Get(c) },
		"benchmark.domains":     func(c *config.Config) { config.BenchmarkDomains.Get(c) },
		"benchmark.topic_floor": func(c *config.Config) { config.BenchmarkTopicFloor.Get(c) },
		"benchmark.summ_floor":  func(c *config.Config) { config.BenchmarkSummFloor.Get(c) },
		"evaluate.retrievers":   func(c *config.Config) { config.EvaluateRetrievers.Get(c) },
		"evaluate.settings":     func(c *config.Config) { config.EvaluateSettings.Get(c) },
		"evaluate.instructions": func(c *config.Config) { config.EvaluateInstructions.Get(c) },
		"evaluate.shards":       func(c *config.Config) { config.EvaluateShards.Get(c) },
		"evaluate.workers":      func(c *config.Config) { config.EvaluateWorkers.Get(c) },
		"seed":                  func(c *config.Config) { config.Seed.Get(c) },
		"retrievers.e5":         func(c *config.Config) { c.Retriever("e5") },
		"llm":                   func(c *config.Config) { c.LLMFor(nil) },
	}
	for key, read := range reads {
		section, _, _ := strings.Cut(key, ".")
		for _, tc := range []struct {
			declared []string
			ok       bool
		}{
			{nil, false},
			{[]string{"benchmark.kk", "evaluate.retrievers_x", "retrievers.e", "seeds", "llm_other"}, false}, // prefixes of a name are not the key
			{[]string{key}, true},
			{[]string{section}, true},
		} {
			view := c.View("test map", tc.declared)
			err := recovered(func() { read(view) })
			var undeclared *config.UndeclaredError
			switch {
			case tc.ok && err != nil:
				t.Errorf("%s declaring %v: %v", key, tc.declared, err)
			case !tc.ok && !errors.As(err, &undeclared):
				t.Errorf("%s declaring %v: read without an UndeclaredError (got %v)", key, tc.declared, err)
			case !tc.ok && undeclared.Key != key:
				t.Errorf("%s declaring %v: the error names %q", key, tc.declared, undeclared.Key)
			}
		}
		// Outside a step (the driver, Uses, Defaults) every key reads.
		if err := recovered(func() { read(c) }); err != nil {
			t.Errorf("%s on the whole config: %v", key, err)
		}
	}

	// A retriever the config does not define needs no declaration (a
	// lexical built-in); the specs a step sees are those it declared.
	view := c.View("test map", []string{"retrievers.e5"})
	if err := recovered(func() { view.Retriever("bm25") }); err != nil {
		t.Errorf("an undefined retriever: %v", err)
	}
	if got := view.RetrieverSpecs(); len(got) != 1 || got["e5"].Kind != "embedding" {
		t.Errorf("RetrieverSpecs on a view declaring retrievers.e5 = %v, want e5 alone", got)
	}
	if got := c.View("test map", []string{"retrievers"}).RetrieverSpecs(); len(got) != 2 {
		t.Errorf("RetrieverSpecs on a view declaring retrievers = %v, want both", got)
	}
}

// TestCoreKeyPaths: each key's Field reads the key its Path names, as
// Values (what manifests record) flattens it, on a config whose every
// such key differs from its default.
func TestCoreKeyPaths(t *testing.T) {
	c, err := config.Parse([]byte(`
run: r
root: /tmp/r
seed: 11
benchmark:
  k: 7
  domains: [Algebra]
  topic_floor: 0.9
  summ_floor: 0.25
evaluate:
  retrievers: [bm25]
  settings: [full-full]
  instructions: [I2]
  shards: 3
  workers: 5
`))
	if err != nil {
		t.Fatal(err)
	}
	checkPath(t, c, config.BenchmarkK)
	checkPath(t, c, config.BenchmarkDomains)
	checkPath(t, c, config.BenchmarkTopicFloor)
	checkPath(t, c, config.BenchmarkSummFloor)
	checkPath(t, c, config.EvaluateRetrievers)
	checkPath(t, c, config.EvaluateSettings)
	checkPath(t, c, config.EvaluateInstructions)
	// Operational keys (hash:"-"): no manifest records them, so Values
	// has none; Get reads what the file set.
	if got := config.EvaluateShards.Get(c); got != 3 || len(c.Values(config.EvaluateShards.Path)) != 0 {
		t.Errorf("evaluate.shards: Get %d (want 3), Values %v (want none)", got, c.Values(config.EvaluateShards.Path))
	}
	if got := config.EvaluateWorkers.Get(c); got != 5 || len(c.Values(config.EvaluateWorkers.Path)) != 0 {
		t.Errorf("evaluate.workers: Get %d (want 5), Values %v (want none)", got, c.Values(config.EvaluateWorkers.Path))
	}
	checkPath(t, c, config.Seed)
	// The ontology is a mapping: Values flattens it key by key.
	if got, want := c.Values(config.BenchmarkOntology.Path)[config.BenchmarkOntology.Path+".format"], `"`+config.BenchmarkOntology.Get(c).Format+`"`; got != want {
		t.Errorf("%s.format: Values %s, Get %s", config.BenchmarkOntology.Path, got, want)
	}
}

func checkPath[V any](t *testing.T, c *config.Config, k config.CoreKey[V]) {
	t.Helper()
	want, err := json.Marshal(k.Get(c))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Values(k.Path)[k.Path]; got != string(want) {
		t.Errorf("%s: Values has %s, Get reads %s", k.Path, got, want)
	}
	if d := config.Default(); d.Values(k.Path)[k.Path] == string(want) {
		t.Errorf("%s: the test's value %s is the default: it cannot tell the fields apart", k.Path, want)
	}
}

// recovered runs f and returns what it panicked with, as an error.
func recovered(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
				return
			}
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}
