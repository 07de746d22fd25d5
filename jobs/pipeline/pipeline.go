// Package pipeline knows the stages and runs them. The stages are
// registered in one list (Stages); everything else — the order steps run
// in, which Slurm jobs wait for which, what `saber status` lists, what
// `--stages` selects, which inputs must be complete and current before a
// step starts — is derived from what each step declares it reads and
// writes (Graph). It runs them locally as processes of the stage binaries
// (`saber run`) or one shard in-process into scratch storage (`saber
// verify`), and finds stale shards (Plan).
package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	analyzedecl "github.com/saber-math/saber/jobs/analyze/decl"
	auditdecl "github.com/saber-math/saber/jobs/audit/decl"
	calibratedecl "github.com/saber-math/saber/jobs/calibrate/decl"
	"github.com/saber-math/saber/jobs/config"
	dedupdecl "github.com/saber-math/saber/jobs/dedup/decl"
	downstreamdecl "github.com/saber-math/saber/jobs/downstream/decl"
	evaluatedecl "github.com/saber-math/saber/jobs/evaluate/decl"
	ingestdecl "github.com/saber-math/saber/jobs/ingest/decl"
	judgedecl "github.com/saber-math/saber/jobs/judge/decl"
	pairsdecl "github.com/saber-math/saber/jobs/pairs/decl"
	ratedecl "github.com/saber-math/saber/jobs/rate/decl"
	releasedecl "github.com/saber-math/saber/jobs/release/decl"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	rewritedecl "github.com/saber-math/saber/jobs/rewrite/decl"
	selectiondecl "github.com/saber-math/saber/jobs/selection/decl"
	"github.com/saber-math/saber/jobs/stage"
	summarizedecl "github.com/saber-math/saber/jobs/summarize/decl"
	tagdecl "github.com/saber-math/saber/jobs/tag/decl"
	"github.com/saber-math/saber/shard"
)

// Stages is the registry: every stage's declaration, one line each — its
// config section and what its steps read and write, not their work, so
// that a stage binary links every declaration and only its own stage's
// code. The order is only the tie-break among steps that do not depend on
// each other; a new stage needs its package with its decl subpackage, its
// one-line main (pipeline.Main(name.Stage)) and a line here.
var Stages = []stage.Stage{
	ingestdecl.Stage,
	dedupdecl.Stage,
	tagdecl.Stage,
	summarizedecl.Stage,
	pairsdecl.Stage,
	calibratedecl.Stage,
	selectiondecl.Stage,
	judgedecl.Stage,
	ratedecl.Stage,
	evaluatedecl.Stage,
	reportdecl.Stage,
	auditdecl.Stage,
	analyzedecl.Stage,
	releasedecl.Stage,
	rewritedecl.Stage,
	downstreamdecl.EmbedStage,
	downstreamdecl.Stage,
}

// graph is the registry's graph, checked when the package loads: a
// registry whose declarations do not form a DAG is a bug that every test
// and binary reports at once.
var graph = mustGraph(Stages)

func mustGraph(stages []stage.Stage) *Graph {
	g, err := NewGraph(stages)
	if err != nil {
		panic("pipeline: " + err.Error())
	}
	return g
}

// Default is the registry's graph.
func Default() *Graph { return graph }

// Sections are every registered stage's config section.
func Sections() []config.Def { return graph.Sections() }

// LoadConfig loads a whole run config: the core and every stage's section.
func LoadConfig(path string) (*config.Config, error) { return config.Load(path, Sections()...) }

// ParseConfig parses a whole run config.
func ParseConfig(data []byte) (*config.Config, error) { return config.Parse(data, Sections()...) }

// Lookup returns the named stage.
func Lookup(name string) (stage.Stage, error) { return graph.Lookup(name) }

// Names lists the stage names in pipeline order.
func Names() []string { return graph.Names() }

// Main is the entire main function of a stage binary: st, the stage's
// implementation, run with every registered config section and the check
// that its inputs are current, both from the declarations.
func Main(st stage.Stage) {
	if err := graph.CheckImplementation(st); err != nil {
		panic(err)
	}
	stage.Main(graph.Binary(st))
}

