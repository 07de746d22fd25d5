package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toy is a stage section for these tests, as a stage package defines one.
type toy struct {
	Shards    int               `yaml:"shards" json:"shards" hash:"-"`
	Threshold float64           `yaml:"threshold" json:"threshold"`
	Names     []string          `yaml:"names" json:"names"`
	Map       map[string]string `yaml:"map" json:"map"`
	Nested    struct {
		Deep    string `yaml:"deep" json:"deep"`
		Timeout int    `yaml:"timeout" json:"timeout" hash:"-"`
	} `yaml:"nested" json:"nested"`
}

func (c *toy) Defaults(core *Config) {
	if c.Shards == 0 {
		c.Shards = 1
	}
	if c.Threshold == 0 {
		c.Threshold = core.Benchmark.TopicFloor // a default that follows a shared key
	}
}

func (c *toy) Validate(_ *Config, bad func(string, ...any)) {
	if c.Threshold <= 0 || c.Threshold > 1 {
		bad("toy.threshold: %v must be in (0, 1]", c.Threshold)
	}
}

var toySection = SectionOf[toy]{Name: "toy"}

const good = `
run: r1
root: data
toy:
  shards: 3
  threshold: 0.85
  names: [a, b]
`

func TestParseDefaultsAndSections(t *testing.T) {
	c, err := Parse([]byte(good), toySection)
	if err != nil {
		t.Fatal(err)
	}
	s := toySection.Of(c)
	if s.Shards != 3 || s.Threshold != 0.85 || strings.Join(s.Names, ",") != "a,b" {
		t.Errorf("section %+v", s)
	}
	if c.Benchmark.K != 50 || c.Benchmark.TopicFloor != 0.858 || c.Benchmark.SummFloor != 0.211 || c.Benchmark.Ontology.Format != "auto" {
		t.Errorf("benchmark defaults %+v", c.Benchmark)
	}
	d, err := Parse([]byte("run: r\nroot: d\nbenchmark: {topic_floor: 0.9}\n"), toySection)
	if err != nil {
		t.Fatal(err)
	}
	if got := toySection.Of(d).Threshold; got != 0.9 {
		t.Errorf("a section default following benchmark.topic_floor = %v", got)
	}
	if got := c.Sections(); len(got) != 1 || got[0] != "toy" {
		t.Errorf("Sections = %v", got)
	}
}

func TestSectionNotLoadedPanics(t *testing.T) {
	c, err := Parse([]byte("run: r\nroot: d\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `section "toy" was not loaded`) {
			t.Errorf("recover = %v", r)
		}
	}()
	toySection.Of(c)
}

func TestUnknownKeysHavePaths(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"run: r\nroot: d\nbogus: 1\n", "unknown key bogus (valid here: benchmark, evaluate, executor, llm, log, plan, retrievers, root, run, seed, slurm, storage, toy)"},
		{"run: r\nroot: d\ntoy:\n  treshold: 0.8\n", "unknown key toy.treshold"},
		{"run: r\nroot: d\ntoy:\n  nested: {deeep: x}\n", "unknown key toy.nested.deeep"},
		{"run: r\nroot: d\nstorage:\n  s3:\n    endpont: x\n", "unknown key storage.s3.endpont"},
		{"run: r\nroot: d\nbenchmark:\n  ontology: {fiel: x}\n", "unknown key benchmark.ontology.fiel"},
		// A section the binary does not know is an unknown key, not ignored.
		{"run: r\nroot: d\ndedup: {threshold: 0.8}\n", "unknown key dedup"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml), toySection)
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("Parse(%q) = %v; want %q with a line", tt.yaml, err, tt.want)
		}
	}
}

