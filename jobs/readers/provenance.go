package readers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// labelStages are the datasets of labels a report's numbers rest on, with
// the stage (and config section) that writes each.
var labelStages = map[string]string{
	dataset.Topics.Name:    "tag",
	dataset.Summaries.Name: "summarize",
	dataset.Judgments.Name: "judge",
}

// Labeller is a backend, and its model, that produced one dataset of
// labels, as the manifests of the shards that wrote it record it.
type Labeller struct {
	// Labels is the dataset: topics, summaries or judgments.
	Labels string `json:"labels"`
	// Stage is the stage that wrote it (tag, summarize, judge).
	Stage string `json:"stage"`
	// Backend is <stage>.backend as the writing shards' manifests record
	// it (lexical, extractive, llm); empty when a manifest does not record
	// one (data not written by that stage).
	Backend string `json:"backend"`
	// Model is the model of the llm backend (<stage>.llm.model, else
	// llm.model); empty offline.
	Model string `json:"model,omitempty"`
	// Offline: an offline backend (not an LLM) produced these labels.
	Offline bool `json:"offline"`
}

// Provenance says who produced the labels a report's numbers rest on, so
// that numbers from offline backends are never taken for a model's. It is
// read from the manifests of the shards that wrote the labels, not from
// the run's config, so it names what actually produced the data; those
// datasets become the step's inputs (their parts recorded unread, with the
// writers' hashes), so a report whose labels were remade is stale.
type Provenance struct {
	Labellers []Labeller `json:"labellers"`
	// Offline: some of the labels come from an offline backend.
	Offline bool `json:"offline"`
	// Note says who produced each dataset of labels; Warning, when any is
	// offline, says plainly that the numbers are not model judgments.
	Note    string `json:"note"`
	Warning string `json:"warning,omitempty"`
}

// ReadProvenance reads the provenance of the named label datasets
// (topics, summaries, judgments), which the step must declare as inputs,
// in the order given; shards that differ each add their own labeller.
func ReadProvenance(ctx context.Context, env *stage.Env, datasets ...string) (Provenance, error) {
	var p Provenance
	seen := map[Labeller]bool{}
	for _, ds := range datasets {
		st, ok := labelStages[ds]
		if !ok {
			return p, fmt.Errorf("provenance of %s: not a dataset of labels (a bug: one of topics, summaries, judgments)", ds)
		}
		if _, err := env.Upstream(ctx, ds); err != nil {
			return p, fmt.Errorf("provenance of %s: %w", ds, err)
		}
		for _, m := range env.Writers(ds) {
			l := Labeller{Labels: ds, Stage: st, Backend: configString(m.Config, st+".backend")}
			if l.Backend == "llm" {
				if l.Model = configString(m.Config, st+".llm.model"); l.Model == "" {
					l.Model = configString(m.Config, "llm.model")
				}
			}
			l.Offline = l.Backend != "" && l.Backend != "llm"
			if !seen[l] {
				seen[l] = true
				p.Labellers = append(p.Labellers, l)
				p.Offline = p.Offline || l.Offline
			}
		}
	}
	p.Note, p.Warning = p.note()
	return p, nil
}

// configString is a manifest config value (JSON-encoded) as a string, ""
// when absent or not a string.
func configString(cfg map[string]string, key string) string {
	var s string
	if v, ok := cfg[key]; ok && json.Unmarshal([]byte(v), &s) == nil {
		return s
	}
	return ""
}

func (l Labeller) describe() string {
	switch {
	case l.Backend == "":
		return fmt.Sprintf("%s: backend not recorded (its manifests carry no %s.backend)", l.Labels, l.Stage)
	case l.Offline:
		return fmt.Sprintf("%s: %s %s backend (offline)", l.Labels, l.Stage, l.Backend)
	case l.Model == "":
		return fmt.Sprintf("%s: %s %s backend, model not recorded", l.Labels, l.Stage, l.Backend)
	default:
		return fmt.Sprintf("%s: %s %s backend, model %s", l.Labels, l.Stage, l.Backend, l.Model)
	}
}

func (p Provenance) note() (note, warning string) {
	var parts, offline, keys []string
	for _, l := range p.Labellers {
		parts = append(parts, l.describe())
		if l.Offline {
			offline = append(offline, fmt.Sprintf("%s (%s)", l.Labels, l.Backend))
			if k := l.Stage + ".backend"; !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if len(parts) == 0 {
		return "Labels from: none recorded.", ""
	}
	note = "Labels from: " + strings.Join(parts, "; ") + "."
	if p.Offline {
		warning = fmt.Sprintf("These numbers come from offline backends — %s — and are not model judgments; set %s: llm for labels by a model.",
			strings.Join(offline, ", "), strings.Join(keys, ", "))
	}
	return note, warning
}

// Markdown is the provenance as a paragraph for the top of a Markdown
// report, the offline warning in bold.
func (p Provenance) Markdown() string {
	if p.Warning == "" {
		return "**Provenance.** " + p.Note + "\n\n"
	}
	return "**Provenance.** " + p.Note + " **" + p.Warning + "**\n\n"
}

// Text is the provenance in one plain paragraph (a table's note, a LaTeX
// comment).
func (p Provenance) Text() string {
	return strings.TrimSpace("Provenance: " + p.Note + " " + p.Warning)
}
