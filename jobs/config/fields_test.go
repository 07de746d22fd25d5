package config

import (
	"maps"
	"reflect"
	"strings"
	"testing"
)

// shared is a block several sections embed inline, as llmstage.Options.
type shared struct {
	Shards  int    `yaml:"shards" json:"shards" hash:"-"`
	Backend string `yaml:"backend" json:"backend"`
	Nested  nested `yaml:"nested" json:"nested"`
}

type nested struct {
	Model   string `yaml:"model" json:"model"`
	Timeout int    `yaml:"timeout" json:"timeout" hash:"-"`
}

// embedding declares shared's keys through the embedded block, flat
// writes the same keys out: both must read, flatten and render alike.
type embedding struct {
	shared `yaml:",inline"`
	Own    float64 `yaml:"own" json:"own"`
}

type flat struct {
	Shards  int     `yaml:"shards" json:"shards" hash:"-"`
	Backend string  `yaml:"backend" json:"backend"`
	Nested  nested  `yaml:"nested" json:"nested"`
	Own     float64 `yaml:"own" json:"own"`
}

func (*embedding) Defaults(*Config)                       {}
func (*embedding) Validate(*Config, func(string, ...any)) {}
func (*flat) Defaults(*Config)                            {}
func (*flat) Validate(*Config, func(string, ...any))      {}

// TestInlineEmbeddedKeys: a section that embeds a block inline has the
// keys, values (and so hash), unknown-key message and reproduce config of
// one that declares the same fields itself.
func TestInlineEmbeddedKeys(t *testing.T) {
	emb, fl := SectionOf[embedding]{Name: "s"}, SectionOf[flat]{Name: "s"}
	const doc = "run: r\nroot: /scratch/x\ns: {shards: 4, backend: b, nested: {model: m, timeout: 9}, own: 0.5}\n"
	a, err := Parse([]byte(doc), emb)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(doc), fl)
	if err != nil {
		t.Fatal(err)
	}
	if e := emb.Of(a); e.Shards != 4 || e.Backend != "b" || e.Nested.Model != "m" || e.Nested.Timeout != 9 || e.Own != 0.5 {
		t.Errorf("decoded %+v", *e)
	}
	va, vb := a.Values("s"), b.Values("s")
	if !maps.Equal(va, vb) || len(va) != 3 {
		t.Errorf("values %v; the flat section's %v", va, vb)
	}
	ya, err := a.ReproduceYAML()
	if err != nil {
		t.Fatal(err)
	}
	yb, _ := b.ReproduceYAML()
	if string(ya) != string(yb) || strings.Contains(string(ya), "shards:") {
		t.Errorf("reproduce config:\n%s\nthe flat section's:\n%s", ya, yb)
	}
	const typo = "run: r\nroot: d\ns: {modle: m}\n"
	_, ea := Parse([]byte(typo), emb)
	_, eb := Parse([]byte(typo), fl)
	if ea == nil || eb == nil || ea.Error() != eb.Error() {
		t.Errorf("unknown key: %v; the flat section's: %v", ea, eb)
	}
	_, ea = Parse([]byte("run: r\nroot: d\ns: {nested: {modle: m}}\n"), emb)
	if ea == nil || !strings.Contains(ea.Error(), "unknown key s.nested.modle (valid here: model, timeout)") {
		t.Errorf("unknown key in the embedded block's struct: %v", ea)
	}
}

// TestInlinePointerPanics: a pointer inlined would have keys the walks
// cannot see without allocating it; yamlFields refuses it.
func TestInlinePointerPanics(t *testing.T) {
	type bad struct {
		*shared `yaml:",inline"`
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "only an embedded struct value may be inline") {
			t.Errorf("recovered %v", r)
		}
	}()
	yamlFields(reflect.TypeFor[bad]())
}
