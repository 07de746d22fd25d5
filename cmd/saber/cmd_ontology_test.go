package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOntologyStatsJSKOS checks that `saber ontology stats` reads a JSKOS
// file (MSC2020's published form) through the shared loader, detected from
// its content, and that --roots takes MSC notations.
func TestOntologyStatsJSKOS(t *testing.T) {
	const file = "../../artifacts/ontology/testdata/msc2020-sample.jsonl"
	for _, tc := range []struct {
		args                []string
		nodes, roots, depth string
	}{
		{[]string{"stats", file}, "15", "3", "3"},
		{[]string{"stats", file, "--roots", "11-XX,51-XX"}, "9", "2", "3"},
	} {
		var out, errb bytes.Buffer
		if code := cmdOntology(context.Background(), tc.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errb.String())
		}
		for key, want := range map[string]string{"nodes": tc.nodes, "roots": tc.roots, "max depth": tc.depth} {
			re := regexp.MustCompile(`(?m)^DAG\n(?:.*\n)*?  ` + key + ` +(\d+)`)
			if m := re.FindStringSubmatch(out.String()); m == nil || m[1] != want {
				t.Errorf("%v: DAG %s = %v, want %s\n%s", tc.args, key, m, want, out.String())
			}
		}
	}
}

// TestOntologyStatsFieldMapped checks that `saber ontology stats` reads a
// concept list of its own shape through --fields, or through
// benchmark.ontology.fields with --config (roots restricted there), and
// that a field the map names wrongly exits 2 naming it and the file.
func TestOntologyStatsFieldMapped(t *testing.T) {
	const dir = "../../artifacts/ontology/testdata/"
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "run.yaml")
	yaml := "run: r\nroot: " + t.TempDir() + "\nbenchmark:\n  ontology:\n    file: " + filepath.Join(abs, "concepts.csv") +
		"\n    roots: ['100', '300']\n    fields: {id: code, label: name, parents: broader, keywords: keywords, separator: '|'}\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args                []string
		code                int
		nodes, roots, depth string
		stderr              string
	}{
		{[]string{"stats", dir + "concepts.json", "--fields", "id=code,label=meta.name,parents=broader,keywords=keywords"}, 0, "7", "3", "3", ""},
		{[]string{"stats", dir + "concepts.csv", "--fields", "id=code,label=name,parents=broader", "--separator", "|", "--roots", "300"}, 0, "2", "1", "2", ""},
		{[]string{"stats", "--config", cfg}, 0, "5", "2", "3", ""},
		{[]string{"stats", dir + "concepts.json", "--fields", "id=code,label=meta.title"}, 2, "", "", "", `concepts.json (read as a json concept list through the field map): ontology: concept list: the label field "meta.title" is in no record (of 7)`},
		{[]string{"stats", dir + "concepts.json", "--fields", "ident=code"}, 2, "", "", "", `--fields: "ident=code" is not key=field`},
		{[]string{"stats", dir + "concepts.json", "--config", cfg}, 2, "", "", "", "give no FILE nor other flags"},
	} {
		var out, errb bytes.Buffer
		code := cmdOntology(context.Background(), tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.stderr) {
			t.Fatalf("%v: exit %d, want %d; stderr %s", tc.args, code, tc.code, errb.String())
		}
		if code != 0 {
			continue
		}
		for key, want := range map[string]string{"nodes": tc.nodes, "roots": tc.roots, "max depth": tc.depth} {
			re := regexp.MustCompile(`(?m)^DAG\n(?:.*\n)*?  ` + key + ` +(\d+)`)
			if m := re.FindStringSubmatch(out.String()); m == nil || m[1] != want {
				t.Errorf("%v: DAG %s = %v, want %s\n%s", tc.args, key, m, want, out.String())
			}
		}
	}
}
