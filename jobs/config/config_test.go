package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const good = `
run: r1
root: data
ingest:
  shards: 3
  sources:
    - name: math
      paths: [a.jsonl]
      source: official
      fields: {id: unique_id, statement: problem}
dedup:
  threshold: 0.85
`

func TestParseDefaults(t *testing.T) {
	c, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Ingest.Sources[0]
	if s.Fields.Solution != "solution" || s.Format != "auto" || s.Origin != "math" {
		t.Errorf("source defaults: %+v", s)
	}
	if c.Dedup.Bands != 14 || c.Dedup.Rows != 8 || c.Dedup.NGram != 5 || c.Dedup.Threshold != 0.85 || c.Dedup.Shards != 1 {
		t.Errorf("dedup defaults: %+v", c.Dedup)
	}
	if strings.Join(c.Dedup.Priority, ",") != "official,numina,aops,other" {
		t.Errorf("priority %v", c.Dedup.Priority)
	}
}

func TestUnknownKeysHavePaths(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"run: r\nroot: d\nbogus: 1\n", "unknown key bogus"},
		{"run: r\nroot: d\ndedup:\n  treshold: 0.8\n", "unknown key dedup.treshold"},
		{"run: r\nroot: d\ningest:\n  sources:\n    - name: a\n      paths: [x]\n      feilds: {}\n", "unknown key ingest.sources[0].feilds"},
		{"run: r\nroot: d\ningest:\n  sources:\n    - name: a\n      paths: [x]\n      fields: {problem: p}\n", "unknown key ingest.sources[0].fields.problem"},
		{"run: r\nroot: d\nstorage:\n  s3:\n    endpont: x\n", "unknown key storage.s3.endpont"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml))
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line ") {
			t.Errorf("Parse(%q) = %v; want %q with a line", tt.yaml, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"root: d\nrun: 'a b'\n", "run:"},
		{"run: r\n", "root: required"},
		{"run: r\nroot: d\ndedup: {threshold: 1.5}\n", "dedup.threshold"},
		{"run: r\nroot: d\ndedup: {priority: [official, official]}\n", "listed twice"},
		{"run: r\nroot: d\ningest: {sources: [{name: a, paths: [x], source: web}]}\n", "ingest.sources[0].source"},
		{"run: r\nroot: d\ningest: {sources: [{name: a}]}\n", "ingest.sources[0].paths"},
		{"run: r\nroot: d\nlog: {level: loud}\n", "log.level"},
		{"run: r\nroot: d\ningest: {shards: -1}\n", "ingest.shards"},
		{"run: r\nroot: d\nseed: abc\n", "cannot unmarshal"},
		{"run: [\n", "yaml"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml))
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
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.RootURI() != filepath.Join(dir, "data") {
		t.Errorf("RootURI = %s", c.RootURI())
	}
	if c.Resolve("s3://b/x") != "s3://b/x" || c.Resolve("/abs") != "/abs" {
		t.Error("Resolve changed a URI or absolute path")
	}
	_, err = Load(filepath.Join(dir, "missing.yaml"))
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("Load(missing) = %v", err)
	}
}

func TestHashIgnoresRuntimeSettings(t *testing.T) {
	a, _ := Parse([]byte(good))
	b, _ := Parse([]byte(good + "log: {level: debug}\nexecutor: {parallel: 3}\n"))
	if a.Hash() != b.Hash() {
		t.Error("log/executor settings changed the config hash")
	}
	c, _ := Parse([]byte(good + "seed: 9\n"))
	if a.Hash() == c.Hash() {
		t.Error("seed did not change the config hash")
	}
}

// TestExamplesParse keeps the configs the RUNBOOK points to valid.
func TestExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
