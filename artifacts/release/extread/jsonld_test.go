package extread

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A Croissant-shaped document with its context inline, written for this test.
const inlineDoc = `{
  "@context": {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "sc": "https://schema.org/",
    "cr": "http://mlcommons.org/croissant/",
    "dct": "http://purl.org/dc/terms/",
    "conformsTo": "dct:conformsTo",
    "recordSet": "cr:recordSet",
    "field": "cr:field",
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"}
  },
  "@type": "sc:Dataset",
  "name": "saber-demo",
  "conformsTo": "http://mlcommons.org/croissant/1.0",
  "distribution": [{"@type": "cr:FileObject", "@id": "corpus.parquet", "contentUrl": "data/corpus.parquet", "sha256": "ab12"}],
  "recordSet": [{"@type": "cr:RecordSet", "@id": "corpus", "field": [{"@type": "cr:Field", "@id": "corpus/id", "dataType": "sc:Text"}]}]
}`

func TestJSONLDExpandInlineContext(t *testing.T) {
	got, err := JSONLDExpand(t, writeFile(t, "croissant.json", inlineDoc))
	if err != nil {
		t.Fatal(err)
	}
	docs, ok := got.([]any)
	if !ok || len(docs) != 1 {
		t.Fatalf("expanded = %#v, want one node", got)
	}
	d := docs[0].(map[string]any)
	checks := []struct {
		key  string
		want any
	}{
		{"@type", []any{"https://schema.org/Dataset"}},
		{"https://schema.org/name", []any{map[string]any{"@value": "saber-demo", "@language": "en"}}},
		{"http://purl.org/dc/terms/conformsTo", []any{map[string]any{"@value": "http://mlcommons.org/croissant/1.0", "@language": "en"}}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(d[c.key], c.want) {
			t.Errorf("%s = %#v, want %#v", c.key, d[c.key], c.want)
		}
	}
	rs := d["http://mlcommons.org/croissant/recordSet"].([]any)[0].(map[string]any)
	field := rs["http://mlcommons.org/croissant/field"].([]any)[0].(map[string]any)
	if want := []any{map[string]any{"@id": "https://schema.org/Text"}}; !reflect.DeepEqual(field["http://mlcommons.org/croissant/dataType"], want) {
		t.Errorf("dataType = %#v, want %#v", field["http://mlcommons.org/croissant/dataType"], want)
	}
}

func TestJSONLDRefusesRemoteContext(t *testing.T) {
	for name, doc := range map[string]string{
		"context":       `{"@context": "https://schema.org/", "name": "x"}`,
		"context array": `{"@context": [{"@vocab": "https://schema.org/"}, "http://mlcommons.org/croissant/context.jsonld"], "name": "x"}`,
		"import":        `{"@context": {"@version": 1.1, "@import": "https://example.org/ctx.jsonld"}, "name": "x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := JSONLDExpand(t, writeFile(t, "remote.json", doc))
			if err == nil || !strings.Contains(err.Error(), "refused to load") || !strings.Contains(err.Error(), "remote.json") {
				t.Errorf("err = %v, want a refusal naming the file", err)
			}
		})
	}
}

func TestJSONLDSafeMode(t *testing.T) {
	// Plain expansion drops an undefined term and keeps a relative @id;
	// safe mode refuses both, and a base resolves the @id.
	dropped := writeFile(t, "dropped.json", `{"@context": {"name": "https://schema.org/name"}, "name": "x", "nmae": "typo"}`)
	got, err := JSONLDExpand(t, dropped)
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{map[string]any{"https://schema.org/name": []any{map[string]any{"@value": "x"}}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("plain expansion = %#v, want %#v", got, want)
	}
	if _, err := JSONLDExpandWith(t, dropped, JSONLDOptions{Safe: true}); err == nil || !strings.Contains(err.Error(), "nmae") {
		t.Errorf("safe mode with a dropped term: err = %v", err)
	}
	doc := writeFile(t, "croissant.json", inlineDoc)
	if _, err := JSONLDExpandWith(t, doc, JSONLDOptions{Safe: true}); err == nil || !strings.Contains(err.Error(), "relative @id") {
		t.Errorf("safe mode with relative @id: err = %v", err)
	}
	got, err = JSONLDExpandWith(t, doc, JSONLDOptions{Safe: true, Base: "https://huggingface.co/datasets/saber/"})
	if err != nil {
		t.Fatal(err)
	}
	dist := got.([]any)[0].(map[string]any)["https://schema.org/distribution"].([]any)[0].(map[string]any)
	if dist["@id"] != "https://huggingface.co/datasets/saber/corpus.parquet" {
		t.Errorf("@id with base = %v", dist["@id"])
	}
}

func TestJSONLDErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":        `{"@context": `,
		"invalid keyword": `{"@context": {"@vocab": "https://schema.org/"}, "@id": 5}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := JSONLDExpand(t, writeFile(t, "bad.json", doc)); err == nil {
				t.Error("expanded without error")
			}
		})
	}
}

// fakeTB records Skip and Fatal instead of stopping, to check needNode's choice.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = format }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = format }

func TestMissingToolsSkipOrFailUnderCI(t *testing.T) {
	t.Setenv(EnvModules, "")
	t.Setenv("CI", "")
	f := &fakeTB{TB: t}
	if db := NewDuckDB(f); db != nil || f.skipped == "" || f.failed != "" {
		t.Errorf("without CI: db %v, skipped %q, failed %q; want a skip", db, f.skipped, f.failed)
	}
	t.Setenv("CI", "true")
	f = &fakeTB{TB: t}
	if _, err := JSONLDExpand(f, "x.json"); err == nil || f.failed == "" || f.skipped != "" {
		t.Errorf("CI=true: skipped %q, failed %q; want a failure", f.skipped, f.failed)
	}
	t.Setenv(EnvModules, t.TempDir())
	f = &fakeTB{TB: t}
	if NewDuckDB(f); f.failed == "" {
		t.Error("CI=true with modules lacking @duckdb/node-api: no failure")
	}
}
