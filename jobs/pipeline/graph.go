package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Node is one step of one stage: a vertex of the pipeline's graph.
type Node struct {
	Stage stage.Stage
	Step  stage.Step
}

// String is "dedup reduce", "ingest".
func (n Node) String() string {
	if len(n.Stage.Steps) == 1 {
		return n.Stage.Name
	}
	return n.Stage.Name + " " + n.Step.Name
}

// Graph is the pipeline derived from the steps' declarations: a step
// depends on the steps that write the datasets it reads. Nodes are in
// topological order (ties in registry order), so running them in order
// never starts a step before its inputs' writers.
type Graph struct {
	stages []stage.Stage // registry order
	nodes  []Node
	deps   [][]int // node → the nodes it reads from, sorted
	writer map[string]int
}

// NewGraph derives the graph of stages, checking the declarations: every
// step writes something, every dataset has exactly one writer, every
// dataset read has a writer, and no step depends on itself through others.
func NewGraph(stages []stage.Stage) (*Graph, error) {
	nodes, writer, err := stepsOf(stages)
	if err != nil {
		return nil, err
	}
	deps, err := dependencies(nodes, writer)
	if err != nil {
		return nil, err
	}
	order, err := topoOrder(nodes, deps)
	if err != nil {
		return nil, err
	}
	pos := make([]int, len(nodes))
	for p, i := range order {
		pos[i] = p
	}
	g := &Graph{stages: stages, writer: map[string]int{}}
	for _, i := range order {
		g.nodes = append(g.nodes, nodes[i])
		var ds []int
		for _, d := range deps[i] {
			ds = append(ds, pos[d])
		}
		slices.Sort(ds)
		g.deps = append(g.deps, ds)
	}
	for ds, w := range writer {
		g.writer[ds] = pos[w]
	}
	return g, nil
}

// stepsOf lists every step in registration order and which one writes
// each dataset, refusing a stage registered twice, a stage or step that
// writes nothing, and a dataset two steps write.
func stepsOf(stages []stage.Stage) ([]Node, map[string]int, error) {
	var nodes []Node
	writer := map[string]int{}
	names := map[string]bool{}
	for _, st := range stages {
		if names[st.Name] {
			return nil, nil, fmt.Errorf("stage %s is registered twice", st.Name)
		}
		names[st.Name] = true
		if len(st.Steps) == 0 {
			return nil, nil, fmt.Errorf("stage %s has no steps", st.Name)
		}
		for _, step := range st.Steps {
			if len(step.Outputs) == 0 {
				return nil, nil, fmt.Errorf("stage %s step %s writes no dataset", st.Name, step.Name)
			}
			for _, ds := range step.Outputs {
				if w, dup := writer[ds]; dup {
					return nil, nil, fmt.Errorf("dataset %s is written by both %s and %s %s", ds, nodes[w], st.Name, step.Name)
				}
				writer[ds] = len(nodes)
			}
			nodes = append(nodes, Node{Stage: st, Step: step})
		}
	}
	return nodes, writer, nil
}

// dependencies are, for each step, the steps that write what it reads.
func dependencies(nodes []Node, writer map[string]int) ([][]int, error) {
	deps := make([][]int, len(nodes))
	for i, n := range nodes {
		for _, ds := range n.Step.Inputs {
			w, ok := writer[ds]
			if !ok {
				return nil, fmt.Errorf("%s reads dataset %s, which no registered step writes", n, ds)
			}
			if w == i {
				return nil, fmt.Errorf("%s reads its own output %s", n, ds)
			}
			if !slices.Contains(deps[i], w) {
				deps[i] = append(deps[i], w)
			}
		}
	}
	return deps, nil
}

// topoOrder is Kahn's algorithm, the earliest registered first among the
// steps ready to run; a cycle is an error naming its steps.
func topoOrder(nodes []Node, deps [][]int) ([]int, error) {
	indeg := make([]int, len(nodes))
	users := make([][]int, len(nodes))
	for i, ds := range deps {
		indeg[i] = len(ds)
		for _, d := range ds {
			users[d] = append(users[d], i)
		}
	}
	var ready, order []int
	for i := range nodes {
		if indeg[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		i := ready[0]
		ready = ready[1:]
		order = append(order, i)
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(order) != len(nodes) {
		var stuck []string
		for i := range nodes {
			if indeg[i] > 0 {
				stuck = append(stuck, nodes[i].String())
			}
		}
		return nil, fmt.Errorf("the steps' inputs and outputs form a cycle among %s", strings.Join(stuck, ", "))
	}
	return order, nil
}

// Nodes are the steps in topological order.
func (g *Graph) Nodes() []Node { return g.nodes }

// Deps are the nodes node i reads from.
func (g *Graph) Deps(i int) []int { return g.deps[i] }

// Writer returns the node that writes dataset.
func (g *Graph) Writer(dataset string) (int, bool) {
	i, ok := g.writer[dataset]
	return i, ok
}

// Find returns the node of a stage's step.
func (g *Graph) Find(stageName, step string) (int, bool) {
	for i, n := range g.nodes {
		if n.Stage.Name == stageName && n.Step.Name == step {
			return i, true
		}
	}
	return 0, false
}

// Ancestors are every node that nodes read from, directly or not, in
// topological order (nodes themselves excluded unless one reads another).
func (g *Graph) Ancestors(nodes []int) []int {
	seen := make([]bool, len(g.nodes))
	var walk func(i int)
	walk = func(i int) {
		for _, d := range g.deps[i] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	for _, i := range nodes {
		walk(i)
	}
	return collect(seen)
}

// Descendants are every node that reads from nodes, directly or not, in
// topological order.
func (g *Graph) Descendants(nodes []int) []int {
	seen := make([]bool, len(g.nodes))
	for _, i := range nodes {
		seen[i] = true
	}
	// Topological order: one pass suffices.
	for i := range g.nodes {
		if seen[i] {
			continue
		}
		for _, d := range g.deps[i] {
			if seen[d] {
				seen[i] = true
				break
			}
		}
	}
	for _, i := range nodes {
		seen[i] = false
	}
	return collect(seen)
}

func collect(seen []bool) []int {
	var out []int
	for i, s := range seen {
		if s {
			out = append(out, i)
		}
	}
	return out
}

// Stages are the stages in pipeline order: by their first step.
func (g *Graph) Stages() []stage.Stage {
	var out []stage.Stage
	seen := map[string]bool{}
	for _, n := range g.nodes {
		if !seen[n.Stage.Name] {
			seen[n.Stage.Name] = true
			out = append(out, n.Stage)
		}
	}
	return out
}

// NodesOf are the nodes of the given stages, in topological order.
func (g *Graph) NodesOf(stages []stage.Stage) []int {
	want := map[string]bool{}
	for _, s := range stages {
		want[s.Name] = true
	}
	var out []int
	for i, n := range g.nodes {
		if want[n.Stage.Name] {
			out = append(out, i)
		}
	}
	return out
}

// Sections are the stages' config sections, in registry order.
func (g *Graph) Sections() []config.Def {
	var out []config.Def
	for _, s := range g.stages {
		if s.Section != nil {
			out = append(out, s.Section)
		}
	}
	return out
}
