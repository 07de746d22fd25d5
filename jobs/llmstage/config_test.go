package llmstage_test

import (
	"strings"
	"testing"

	"github.com/saber-math/saber/jobs/audit"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/rewrite"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/summarize"
	"github.com/saber-math/saber/jobs/tag"
)

// The sample configs of TestConfigValuesUnchanged: every default, every
// key of the five sections set (the llm backend with an override), and
// the offline backends that read other shared keys.
const (
	defaultsYAML = "run: r\nroot: /tmp/r\n"
	sampleYAML   = `run: r
root: /tmp/r
llm:
  model: core-model
  base_url: http://127.0.0.1:8000/v1
  temperature: 0.7
tag:
  shards: 3
  backend: llm
  tau: 0.9
  max_calls: 50
  parse_retries: 4
  max_invalid_share: 0.25
  max_topic_share: 0.3
  allow_label_only: true
  workers: 7
  llm: {model: tag-model, temperature: 0.1, max_tokens: 256, seed: 9, concurrency: 5, timeout_seconds: 30}
summarize:
  shards: 2
  backend: llm
  parse_retries: 3
  max_invalid_share: 0.75
  workers: 4
  llm: {model: sum-model, max_tokens: 1024, reasoning_effort: low}
rewrite:
  shards: 5
  backend: llm
  min_ratio: 0.4
  max_ratio: 3
  parse_retries: 1
  max_invalid_share: 1
  workers: 2
  llm: {model: rw-model, base_url: https://example.org/v1, seed: 3}
audit:
  shards: 4
  backend: llm
  top: 20
  parse_retries: 5
  max_invalid_share: 0.1
  workers: 9
  llm: {model: audit-model, temperature: 0}
  lexical: {jaccard: 0.9, jaccard_numbers: 0.5}
judge:
  shards: 6
  backend: llm
  rounds: 12
  parse_retries: 6
  max_invalid_share: 0.2
  position_audit: 0.5
  both_orders: true
  scheduler: {kind: active}
  workers: 3
  llm: {model: judge-model, max_tokens: 8, concurrency: 2}
`
	syntheticYAML = `run: r
root: /tmp/r
tag: {backend: synthetic}
summarize: {backend: synthetic}
`
)

var (
	llmStages   = []stage.Stage{tag.Stage, summarize.Stage, rewrite.Stage, audit.Stage, judge.Stage}
	llmSections = []config.Def{tag.Section, summarize.Section, rewrite.Section, audit.Section, judge.Section}
)

type recorded struct {
	hash   string
	values map[string]string
}

