package ingest

import (
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

func TestConfigDefaults(t *testing.T) {
	cfg, err := config.Parse([]byte("run: r\nroot: d\ningest:\n  sources:\n    - {name: math, paths: [a.jsonl]}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	c := Section.Of(cfg)
	if c.Shards != 1 || c.MaxTextBytes != 1<<20 || c.MaxLineBytes != 4<<20 || c.MaxRejectShare != 0.5 || len(c.Sources) != 1 || c.Sources[0].MaxRejectShare != 0.5 {
		t.Fatalf("defaults: %+v", c)
	}
	s := c.Sources[0]
	if s.Format != "auto" || s.Source != "other" || s.Origin != "math" || s.Fields.Statement != "statement" || s.Fields.Solution != "solution" || s.Fields.ID != "" || s.IDPrefix != "" {
		t.Errorf("source defaults: %+v", s)
	}
	// Set values are kept.
	cfg, err = config.Parse([]byte(`run: r
root: d
ingest:
  shards: 4
  max_text_bytes: 99
  max_reject_share: 0.2
  sources:
    - {name: n, paths: [b.parquet], format: parquet, source: numina, origin: olympiads, fields: {statement: problem, solution: answer}}
    - {name: m, paths: [c.jsonl], max_reject_share: 0.9}
`), Section)
	if err != nil {
		t.Fatal(err)
	}
	c = Section.Of(cfg)
	s = c.Sources[0]
	if c.MaxLineBytes != 4*99 || c.MaxRejectShare != 0.2 || s.MaxRejectShare != 0.2 || c.Sources[1].MaxRejectShare != 0.9 {
		t.Errorf("max_line_bytes %d, max_reject_share %v, per source %v and %v", c.MaxLineBytes, c.MaxRejectShare, s.MaxRejectShare, c.Sources[1].MaxRejectShare)
	}
	if c.Shards != 4 || c.MaxTextBytes != 99 || s.Format != "parquet" || s.Source != "numina" || s.Origin != "olympiads" || s.Fields.Statement != "problem" || s.Fields.Solution != "answer" {
		t.Errorf("set values: %+v", c)
	}
	// Without an ingest key the section is all defaults.
	cfg, err = config.Parse([]byte("run: r\nroot: d\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	if c := Section.Of(cfg); c.Shards != 1 || c.MaxTextBytes != 1<<20 || len(c.Sources) != 0 {
		t.Errorf("no ingest key: %+v", c)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"shards", "ingest: {shards: -1}", []string{"ingest.shards: must be ≥ 1"}},
		{"max_text_bytes", "ingest: {max_text_bytes: -5}", []string{"ingest.max_text_bytes: must be ≥ 1"}},
		{"max_line_bytes", "ingest: {max_line_bytes: -1}", []string{"ingest.max_line_bytes: must be ≥ 1"}},
		{"max_reject_share", "ingest: {max_reject_share: 1.5}", []string{"ingest.max_reject_share: 1.5 is not in (0, 1]"}},
		{"max_reject_share negative", "ingest: {max_reject_share: -0.1}", []string{"ingest.max_reject_share: -0.1 is not in (0, 1]"}},
		{"source max_reject_share", "ingest: {sources: [{name: a, paths: [a.jsonl], max_reject_share: 2}]}", []string{"ingest.sources[0].max_reject_share: 2 is not in (0, 1]"}},
		{"no name", "ingest: {sources: [{paths: [a.jsonl]}]}", []string{"ingest.sources[0].name: required"}},
		{"name twice", "ingest: {sources: [{name: a, paths: [a.jsonl]}, {name: a, paths: [b.jsonl]}]}", []string{`ingest.sources[1].name: "a" used twice`}},
		{"no paths", "ingest: {sources: [{name: a}]}", []string{"ingest.sources[0].paths: at least one file or glob required"}},
		{"format", "ingest: {sources: [{name: a, paths: [a.csv], format: csv}]}", []string{`ingest.sources[0].format: "csv" is not one of auto, jsonl, json, parquet`}},
		{"source", "ingest: {sources: [{name: a, paths: [a.jsonl], source: web}]}", []string{`ingest.sources[0].source: "web" is not one of official, numina, aops, other`}},
		{"terms key", "ingest: {sources: [{name: a, paths: [a.jsonl], fields: {source: src}, terms: {web: {license: x}}}]}", []string{`ingest.sources[0].terms: key "web" is not one of official, numina, aops, other`}},
		{"terms without fields.source", "ingest: {sources: [{name: a, paths: [a.jsonl], terms: {aops: {license: x, no_training: true}}}]}", []string{"ingest.sources[0].terms.aops: terms apply to the rows whose own source (fields.source) is aops, and this source sets no fields.source"}},
		{"terms without licence", "ingest: {sources: [{name: a, paths: [a.jsonl], fields: {source: src}, terms: {numina: {no_training: true}}}]}", []string{"ingest.sources[0].terms.numina.license: empty"}},
		{"aops terms that allow training", "ingest: {sources: [{name: a, paths: [a.jsonl], fields: {source: src}, terms: {aops: {license: x}}}]}", []string{"ingest.sources[0].terms.aops.no_training: false; AoPS problems are not to be trained on (paper App. A.8)"}},
		{"every problem at once", "ingest: {shards: -2, sources: [{name: a, format: xml}]}", []string{
			"ingest.shards: must be ≥ 1", "ingest.sources[0].paths: at least one", `ingest.sources[0].format: "xml"`}},
		{"typo", "ingest: {sources: [{name: a, paths: [a.jsonl], feilds: {id: uid}}]}", []string{"unknown key ingest.sources[0].feilds (valid here: fields, files, format, id_prefix"}},
		{"typo in fields", "ingest: {sources: [{name: a, paths: [a.jsonl], fields: {statment: p}}]}", []string{"unknown key ingest.sources[0].fields.statment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte("run: r\nroot: d\n"+tt.yaml+"\n"), Section)
			if err == nil || stage.ExitCode(err) != stage.ExitBadInput {
				t.Fatalf("err = %v (exit %d), want a config error", err, stage.ExitCode(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant %q in it", err, w)
				}
			}
		})
	}
	// The section is only known when its Def is passed.
	_, err := config.Parse([]byte("run: r\nroot: d\ningest: {shards: 2}\n"))
	if err == nil || !strings.Contains(err.Error(), "unknown key ingest") {
		t.Errorf("without ingest.Section: %v", err)
	}
}