// CheckImplementation reports whether st implements the registered
// declaration of its name: every step with its work, and the same steps
// reading and writing the same datasets.
func (g *Graph) CheckImplementation(st stage.Stage) error {
	d, err := g.Lookup(st.Name)
	if err != nil {
		return err
	}
	if !st.Implemented() {
		return fmt.Errorf("pipeline: stage %s: a step has no work (build it with stage.Implement)", st.Name)
	}
	if len(d.Steps) != len(st.Steps) {
		return fmt.Errorf("pipeline: stage %s: %d steps, its declaration %d", st.Name, len(st.Steps), len(d.Steps))
	}
	for i, s := range st.Steps {
		ds := d.Steps[i]
		if s.Name != ds.Name || !slices.Equal(s.Inputs, ds.Inputs) || !slices.Equal(s.Outputs, ds.Outputs) {
			return fmt.Errorf("pipeline: stage %s: step %s differs from its declaration", st.Name, s.Name)
		}
	}
	return nil
}

// Binary is the stage binary of st in this graph.
func (g *Graph) Binary(st stage.Stage) stage.Binary {
	return stage.Binary{Stage: st, Sections: g.Sections(), CheckInputs: g.checkInputsHook, Redo: g.RedoCommand}
}

// RedoCommand is the command that redoes the shard spec of the step that
// writes dataset, under the config at cfgPath: what a damaged manifest's
// message tells the user to run. "" for a dataset no step writes.
func (g *Graph) RedoCommand(cfgPath, dataset string, spec shard.Spec) string {
	i, ok := g.writer[dataset]
	if !ok {
		return ""
	}
	if cfgPath == "" {
		cfgPath = "run.yaml"
	}
	n := g.nodes[i]
	if !n.Step.Sharded() { // as runShard starts it
		return fmt.Sprintf("bin/%s --config %s --reduce --force", n.Stage.Name, cfgPath)
	}
	return fmt.Sprintf("bin/%s --config %s --shard %s --force", n.Stage.Name, cfgPath, spec)
}

// ExplainDamaged fills in, for a damaged manifest anywhere in err's chain,
// the command that redoes its shard.
func ExplainDamaged(err error, cfgPath string) {
	var dm *layout.DamagedError
	if errors.As(err, &dm) && dm.Redo == "" {
		dm.Redo = graph.RedoCommand(cfgPath, dm.Dataset, dm.Spec)
	}
}

// Lookup returns the named stage.
func (g *Graph) Lookup(name string) (stage.Stage, error) {
	for _, s := range g.stages {
		if s.Name == name {
			return s, nil
		}
	}
	return stage.Stage{}, stage.BadInput(fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(g.Names(), ", ")))
}

// Names lists the stage names in pipeline order.
func (g *Graph) Names() []string {
	var out []string
	for _, s := range g.Stages() {
		out = append(out, s.Name)
	}
	return out
}

// Select parses a comma-separated stage list: "" means the main line (every
// stage but the optional ones the config does not enable), in pipeline
// order; naming a stage selects it, optional or not.
func (g *Graph) Select(cfg *config.Config, list string) ([]stage.Stage, error) {
	all := g.Stages()
	if strings.TrimSpace(list) == "" {
		var out []stage.Stage
		for _, s := range all {
			if !s.Optional || s.Enabled != nil && s.Enabled(cfg) {
				out = append(out, s)
			}
		}
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, err := g.Lookup(n); err != nil {
			return nil, err
		}
		want[n] = true
	}
	var out []stage.Stage
	for _, s := range all {
		if want[s.Name] {
			out = append(out, s)
		}
	}
	return out, nil
}

// Select is the registry's Select.
func Select(cfg *config.Config, list string) ([]stage.Stage, error) { return graph.Select(cfg, list) }

// Off lists, for the main line (list ""), the optional stages that say how
// to turn them on and that the config leaves off, one line each: "release:
// off (set release.date …)". Stages with no Off hint (test-only ones) are
// not mentioned.
func Off(cfg *config.Config, list string) []string {
	if strings.TrimSpace(list) != "" {
		return nil
	}
	var out []string
	for _, s := range graph.Stages() {
		if s.Optional && s.Off != "" && (s.Enabled == nil || !s.Enabled(cfg)) {
			out = append(out, fmt.Sprintf("%s: off (%s)", s.Name, s.Off))
		}
	}
	return out
}