// beforeOptions are each stage's config values and hash, as its manifests
// record them, computed at ef5f542, before the sections embedded
// llmstage.Options: a manifest written then must not turn stale now.
var beforeOptions = map[string]map[string]recorded{
	"defaults": {
		"tag": {hash: "e9310ef7507ba7d10a152a8e8e89395363b065cc1fea554f09592c7e30539a7a", values: map[string]string{
			"benchmark.ontology.edges":            "\"\"",
			"benchmark.ontology.fields.id":        "\"\"",
			"benchmark.ontology.fields.keywords":  "\"\"",
			"benchmark.ontology.fields.label":     "\"\"",
			"benchmark.ontology.fields.parents":   "\"\"",
			"benchmark.ontology.fields.separator": "\"\"",
			"benchmark.ontology.file":             "\"\"",
			"benchmark.ontology.format":           "\"auto\"",
			"benchmark.ontology.roots":            "[]",
			"tag.backend":                         "\"lexical\"",
			"tag.max_calls":                       "200",
			"tag.parse_retries":                   "2",
			"tag.tau":                             "0.85",
		}},
		"summarize": {hash: "0c0b47c635b3e12acbd1e9f59d81e7ffe97ecfad0b4ce47714a44b94b005bc8e", values: map[string]string{
			"summarize.backend":       "\"extractive\"",
			"summarize.parse_retries": "2",
		}},
		"rewrite": {hash: "84bbc709b24676117d823c31e82d52df0842373280d360c43dade0331bf6e57b", values: map[string]string{
			"rewrite.backend":       "\"offline\"",
			"rewrite.max_ratio":     "2",
			"rewrite.min_ratio":     "0.5",
			"rewrite.parse_retries": "2",
			"seed":                  "0",
		}},
		"audit": {hash: "908b6897717c6783e1fe80fb52996c170fe995d719dde4d26362b9ef72bd3b33", values: map[string]string{
			"audit.backend":                 "\"lexical\"",
			"audit.lexical.jaccard":         "0.8",
			"audit.lexical.jaccard_numbers": "0.4",
			"audit.parse_retries":           "2",
			"audit.top":                     "50",
		}},
		"judge": {hash: "6653271d406a3f76513c3e1b2ea10121f517aed2a68c84c41bf87327cf4d39cc", values: map[string]string{
			"judge.backend":        "\"lexical\"",
			"judge.both_orders":    "false",
			"judge.parse_retries":  "2",
			"judge.position_audit": "0",
			"judge.rounds":         "20",
			"seed":                 "0",
		}},
	},
	"sample": {
		"tag": {hash: "063c8cfdd3d931c813f1ab5959246bbb7925bfce56ef5261e761cd96a1810a71", values: map[string]string{
			"benchmark.ontology.edges":            "\"\"",
			"benchmark.ontology.fields.id":        "\"\"",
			"benchmark.ontology.fields.keywords":  "\"\"",
			"benchmark.ontology.fields.label":     "\"\"",
			"benchmark.ontology.fields.parents":   "\"\"",
			"benchmark.ontology.fields.separator": "\"\"",
			"benchmark.ontology.file":             "\"\"",
			"benchmark.ontology.format":           "\"auto\"",
			"benchmark.ontology.roots":            "[]",
			"llm.max_tokens":                      "0",
			"llm.model":                           "\"core-model\"",
			"llm.reasoning_effort":                "\"\"",
			"llm.temperature":                     "0.7",
			"tag.backend":                         "\"llm\"",
			"tag.llm.max_tokens":                  "256",
			"tag.llm.model":                       "\"tag-model\"",
			"tag.llm.reasoning_effort":            "\"\"",
			"tag.llm.seed":                        "9",
			"tag.llm.temperature":                 "0.1",
			"tag.max_calls":                       "50",
			"tag.parse_retries":                   "4",
			"tag.tau":                             "0.9",
		}},
		"summarize": {hash: "623af03fb7f93cf396486f91e7ff26cecad2736cd3b595505e87b8856a2bd6ef", values: map[string]string{
			"llm.max_tokens":                 "0",
			"llm.model":                      "\"core-model\"",
			"llm.reasoning_effort":           "\"\"",
			"llm.temperature":                "0.7",
			"summarize.backend":              "\"llm\"",
			"summarize.llm.max_tokens":       "1024",
			"summarize.llm.model":            "\"sum-model\"",
			"summarize.llm.reasoning_effort": "\"low\"",
			"summarize.parse_retries":        "3",
		}},
		"rewrite": {hash: "af85c6efdf2ec829b64aa1ef022142e1ffbaaf8b7db36a6d825871d2f560ccc3", values: map[string]string{
			"llm.max_tokens":               "0",
			"llm.model":                    "\"core-model\"",
			"llm.reasoning_effort":         "\"\"",
			"llm.temperature":              "0.7",
			"rewrite.backend":              "\"llm\"",
			"rewrite.llm.max_tokens":       "0",
			"rewrite.llm.model":            "\"rw-model\"",
			"rewrite.llm.reasoning_effort": "\"\"",
			"rewrite.llm.seed":             "3",
			"rewrite.max_ratio":            "3",
			"rewrite.min_ratio":            "0.4",
			"rewrite.parse_retries":        "1",
		}},
		"audit": {hash: "66139f581a90f7a103ad2f43493fcdfc92b170b75360ddbede7ad0a971012993", values: map[string]string{
			"audit.backend":                 "\"llm\"",
			"audit.lexical.jaccard":         "0.9",
			"audit.lexical.jaccard_numbers": "0.5",
			"audit.llm.max_tokens":          "0",
			"audit.llm.model":               "\"audit-model\"",
			"audit.llm.reasoning_effort":    "\"\"",
			"audit.llm.temperature":         "0",
			"audit.parse_retries":           "5",
			"audit.top":                     "20",
			"llm.max_tokens":                "0",
			"llm.model":                     "\"core-model\"",
			"llm.reasoning_effort":          "\"\"",
			"llm.temperature":               "0.7",
		}},
		"judge": {hash: "fe81aebe73bf42741c4ccfe1772c0e7ac88d7291f9da233c4cd72c3630303f34", values: map[string]string{
			"judge.backend":                 "\"llm\"",
			"judge.both_orders":             "true",
			"judge.llm.max_tokens":          "8",
			"judge.llm.model":               "\"judge-model\"",
			"judge.llm.reasoning_effort":    "\"\"",
			"judge.parse_retries":           "6",
			"judge.position_audit":          "0.5",
			"judge.rounds":                  "12",
			"judge.scheduler.epsilon":       "0.002",
			"judge.scheduler.kind":          "\"active\"",
			"judge.scheduler.matches":       "40",
			"judge.scheduler.min_rounds":    "12",
			"judge.scheduler.per_candidate": "3",
			"judge.scheduler.stable_rounds": "5",
			"judge.scheduler.swiss_rounds":  "5",
			"judge.scheduler.top_k":         "10",
			"llm.max_tokens":                "0",
			"llm.model":                     "\"core-model\"",
			"llm.reasoning_effort":          "\"\"",
			"llm.temperature":               "0.7",
			"seed":                          "0",
		}},
	},
	"synthetic": {
		"tag": {hash: "455134696cde6299fd57e48c51600df6191b4ea27fdda95eb61ab5ad1e43452d", values: map[string]string{
			"benchmark.ontology.edges":            "\"\"",
			"benchmark.ontology.fields.id":        "\"\"",
			"benchmark.ontology.fields.keywords":  "\"\"",
			"benchmark.ontology.fields.label":     "\"\"",
			"benchmark.ontology.fields.parents":   "\"\"",
			"benchmark.ontology.fields.separator": "\"\"",
			"benchmark.ontology.file":             "\"\"",
			"benchmark.ontology.format":           "\"auto\"",
			"benchmark.ontology.roots":            "[]",
			"seed":                                "0",
			"tag.backend":                         "\"synthetic\"",
			"tag.max_calls":                       "200",
			"tag.parse_retries":                   "2",
			"tag.tau":                             "0.85",
		}},
		"summarize": {hash: "830d68e2d65f8421395207609254e2df5eaebb089d710bcdc761b851f029cbd0", values: map[string]string{
			"benchmark.ontology.edges":            "\"\"",
			"benchmark.ontology.fields.id":        "\"\"",
			"benchmark.ontology.fields.keywords":  "\"\"",
			"benchmark.ontology.fields.label":     "\"\"",
			"benchmark.ontology.fields.parents":   "\"\"",
			"benchmark.ontology.fields.separator": "\"\"",
			"benchmark.ontology.file":             "\"\"",
			"benchmark.ontology.format":           "\"auto\"",
			"benchmark.ontology.roots":            "[]",
			"seed":                                "0",
			"summarize.backend":                   "\"synthetic\"",
			"summarize.parse_retries":             "2",
		}},
		"rewrite": {hash: "84bbc709b24676117d823c31e82d52df0842373280d360c43dade0331bf6e57b", values: map[string]string{
			"rewrite.backend":       "\"offline\"",
			"rewrite.max_ratio":     "2",
			"rewrite.min_ratio":     "0.5",
			"rewrite.parse_retries": "2",
			"seed":                  "0",
		}},
		"audit": {hash: "908b6897717c6783e1fe80fb52996c170fe995d719dde4d26362b9ef72bd3b33", values: map[string]string{
			"audit.backend":                 "\"lexical\"",
			"audit.lexical.jaccard":         "0.8",
			"audit.lexical.jaccard_numbers": "0.4",
			"audit.parse_retries":           "2",
			"audit.top":                     "50",
		}},
		"judge": {hash: "6653271d406a3f76513c3e1b2ea10121f517aed2a68c84c41bf87327cf4d39cc", values: map[string]string{
			"judge.backend":        "\"lexical\"",
			"judge.both_orders":    "false",
			"judge.parse_retries":  "2",
			"judge.position_audit": "0",
			"judge.rounds":         "20",
			"seed":                 "0",
		}},
	},
}

