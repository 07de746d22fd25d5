package config

import "github.com/saber-math/saber/lib/domains"

// Benchmark holds the parameters that several benchmark stages read, so
// that no stage reads another's section (paper §3.2–3.4, SPEC §3). Each
// stage declares which of these keys it reads, and only those make it stale:
//
//	benchmark.ontology     tag, pairs, calibrate, select
//	benchmark.k            calibrate, select
//	benchmark.domains      calibrate, select
//	benchmark.topic_floor  pairs, calibrate, select
//	benchmark.summ_floor   pairs, calibrate, select
type Benchmark struct {
	// Ontology is the topic ontology: the built-in default, or a DAG file.
	Ontology Ontology `yaml:"ontology" json:"ontology"`
	// K documents are drawn from each category (topic-only, summary-only,
	// both); a query is eligible with at least K in each (paper: 50).
	K int `yaml:"k" json:"k"`
	// Domains are the top-level ontology labels queries are drawn from,
	// matched case-insensitively, in the order every table lists them;
	// default every top-level domain of the ontology, in its order.
	Domains []string `yaml:"domains" json:"domains"`
	// TopicFloor and SummFloor are the thresholds pairs keeps pairs above
	// (strictly). They may sit below the final thresholds so calibration can
	// search above them without a second pass; no threshold may be set
	// below them. Defaults: the paper's 0.858 and 0.211.
	TopicFloor float64 `yaml:"topic_floor" json:"topic_floor"`
	SummFloor  float64 `yaml:"summ_floor" json:"summ_floor"`
}

// Ontology says where the topic ontology comes from.
type Ontology struct {
	// File is a DAG file (JSON, CSV parent,child,label, MathWorld nodes
	// JSONL with Edges, JSKOS as MSC2020 is published, or SKOS in JSON-LD;
	// artifacts/ontology.Load); empty uses the built-in default.
	File   string `yaml:"file" json:"file"`
	Edges  string `yaml:"edges" json:"edges"`
	Format string `yaml:"format" json:"format"`
	// Roots restricts the ontology to these node ids (the domains).
	Roots []string `yaml:"roots" json:"roots"`
	// Fields, when any of id, label, parents or keywords is set, reads File
	// as a concept list of its own shape (a JSON array, JSON lines or CSV,
	// one record per concept) through this field map; Format is then auto,
	// json or csv.
	Fields OntologyFields `yaml:"fields" json:"fields"`
}

// OntologyFields maps a concept list's field names (JSON paths such as
// meta.name, or CSV header names) onto a concept's id, label, parents and
// keywords. Id and label default to "id" and "label"; parents and keywords
// may be lists or strings joined by Separator (default ";"); no parents
// field makes every concept a root.
type OntologyFields struct {
	ID        string `yaml:"id" json:"id"`
	Label     string `yaml:"label" json:"label"`
	Parents   string `yaml:"parents" json:"parents"`
	Keywords  string `yaml:"keywords" json:"keywords"`
	Separator string `yaml:"separator" json:"separator"`
}

// Set reports whether the field map is in use.
func (f OntologyFields) Set() bool {
	return f.ID != "" || f.Label != "" || f.Parents != "" || f.Keywords != "" || f.Separator != ""
}

func (c *Config) defaultsBenchmark() {
	b := &c.Benchmark
	if b.Ontology.Format == "" {
		b.Ontology.Format = "auto"
	}
	if b.K == 0 {
		b.K = 50
	}
	if b.TopicFloor == 0 {
		b.TopicFloor = 0.858
	}
	if b.SummFloor == 0 {
		b.SummFloor = 0.211
	}
}

func (c *Config) validateBenchmark(bad func(string, ...any)) {
	b := c.Benchmark
	switch b.Ontology.Format {
	case "auto", "json", "csv", "mathworld", "jskos", "skos":
	default:
		bad("benchmark.ontology.format: %q is not one of auto, json, csv, mathworld, jskos, skos", b.Ontology.Format)
	}
	if f := b.Ontology.Fields; f.Set() {
		switch {
		case b.Ontology.File == "":
			bad("benchmark.ontology.fields: set only with benchmark.ontology.file (a JSON or CSV concept list)")
		case b.Ontology.Format != "auto" && b.Ontology.Format != "json" && b.Ontology.Format != "csv":
			bad("benchmark.ontology.fields: a field map reads json or csv concept lists; benchmark.ontology.format %q has fixed fields (drop one of the two)", b.Ontology.Format)
		case b.Ontology.Edges != "":
			bad("benchmark.ontology.fields: no benchmark.ontology.edges with a field map (parents come from fields.parents)")
		}
	}
	if b.Ontology.Edges != "" && b.Ontology.File == "" {
		bad("benchmark.ontology.edges: set only with benchmark.ontology.file (a MathWorld nodes file)")
	}
	if b.K < 1 {
		bad("benchmark.k: must be ≥ 1")
	}
	seen := map[string]bool{}
	for i, d := range b.Domains {
		// Domains match the ontology's labels case-insensitively
		// (lib/domains), so "algebra" and "Algebra" are one domain.
		if seen[domains.Key(d)] {
			bad("benchmark.domains[%d]: %q listed twice (domains match case-insensitively)", i, d)
		}
		seen[domains.Key(d)] = true
	}
	if b.TopicFloor <= 0 || b.TopicFloor >= 1 {
		bad("benchmark.topic_floor: %v must be in (0, 1)", b.TopicFloor)
	}
	if b.SummFloor <= 0 || b.SummFloor >= 1 {
		bad("benchmark.summ_floor: %v must be in (0, 1)", b.SummFloor)
	}
}
