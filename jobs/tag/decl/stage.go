package decl

import (
	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/stage"
)

// BackendSynthetic draws each document's topics from lib/synth/corpusdist
// (seeded by the run seed and the document's id) instead of reading it:
// labels with the shape of a real tagged corpus, at no cost, for
// benchmarking the CPU stages at scale (saber bench --scale) on generated
// corpora, whose template-made texts no tagger would spread realistically.
// summarize's synthetic backend draws the same documents' core ideas, so
// the two correlate as corpusdist makes them. Not a tagger.
const BackendSynthetic = "synthetic"

// StatImplausibleTopics counts, in a shard's manifest, the topics on more
// of its documents than plausible (see finish); `saber run`'s summary
// warns when it is not 0.
const StatImplausibleTopics = "implausible_topics"

// Stage is the tag stage.
var Stage = stage.Stage{
	Name:    "tag",
	Summary: "ontology topics per document (prompt F.1, offline lexical, or synthetic for benchmarks): corpus → topics",
	Section: Section,
	Uses: func(c *config.Config) []string {
		uses := []string{"benchmark.ontology"}
		switch Section.Of(c).Backend {
		case llmstage.BackendLLM:
			uses = append(uses, "llm")
		case BackendSynthetic:
			uses = append(uses, "seed") // the labels are drawn from it
		}
		return uses
	},
	Steps: []stage.Step{{
		Name:      "map",
		Inputs:    []string{dataset.Corpus.Name},
		Outputs:   []string{dataset.Topics.Name, dataset.TagRejects.Name},
		Summarize: summary,
		Forecast:  forecast,
		Cache:     true,
		Shards:    func(c *config.Config) int { return Section.Of(c).Shards },
	}},
}
