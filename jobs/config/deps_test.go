package config_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/pipeline/pipelinetest"
)

// light are the packages every stage binary imports (the run config and
// the declarations it reads): they must not link the LLM client.
var light = []string{
	"github.com/saber-math/saber/jobs/config",
	"github.com/saber-math/saber/jobs/retrievers",
	"github.com/saber-math/saber/jobs/llmstage",
}

// heavy says whether a package is the LLM client or part of it.
func heavy(path string) bool {
	return path == "github.com/saber-math/saber/lib/llm" || strings.HasPrefix(path, "github.com/openai/openai-go")
}

// TestNoLLMClient (issue 40): jobs/config, jobs/retrievers and
// jobs/llmstage depend neither on lib/llm nor on openai-go, so that a stage
// binary that asks no model (ingest, dedup, pairs, ...) does not link a
// client it never calls. The client belongs in jobs/retrieval
// and jobs/llmcall; a type the declarations need belongs in lib/llmconf.
// It asks `go list -deps`, so it skips where the go command is missing
// (and fails there under CI=true).
func TestNoLLMClient(t *testing.T) {
	gocmd := pipelinetest.GoCommand(t)
	// One line a non-standard package: path, directory, Go files, imports.
	format := "{{if not .Standard}}{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}\t{{join .Imports \" \"}}{{end}}"
	cmd := exec.Command(gocmd, append([]string{"list", "-deps", "-f", format}, light...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	var listed []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			continue
		}
		path, dir, files, imports := f[0], f[1], strings.Fields(f[2]), strings.Fields(f[3])
		listed = append(listed, path)
		// go test caches a pass by the files the test touched: stat every
		// dependency's directory and files, so that an edit to any of them
		// (not only to jobs/config's own) runs the check again.
		for _, name := range append(files, ".") {
			_, _ = os.Stat(filepath.Join(dir, name))
		}
		if heavy(path) {
			continue
		}
		for _, imp := range imports {
			if heavy(imp) {
				t.Errorf("%s imports %s: %s must not link the LLM client (move the code that needs it to jobs/retrieval or jobs/llmcall, or the type to lib/llmconf)",
					path, imp, strings.Join(light, ", "))
			}
		}
	}
	for _, p := range light {
		if !slices.Contains(listed, p) {
			t.Errorf("go list -deps did not list %s: %q", p, out)
		}
	}
}
