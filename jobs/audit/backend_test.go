package audit

import (
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/leak"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct{ in, want string }{
		{`... so $\boxed{equivalent}$`, Equivalent},
		{`$\boxed{distinct}$`, Distinct},
		{`\boxed{Equivalent}`, Equivalent},
		{`\boxed{DISTINCT}`, Distinct},
		{`first \boxed{equivalent}, on reflection \boxed{distinct}`, Distinct},
		{`\boxed {distinct}`, Distinct},
		{`\boxed{{equivalent}}`, Equivalent},
		{`\boxed{ distinct }`, Distinct},
		{`\boxed{\text{equivalent}}`, Equivalent},
		{`\boxed{\textbf{distinct}}`, Distinct},
		{`\boxed{\mathrm{equivalent}}`, Equivalent},
		{`no verdict`, ""},
		{`\boxed{not equivalent}`, ""},
		{`\boxed{equivalently}`, ""},
		{`boxed{distinct}`, ""},
		{`\boxed{1}`, ""},
		{`equivalent`, ""},
	}
	for _, tt := range tests {
		if got := ParseVerdict(tt.in); got != tt.want {
			t.Errorf("ParseVerdict(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTopDocuments(t *testing.T) {
	rs := []dataset.Rating{{Doc: "c", Rating: 2}, {Doc: "a", Rating: 1}, {Doc: "b", Rating: 2}, {Doc: "d", Rating: 5}, {Doc: "e", Rating: 0}}
	docs := func(rs []dataset.Rating) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Doc)
		}
		return out
	}
	if got := docs(TopDocuments(rs, 3)); !slices.Equal(got, []string{"d", "b", "c"}) {
		t.Errorf("top 3 = %v, want d (5), then the tie b, c by id", got)
	}
	if got := docs(TopDocuments(rs, 50)); !slices.Equal(got, []string{"d", "b", "c", "a", "e"}) {
		t.Errorf("top 50 of 5 = %v", got)
	}
	if rs[0].Doc != "c" {
		t.Error("TopDocuments reordered its argument")
	}
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := config.Parse([]byte("run: r\nroot: d\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	c := Section.Of(cfg)
	if c.Shards != 1 || c.Backend != "lexical" || c.Top != 50 || c.ParseRetries != 2 || c.Workers != 0 || c.LLM != nil || c.Lexical.Rule() != leak.DefaultRule {
		t.Errorf("defaults: %+v", c)
	}
	if keys := Stage.ConfigKeys(cfg); !slices.Equal(keys, []string{"audit"}) {
		t.Errorf("lexical: config keys %v, want the section alone", keys)
	}
	vals := Stage.ConfigValues(cfg)
	if _, ok := vals["audit.shards"]; ok || vals["audit.top"] != "50" || vals["audit.lexical.jaccard"] != "0.8" {
		t.Errorf("values %v: want top and thresholds, not shards", vals)
	}
	cfg, err = config.Parse([]byte("run: r\nroot: d\nllm: {model: base}\naudit: {shards: 3, backend: llm, top: 10, parse_retries: 1, workers: 4, llm: {model: m}, lexical: {jaccard: 0.9, jaccard_numbers: 0.5}}\n"), Section)
	if err != nil {
		t.Fatal(err)
	}
	c = Section.Of(cfg)
	if c.Shards != 3 || c.Backend != "llm" || c.Top != 10 || c.ParseRetries != 1 || c.Workers != 4 || c.LLM == nil || c.LLM.Model != "m" || c.Lexical.Jaccard != 0.9 || c.Lexical.JaccardNumbers != 0.5 {
		t.Errorf("set values: %+v", c)
	}
	if keys := Stage.ConfigKeys(cfg); !slices.Equal(keys, []string{"audit", "llm"}) {
		t.Errorf("llm: config keys %v, want the section and llm", keys)
	}
}

func TestConfigValidation(t *testing.T) {
	tests := []struct {
		yaml string
		want string
	}{
		{"audit: {shards: -1}", "audit.shards: must be ≥ 1"},
		{"audit: {backend: gpt}", `audit.backend: "gpt" is not one of lexical, llm`},
		{"audit: {top: -1}", "audit.top: -1 must be ≥ 1"},
		{"audit: {parse_retries: -1}", "audit: parse_retries and workers must be ≥ 0"},
		{"audit: {workers: -2}", "audit: parse_retries and workers must be ≥ 0"},
		{"audit: {backend: llm}", "audit.llm (with llm): llm: config: model is required"},
		{"audit: {lexical: {jaccard: 0.3}}", "audit.lexical: jaccard 0.3 and jaccard_numbers 0.4 must satisfy"},
		{"audit: {lexical: {jaccard: 1.5}}", "audit.lexical: jaccard 1.5"},
		{"audit: {lexical: {jacard: 0.5}}", "unknown key audit.lexical.jacard"},
		{"audit: {tpo: 5}", "unknown key audit.tpo"},
	}
	for _, tt := range tests {
		_, err := config.Parse([]byte("run: r\nroot: d\n"+tt.yaml+"\n"), Section)
		if err == nil || stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v (exit %d), want a config error with %q", tt.yaml, err, stage.ExitCode(err), tt.want)
		}
	}
}