// TestMovedKeysSayWhere: keys that left a stage's section for the shared
// benchmark section name their new place, so an older config is fixed in
// one go.
func TestMovedKeysSayWhere(t *testing.T) {
	for key, to := range moved {
		sec, field, _ := strings.Cut(key, ".")
		y := "run: r\nroot: d\n" + sec + ":\n  " + field + ": x\n"
		_, err := Parse([]byte(y), SectionOf[toy]{Name: sec})
		if err == nil || !strings.Contains(err.Error(), key+" has moved to "+to) {
			t.Errorf("%s: %v", key, err)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"root: d\nrun: 'a b'\n", "run:"},
		{"run: r\n", "root: required"},
		{"run: r\nroot: d\ntoy: {threshold: 1.5}\n", "toy.threshold: 1.5 must be in (0, 1]"},
		{"run: r\nroot: d\nlog: {level: loud}\n", "log.level"},
		{"run: r\nroot: d\nbenchmark: {k: -1}\n", "benchmark.k: must be ≥ 1"},
		{"run: r\nroot: d\nbenchmark: {topic_floor: 1.2}\n", "benchmark.topic_floor"},
		{"run: r\nroot: d\nbenchmark: {domains: [Algebra, Algebra]}\n", `benchmark.domains[1]: "Algebra" listed twice`},
		{"run: r\nroot: d\nbenchmark: {ontology: {edges: e.jsonl}}\n", "benchmark.ontology.edges: set only with benchmark.ontology.file"},
		{"run: r\nroot: d\nbenchmark: {ontology: {format: xml}}\n", "benchmark.ontology.format"},
		{"run: r\nroot: d\nbenchmark: {ontology: {fields: {id: code}}}\n", "benchmark.ontology.fields: set only with benchmark.ontology.file"},
		{"run: r\nroot: d\nbenchmark: {ontology: {file: m.jsonl, format: jskos, fields: {label: name}}}\n", `benchmark.ontology.format "jskos" has fixed fields`},
		{"run: r\nroot: d\nbenchmark: {ontology: {file: n.jsonl, edges: e.tsv, fields: {parents: up}}}\n", "no benchmark.ontology.edges with a field map"},
		{"run: r\nroot: d\nseed: abc\n", "cannot unmarshal"},
		{"run: r\nroot: d\ntoy: {shards: x}\n", "cannot unmarshal"},
		{"run: [\n", "yaml"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml), toySection)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want %q", tt.yaml, err, tt.want)
		}
	}
}

func TestLoadResolvesAgainstConfigDir(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(p, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, toySection)
	if err != nil {
		t.Fatal(err)
	}
	if c.RootURI() != filepath.Join(dir, "data") {
		t.Errorf("RootURI = %s", c.RootURI())
	}
	if c.Resolve("s3://b/x") != "s3://b/x" || c.Resolve("/abs") != "/abs" {
		t.Error("Resolve changed a URI or absolute path")
	}
	_, err = Load(filepath.Join(dir, "missing.yaml"), toySection)
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("Load(missing) = %v", err)
	}
}

// TestPrintedConfigParsesTheSame: --print-config's YAML, sections
// included, parses back to the same values.
func TestPrintedConfigParsesTheSame(t *testing.T) {
	c, err := Parse([]byte(good+"seed: 7\nbenchmark: {k: 5, domains: [Algebra]}\n"), toySection)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\ntoy:\n") {
		t.Errorf("no toy section in\n%s", out)
	}
	c2, err := Parse(out, toySection)
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, out)
	}
	a, b := c.Values("seed", "benchmark", "toy"), c2.Values("seed", "benchmark", "toy")
	if d := Diff(a, b); len(d) > 0 {
		t.Errorf("values changed through --print-config: %v", d)
	}
}

