package tag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
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

func loadTree(t *testing.T, yaml string) (int, error) {
	t.Helper()
	cfg, err := config.Parse([]byte("run: r\nroot: d\n" + yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.SetDir(t.TempDir())
	tree, _, err := LoadTree(context.Background(), cfg)
	if err != nil {
		return 0, err
	}
	return tree.Len(), nil
}

func TestLoadTree(t *testing.T) {
	if n, err := loadTree(t, ""); err != nil || n < 300 {
		t.Fatalf("default ontology: %d nodes, %v", n, err)
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "o.csv")
	os.WriteFile(csv, []byte("parent,child,label\n,alg,Algebra\nalg,quad,Quadratics\n,nt,Number Theory\nnt,quad,Quadratics\n"), 0o644)
	if n, err := loadTree(t, "tag: {ontology: "+csv+"}\n"); err != nil || n != 1+2+2 {
		t.Errorf("csv: %d nodes (want 5: root, 2 domains, quad twice), %v", n, err)
	}
	bad := filepath.Join(dir, "cycle.csv")
	os.WriteFile(bad, []byte("parent,child,label\n,a,A\na,b,B\nb,a,A\n"), 0o644)
	if _, err := loadTree(t, "tag: {ontology: "+bad+"}\n"); err == nil || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("cycle: %v", err)
	}
	if _, err := loadTree(t, "tag: {ontology: "+filepath.Join(dir, "missing.json")+"}\n"); err == nil || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("missing file: %v", err)
	}
	data, _ := filepath.Abs("../../../shared/data/ontology")
	if _, err := os.Stat(filepath.Join(data, "mathworld_tree_nodes.jsonl")); err != nil {
		t.Skip("MathWorld data absent")
	}
	n, err := loadTree(t, fmt.Sprintf("tag: {ontology: %s/mathworld_tree_nodes.jsonl, ontology_edges: %s/mathworld_tree_edges.tsv, roots: [topics/Algebra, topics/Geometry, topics/NumberTheory, topics/Combinatorics, topics/CalculusandAnalysis]}\n", data, data))
	if err != nil || n < 15000 || n > 17500 {
		t.Errorf("MathWorld tree: %d nodes, %v", n, err)
	}
	if _, err := loadTree(t, fmt.Sprintf("tag: {ontology: %s/mathworld_tree_nodes.jsonl}\n", data)); err == nil || !strings.Contains(err.Error(), "ontology_edges") {
		t.Errorf("MathWorld without edges: %v", err)
	}
}
