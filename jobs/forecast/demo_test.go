package forecast_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/demo"
	"github.com/saber-math/saber/jobs/forecast"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/lib/synth"
)

// The demo's config is tested from outside the package: jobs/demo saves
// a forecast before its run, so it imports jobs/forecast.

// TestPlanDemoConfigBeforeRun: on the demo's config, before anything ran,
// the plan prints every step of the main line, counts the input rows
// exactly, forecasts tag's calls from the ontology alone, and marks the
// steps without a forecast function as such rather than failing.
func TestPlanDemoConfigBeforeRun(t *testing.T) {
	dir := t.TempDir()
	if err := demo.WriteInputs(dir, synth.Config{N: 300, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "run.yaml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(demo.ConfigYAML, cfgPath, 1, "  allow_shortfall: true\n", "")), 0o644)
	cfg, err := pipeline.LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := pipeline.Select(cfg, "")
	steps, err := forecast.Forecast(context.Background(), cfg, pipeline.Default(), sel, forecast.Options{Compare: true})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	forecast.Markdown(&md, cfg.Run, steps, true)
	for _, n := range pipeline.Default().NodesOf(sel) {
		if !strings.Contains(md.String(), "## "+pipeline.Default().Nodes()[n].String()+"\n") {
			t.Errorf("no section for %s", pipeline.Default().Nodes()[n])
		}
	}
	got := map[string]float64{}
	for _, st := range steps {
		for _, m := range st.Metrics {
			got[st.Name+"/"+m.Name] = m.Value
		}
	}
	if got["ingest map/rows staged"] != 303 {
		t.Errorf("rows staged %v, want 303 (300 generated + extra.jsonl's 3 lines)", got["ingest map/rows staged"])
	}
	if got["tag/scorer calls"] <= 302 {
		t.Errorf("tag scorer calls %v: at least one per document and level", got["tag/scorer calls"])
	}
	if !strings.Contains(md.String(), "## calibrate\n\n1 shards (0 done), 1 Slurm array job(s) of 1 tasks\n\nno forecast") {
		t.Errorf("calibrate is not marked \"no forecast\":\n%s", md.String())
	}
}
