package pipeline

import (
	"os"
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

// templateUsers may link text/template or html/template. A template calls
// methods by name, so the linker keeps every exported method of every
// type a binary reaches once it links one: 8 MB of each stage binary.
// Report's HTML needs html/template's escaping; the prompts need only
// placeholders (lib/prompts/fill.go).
var templateUsers = []string{"report"}

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
	stagePkgs := stagePackages(t, root, module)
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
		if !slices.Contains(templateUsers, bin) {
			for _, d := range deps {
				if d == "text/template" || d == "html/template" {
					t.Errorf("bin/%s links %s, which keeps every method of every type in the binary", bin, d)
				}
			}
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

// stagePackages are the import paths of the stages' code: the
// directories under jobs/ with a decl subpackage.
func stagePackages(t *testing.T, root, module string) []string {
	t.Helper()
	decls, err := filepath.Glob(filepath.Join(root, "jobs", "*", "decl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range decls {
		out = append(out, module+"/jobs/"+filepath.Base(filepath.Dir(d)))
	}
	return out
}

// TestForecastLinksNoStage checks that the forecast engine (jobs/forecast,
// behind saber plan) links no stage's code, a package under one included,
// only their declarations: each step's forecast is its declaration's
// Forecast, and what one needs lives in its decl package or lib/, not in a
// registry of the engine's reaching into the stages.
func TestForecastLinksNoStage(t *testing.T) {
	goBin := pipelinetest.GoCommand(t)
	root, module := moduleRoot(t)
	cmd := exec.Command(goBin, "list", "-deps", "./jobs/forecast")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/jobs/forecast") {
		t.Fatalf("go list -deps ./jobs/forecast does not list the package itself: %s", out)
	}
	stagePkgs := stagePackages(t, root, module)
	for _, d := range deps {
		for _, p := range stagePkgs {
			if (d == p || strings.HasPrefix(d, p+"/")) && d != p+"/decl" {
				t.Errorf("jobs/forecast links %s, code of stage %s: declare what its forecast needs in %s/decl (stage.Step.Forecast)", strings.TrimPrefix(d, module+"/"), filepath.Base(p), strings.TrimPrefix(p, module+"/"))
			}
		}
	}
}

// Size goals of issue 40, for binaries built as make build builds them.
const (
	maxStageBinaryMB = 40
	maxBinTotalMB    = 450
)

// TestBinarySizes checks make build's binaries against the size goals, so
// that a dependency which brings back a whole SDK's worth of code (as
// protobuf v1.34.2 did, by keeping every method linked) fails here rather
// than on an admin's shared filesystem.
func TestBinarySizes(t *testing.T) {
	dir, err := pipelinetest.Binaries(nil)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
		mb := float64(info.Size()) / 1e6
		t.Logf("%-12s %6.1f MB", e.Name(), mb)
		if e.Name() != "saber" && mb > maxStageBinaryMB {
			t.Errorf("bin/%s is %.1f MB, over the %d MB goal", e.Name(), mb, maxStageBinaryMB)
		}
	}
	if mb := float64(total) / 1e6; mb > maxBinTotalMB {
		t.Errorf("bin/ is %.1f MB, over the %d MB goal", mb, maxBinTotalMB)
	}
}