func TestValuesFlattenAndLeaveOutOperationalFields(t *testing.T) {
	_, err := Parse([]byte(good+"toy: {threshold: 0.5}\n"), toySection)
	if err == nil || !strings.Contains(err.Error(), "key toy given twice (first at line 4)") {
		t.Fatalf("two toy sections: %v", err)
	}
	y := "run: r\nroot: d\nseed: 9\nlog: {level: debug}\ntoy: {shards: 4, threshold: 0.5, names: [x, y], map: {\"a.b\": v, c: w}, nested: {deep: d, timeout: 30}}\n"
	c, err := Parse([]byte(y), toySection)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Values("seed", "toy", "benchmark.k")
	want := map[string]string{
		"seed":            "9",
		"toy.threshold":   "0.5",
		"toy.names":       `["x","y"]`, // a list of scalars is one leaf
		`toy.map["a.b"]`:  `"v"`,
		"toy.map.c":       `"w"`,
		"toy.nested.deep": `"d"`,
		"benchmark.k":     "50",
	}
	if d := Diff(want, got); len(d) > 0 {
		t.Errorf("Values: %v\ngot %v", d, got)
	}
	// Operational fields and sections never appear, even when asked for.
	if v := c.Values("log", "storage", "executor", "slurm"); len(v) != 0 {
		t.Errorf("operational sections flattened: %v", v)
	}
	// benchmark.k does not pull in benchmark.ontology and the floors.
	for k := range got {
		if strings.HasPrefix(k, "benchmark.") && k != "benchmark.k" {
			t.Errorf("unasked key %s", k)
		}
	}
	// A prefix must end at a key boundary: "benchmark.ontology" is not
	// "benchmark.ontology_x"; an emptied list is a change.
	e, _ := Parse([]byte("run: r\nroot: d\ntoy: {names: []}\n"), toySection)
	ev := e.Values("toy")
	if ev["toy.names"] != "[]" {
		t.Errorf("empty list = %q", ev["toy.names"])
	}
	if d := Diff(got, ev); len(d) == 0 {
		t.Error("no difference between two different sections")
	}
}

func TestDiffAndHash(t *testing.T) {
	old := map[string]string{"dedup.threshold": "0.8", "dedup.ngram": "5", "seed": "1"}
	new := map[string]string{"dedup.threshold": "0.9", "dedup.ngram": "5", "dedup.priority[0]": `"official"`}
	d := Diff(old, new)
	var lines []string
	for _, c := range d {
		lines = append(lines, c.String())
	}
	want := `dedup.priority[0]: (unset) → "official"|dedup.threshold: 0.8 → 0.9|seed: 1 → (unset)`
	if got := strings.Join(lines, "|"); got != want {
		t.Errorf("Diff = %s\nwant %s", got, want)
	}
	if HashValues(old) == HashValues(new) || HashValues(old) != HashValues(map[string]string{"seed": "1", "dedup.ngram": "5", "dedup.threshold": "0.8"}) {
		t.Error("HashValues depends on map order or misses a change")
	}
}

// TestReproduceYAML: the config a release carries drops shard counts and
// the machine-bound sections and names a fixed root, so two runs that
// differ only there render the same bytes; every other field, operational
// or not, stays, and the YAML parses back to the same values.
func TestReproduceYAML(t *testing.T) {
	a, err := Parse([]byte("run: r1\nroot: /scratch/a\nexecutor: {parallel: 8}\ntoy: {shards: 3, threshold: 0.85, nested: {deep: x, timeout: 9}}\n"), toySection)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte("run: r1\nroot: s3://bucket/b\nstorage: {s3: {region: x}}\ntoy: {shards: 64, threshold: 0.85, nested: {deep: x, timeout: 9}}\n"), toySection)
	if err != nil {
		t.Fatal(err)
	}
	ya, err := a.ReproduceYAML()
	if err != nil {
		t.Fatal(err)
	}
	yb, _ := b.ReproduceYAML()
	if !bytes.Equal(ya, yb) {
		t.Errorf("shards, storage, executor and root change the reproduce config:\n%s\n---\n%s", ya, yb)
	}
	s := string(ya)
	for _, gone := range []string{"shards:", "executor:", "storage:", "slurm:", "/scratch"} {
		if strings.Contains(s, gone) {
			t.Errorf("reproduce config has %q:\n%s", gone, s)
		}
	}
	if !strings.Contains(s, "root: "+ReproduceRoot+"\n") || !strings.Contains(s, "timeout: 9") {
		t.Errorf("reproduce config lacks the fixed root or an operational field it needs:\n%s", s)
	}
	c, err := Parse(ya, toySection)
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, ya)
	}
	if d := Diff(a.Values("seed", "toy"), c.Values("seed", "toy")); len(d) > 0 {
		t.Errorf("values changed through the reproduce config: %v", d)
	}
}
