package main

import (
	"bytes"
	"context"
	"regexp"
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