// TestConfigValuesUnchanged: the values and hash every LLM stage's
// manifest records are what they were when each section declared the
// shared keys itself, for the defaults, a config that sets every key,
// and the offline backends.
func TestConfigValuesUnchanged(t *testing.T) {
	for _, c := range []struct{ name, yaml string }{{"defaults", defaultsYAML}, {"sample", sampleYAML}, {"synthetic", syntheticYAML}} {
		cfg, err := config.Parse([]byte(c.yaml), llmSections...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, st := range llmStages {
			want := beforeOptions[c.name][st.Name]
			got := st.ConfigValues(cfg)
			if d := config.Diff(want.values, got); len(d) > 0 {
				t.Errorf("%s: %s's config values changed: %v", c.name, st.Name, d)
			}
			if h := config.HashValues(got); h != want.hash {
				t.Errorf("%s: %s's config hash %s, was %s", c.name, st.Name, h, want.hash)
			}
		}
	}
}

// TestPrintedConfigLoadsTheSame: what --print-config prints of the
// sample loads again to the same values (every embedded key is printed
// under the section, none twice or nested).
func TestPrintedConfigLoadsTheSame(t *testing.T) {
	cfg, err := config.Parse([]byte(sampleYAML), llmSections...)
	if err != nil {
		t.Fatal(err)
	}
	y, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	again, err := config.Parse(y, llmSections...)
	if err != nil {
		t.Fatalf("the printed config does not load: %v\n%s", err, y)
	}
	for _, st := range llmStages {
		if d := config.Diff(st.ConfigValues(cfg), st.ConfigValues(again)); len(d) > 0 {
			t.Errorf("%s: printed and loaded again, the values differ: %v", st.Name, d)
		}
		if strings.Contains(string(y), "  options:") {
			t.Errorf("the printed config nests the embedded options:\n%s", y)
		}
	}
}

// unknownKeyBefore is the message of an unknown key in each section,
// from ef5f542: the keys a section lists as valid are the same.
var unknownKeyBefore = map[string]string{
	"tag":       "config: line 4: unknown key tag.nosuchkey (valid here: allow_label_only, backend, llm, max_calls, max_invalid_share, max_topic_share, parse_retries, shards, tau, workers)",
	"summarize": "config: line 4: unknown key summarize.nosuchkey (valid here: backend, llm, max_invalid_share, parse_retries, shards, workers)",
	"rewrite":   "config: line 4: unknown key rewrite.nosuchkey (valid here: backend, llm, max_invalid_share, max_ratio, min_ratio, parse_retries, shards, workers)",
	"audit":     "config: line 4: unknown key audit.nosuchkey (valid here: backend, lexical, llm, max_invalid_share, parse_retries, shards, top, workers)",
	"judge":     "config: line 4: unknown key judge.nosuchkey (valid here: backend, both_orders, llm, max_invalid_share, parse_retries, position_audit, prompt_order, rounds, scheduler, shards, workers)",
}

func TestUnknownKeyListsTheSameKeys(t *testing.T) {
	for _, d := range llmSections {
		_, err := config.Parse([]byte("run: r\nroot: /tmp/r\n"+d.SectionName()+":\n  nosuchkey: 1\n"), llmSections...)
		if err == nil || err.Error() != unknownKeyBefore[d.SectionName()] {
			t.Errorf("%s: %v\nwant %s", d.SectionName(), err, unknownKeyBefore[d.SectionName()])
		}
	}
}

// TestOperationalOptionsDecoded: the keys left out of the values
// (hash:"-": shards, max_invalid_share, workers, the override's
// concurrency) reach the embedded options, and take the defaults they
// had before the options were shared.
func TestOperationalOptionsDecoded(t *testing.T) {
	defaults, err := config.Parse([]byte(defaultsYAML), llmSections...)
	if err != nil {
		t.Fatal(err)
	}
	sample, err := config.Parse([]byte(sampleYAML), llmSections...)
	if err != nil {
		t.Fatal(err)
	}
	type operational struct {
		shards, workers, concurrency int
		maxInvalid                   float64
	}
	of := func(o *llmstage.Options) operational {
		c := 0
		if o.LLM != nil {
			c = o.LLM.Concurrency
		}
		return operational{o.Shards, o.Workers, c, o.MaxInvalidShare}
	}
	for _, tc := range []struct {
		name           string
		options        func(*config.Config) *llmstage.Options
		sample         operational
		backendDefault string
	}{
		{"tag", func(c *config.Config) *llmstage.Options { return &tag.Section.Of(c).Options }, operational{3, 7, 5, 0.25}, "lexical"},
		{"summarize", func(c *config.Config) *llmstage.Options { return &summarize.Section.Of(c).Options }, operational{2, 4, 0, 0.75}, "extractive"},
		{"rewrite", func(c *config.Config) *llmstage.Options { return &rewrite.Section.Of(c).Options }, operational{5, 2, 0, 1}, "offline"},
		{"audit", func(c *config.Config) *llmstage.Options { return &audit.Section.Of(c).Options }, operational{4, 9, 0, 0.1}, "lexical"},
		{"judge", func(c *config.Config) *llmstage.Options { return &judge.Section.Of(c).Options }, operational{6, 3, 2, 0.2}, "lexical"},
	} {
		d := tc.options(defaults)
		if got, want := of(d), (operational{1, 0, 0, llmstage.DefaultMaxInvalidShare}); got != want || d.Backend != tc.backendDefault || d.ParseRetries != 2 {
			t.Errorf("%s defaults: %+v, backend %q, parse_retries %d; want %+v, %q, 2", tc.name, got, d.Backend, d.ParseRetries, want, tc.backendDefault)
		}
		if got := of(tc.options(sample)); got != tc.sample {
			t.Errorf("%s sample: %+v, want %+v", tc.name, got, tc.sample)
		}
	}
}
