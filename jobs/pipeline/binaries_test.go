package pipeline

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/pipeline/pipelinetest"
)

// noModelCalls are the stages whose binaries must not link an LLM client:
// they never call a model, so the client (lib/llm, openai-go: a third of a
// binary) has no business in them.
var noModelCalls = []string{"ingest", "dedup", "pairs", "calibrate", "select", "rate", "report", "release"}

// TestStageBinariesLinkOnlyTheirStage checks what each stage binary links
// (go list -deps): its own stage's code and every stage's declaration,
// never another stage's code, so that a binary is its stage and the
// runtime; and no LLM client in the binaries of stages that call no
// model. The sizes these decide are printed by make build (make sizes).
func TestStageBinariesLinkOnlyTheirStage(t *testing.T) {
	goBin := pipelinetest.GoCommand(t)
	root, module := moduleRoot(t)
	cmd := exec.Command(goBin, "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./cmd/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	decls, err := filepath.Glob(filepath.Join(root, "jobs", "*", "decl"))
	if err != nil {
		t.Fatal(err)
	}
	var stagePkgs []string
	for _, d := range decls {
		stagePkgs = append(stagePkgs, module+"/jobs/"+filepath.Base(filepath.Dir(d)))
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		bin := strings.TrimPrefix(fields[0], module+"/cmd/")
		if bin == "saber" || strings.Contains(bin, "/") {
			continue // the driver links every stage, for saber verify
		}
		seen[bin] = true
		deps := fields[1:]
		var linked []string
		for _, p := range stagePkgs {
			if slices.Contains(deps, p) {
				linked = append(linked, strings.TrimPrefix(p, module+"/"))
			}
		}
		if len(linked) != 1 {
			t.Errorf("bin/%s links the code of %d stages %v, want its own only", bin, len(linked), linked)
		}
		if slices.Contains(noModelCalls, bin) {
			for _, d := range deps {
				if d == module+"/lib/llm" || strings.HasPrefix(d, "github.com/openai/") {
					t.Errorf("bin/%s calls no model but links %s", bin, d)
				}
			}
		}
	}
	for _, s := range Stages {
		if s.Name == "lengths" {
			continue // the test-only stage's binary lives under its package
		}
		if !seen[s.Name] {
			t.Errorf("stage %s has no binary cmd/%s", s.Name, s.Name)
		}
	}
}
