package ingest

import (
	"fmt"
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

// TestWhereValuesHash: a where: value is hashed by what it means, the text
// it compares as. Values whose meaning the as-written reading kept (7,
// 0.5, true, 1e+06, strings, []) hash as they always did, so their runs
// stay current; a config without where: is untouched. One that now means
// its written text (1.0, not 1) hashes apart from the number it once
// was read as, and the same as the quoted text it now means. The printed
// config (--print-config) loads back to the same values and hash.
func TestWhereValuesHash(t *testing.T) {
	parse := func(t *testing.T, y string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte("run: r\nroot: d\n"+y+"\n"), Section)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	hash := func(t *testing.T, y string) string {
		t.Helper()
		return config.HashValues(parse(t, y).Values("ingest"))
	}
	src := func(where string) string {
		return "ingest: {sources: [{name: a, paths: [a.jsonl]" + where + "}]}"
	}
	kept := src(`, where: [{field: a, in: [4, 5, x, true, 0.5, 1e+06, -3, "7", 12345678901234567890]}, {field: b, not: []}, {field: c, is: 12}, {field: d, not: false}, {field: e, not_in: ["", NONE]}]`)
	// The hashes these configs had before where: values were read as
	// written.
	for y, want := range map[string]string{
		kept:    "af672d04a4f68ba384c7e320d5034844767448fbcbcd383a7ab2b2879731a952",
		src(""): "06c16eed6f3631fdae8ce0936d4d748f4de25d23e543c060d84e810e05fdbb9b",
	} {
		if got := hash(t, y); got != want {
			t.Errorf("%s: hash %s, want %s as before", y, got, want)
		}
	}
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"is: 1.0", "is: 1", false},
		{"is: 1.0", `is: "1.0"`, true},
		{"in: [007]", "in: [7]", false},
		{"in: [007]", "in: ['007']", true},
		{"not: 0x10", "not: 16", false},
		{"not_in: [2.50, 1e3]", "not_in: [2.5, 1000]", false},
		{"is: True", "is: true", false},
		{"is: true", `is: "true"`, false}, // the same meaning, hashed apart as they always were
	} {
		ha := hash(t, src(", where: [{field: a, "+tt.a+"}]"))
		hb := hash(t, src(", where: [{field: a, "+tt.b+"}]"))
		if (ha == hb) != tt.same {
			t.Errorf("%s and %s: same hash %v, want %v", tt.a, tt.b, ha == hb, tt.same)
		}
	}
	// Printed and loaded again: the same values, compared as the same text.
	y := src(`, where: [{field: a, not_in: [1.0, 007, 0x10, 1e3, 2.50, 7, 0.5, 1e+06, true, True, "1.0", x, []]}, {field: b, is: 1.0}, {field: c, is: 0}, {field: d, not: false}, {field: e, is: ""}]`)
	cfg := parse(t, y)
	out, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	again, err := config.Parse(out, Section)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if h1, h2 := config.HashValues(cfg.Values("ingest")), config.HashValues(again.Values("ingest")); h1 != h2 {
		t.Errorf("hash %s, printed and loaded %s:\n%s", h1, h2, out)
	}
	texts := func(c *config.Config) string {
		var out []string
		for _, cond := range Section.Of(c).Sources[0].Where {
			_, ws := condValues(cond)
			for _, w := range ws {
				out = append(out, fmt.Sprintf("%q", matchText(w)))
			}
		}
		return strings.Join(out, " ")
	}
	const want = `"1.0" "007" "0x10" "1e3" "2.50" "7" "0.5" "1e+06" "true" "True" "1.0" "x" "[]" "1.0" "0" "false" ""`
	if got := texts(cfg); got != want {
		t.Errorf("texts %s, want %s", got, want)
	}
	if got := texts(again); got != want {
		t.Errorf("printed and loaded: texts %s, want %s\n%s", got, want, out)
	}
}
