package tag

import (
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

func TestConfigDefaults(t *testing.T) {
	cfg, err := config.Parse([]byte("run: r\nroot: d\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	c := Section.Of(cfg)
	if c.Shards != 1 || c.Backend != "lexical" || c.Tau != 0.85 || c.MaxCalls != 200 || c.ParseRetries != 2 || c.Workers != 0 || c.LLM != nil {
		t.Errorf("defaults: %+v", c)
	}
	if o := cfg.Benchmark.Ontology; o.File != "" || o.Format != "auto" || len(o.Roots) != 0 {
		t.Errorf("benchmark.ontology defaults: %+v", o)
	}
	cfg, err = config.Parse([]byte("run: r\nroot: d\ntag: {shards: 3, backend: llm, tau: 0.5, max_calls: 10, parse_retries: 1, workers: 4, llm: {model: m}}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	c = Section.Of(cfg)
	if c.Shards != 3 || c.Backend != "llm" || c.Tau != 0.5 || c.MaxCalls != 10 || c.ParseRetries != 1 || c.Workers != 4 || c.LLM == nil || c.LLM.Model != "m" {
		t.Errorf("set values: %+v", c)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		yaml string
		want []string
	}{
		{"tag: {tau: 1.5}", []string{"tag.tau: 1.5 must be in (0, 1]"}},
		{"tag: {tau: -0.1}", []string{"tag.tau: -0.1 must be in (0, 1]"}},
		{"tag: {shards: -1}", []string{"tag.shards: must be ≥ 1"}},
		{"tag: {backend: gpt}", []string{`tag.backend: "gpt" is not one of lexical, llm`}},
		{"tag: {max_calls: -1}", []string{"tag.max_calls: -1 must be ≥ 1"}},
		{"tag: {workers: -1}", []string{"tag: parse_retries and workers must be ≥ 0"}},
		{"tag: {parse_retries: -1, max_invalid_share: 2}", []string{"tag: parse_retries and workers must be ≥ 0", "tag.max_invalid_share: 2 must be in (0, 1]"}},
		{"tag: {backend: llm}", []string{"tag.llm (with llm): llm: config: model is required"}},
		{"tag: {backend: llm, tau: 2}", []string{"tag.llm (with llm)", "tag.tau: 2 must be in (0, 1]"}},
		{"tag: {tua: 0.9}", []string{"unknown key tag.tua (valid here: allow_label_only, backend, llm, max_calls, max_invalid_share, max_topic_share, parse_retries, shards, tau, workers)"}},
		{"tag: {llm: {modle: m}}", []string{"unknown key tag.llm.modle"}},
		// The ontology is shared: its keys moved to benchmark.ontology.
		{"tag: {ontology: x.json}", []string{"line 3: tag.ontology has moved to benchmark.ontology.file"}},
		{"tag: {ontology_edges: e.tsv}", []string{"tag.ontology_edges has moved to benchmark.ontology.edges"}},
		{"tag: {ontology_format: csv}", []string{"tag.ontology_format has moved to benchmark.ontology.format"}},
		{"tag:\n  tau: 0.9\n  roots: [a]", []string{"line 5: tag.roots has moved to benchmark.ontology.roots"}},
		{"benchmark: {ontology: {format: xml}}", []string{`benchmark.ontology.format: "xml" is not one of auto, json, csv, mathworld`}},
	}
	for _, tt := range tests {
		_, err := config.Parse([]byte("run: r\nroot: d\n"+tt.yaml+"\n"), Section)
		if err == nil || stage.ExitCode(err) != stage.ExitBadInput {
			t.Errorf("%s: err = %v (exit %d), want a config error", tt.yaml, err, stage.ExitCode(err))
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v\nwant %q in it", tt.yaml, err, w)
			}
		}
	}
	// The moved key's new place is accepted.
	cfg, err := config.Parse([]byte("run: r\nroot: d\nbenchmark: {ontology: {file: x.json, roots: [alg]}}\ntag: {tau: 0.9}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Benchmark.Ontology; o.File != "x.json" || len(o.Roots) != 1 || Section.Of(cfg).Tau != 0.9 {
		t.Errorf("benchmark.ontology %+v, tag %+v", o, Section.Of(cfg))
	}
}
