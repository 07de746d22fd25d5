package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/kvcache"
	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/judge"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/study"
	"github.com/saber-math/saber/lib/llm"
)

// altUsage is the part of `saber study agreement --help` on the
// alternative judges.
const altUsage = `
Alternative judges (paper App. D.4, Table 6), run over the labelled items:
  --alt-judges LIST    comma-separated, any of:
                       ordinal     prompt F.4 scores each candidate 0–100 against
                                   the target alone; the higher score is the
                                   verdict, a tie within --ordinal-margin
                       majority    the pairwise judge (F.3) asked --votes times,
                                   odd votes with candidate A first, even with B;
                                   a tie when the vote margin is at most
                                   --vote-tie-margin (paper: 5 votes, margin 1)
                       confidence  F.3 also stating its confidence 50–100
                                   (prompt C.1, ours); a tie below
                                   --min-confidence
  --corpus PATH        the documents' texts (corpus schema: id, statement,
                       solution); required with --alt-judges
  --alt-backend lexical|llm
                       lexical (default, offline: content-word overlap, no
                       model; for the demo and tests) or llm: the judge model of
                       --config (judge.llm, else llm) through the run's LLM
                       cache, so a rerun repeats no call. Majority votes differ
                       only if the model samples (llm.temperature > 0).
Each is one more row of Table 6 (and Table 5), scored like every system.
`

type altOptions struct {
	judges, corpus, backend *string
	// fs holds --config, which storageFlag defines: its run's judge model
	// and LLM cache serve --alt-backend llm.
	fs                           *flag.FlagSet
	votes, voteMargin            *int
	ordinalMargin, minConfidence *float64
	seed                         *uint64
}

func altFlags(fs *flag.FlagSet) *altOptions {
	d := study.DefaultAltConfig
	return &altOptions{
		judges:        fs.String("alt-judges", "", "alternative judges to run over the labelled items: `LIST` of ordinal, majority, confidence"),
		corpus:        fs.String("corpus", "", "the documents' texts for --alt-judges (`PATH`, corpus schema)"),
		backend:       fs.String("alt-backend", "lexical", "backend of --alt-judges: lexical (offline) or llm (with --config)"),
		fs:            fs,
		votes:         fs.Int("votes", d.Votes, "majority: votes per item"),
		voteMargin:    fs.Int("vote-tie-margin", d.VoteTieMargin, "majority: a tie when the vote margin is at most this"),
		ordinalMargin: fs.Float64("ordinal-margin", d.OrdinalMargin, "ordinal: a tie when the two scores differ by at most this"),
		minConfidence: fs.Float64("min-confidence", d.MinConfidence, "confidence: a tie below this confidence"),
		seed:          fs.Uint64("alt-seed", 1, "lexical backend: seed of the votes' noise"),
	}
}

// systems runs the requested alternative judges; none requested, none.
func (o *altOptions) systems(ctx context.Context, labels []study.Label, opts store.Options) ([]study.System, error) {
	if *o.judges == "" {
		return nil, nil
	}
	var kinds []string
	for _, k := range strings.Split(*o.judges, ",") {
		k = strings.TrimSpace(k)
		if k != study.AltOrdinal && k != study.AltMajority && k != study.AltConfidence {
			return nil, stage.BadInput(fmt.Errorf("--alt-judges: %q is not one of ordinal, majority, confidence", k))
		}
		kinds = append(kinds, k)
	}
	if *o.corpus == "" {
		return nil, stage.BadInput(fmt.Errorf("--alt-judges needs --corpus PATH: the texts of the targets and candidates"))
	}
	if *o.votes < 1 || *o.voteMargin < 0 || *o.ordinalMargin < 0 {
		return nil, stage.BadInput(fmt.Errorf("--votes must be ≥ 1, --vote-tie-margin and --ordinal-margin ≥ 0"))
	}
	cfg := study.AltConfig{Votes: *o.votes, VoteTieMargin: *o.voteMargin, OrdinalMargin: *o.ordinalMargin,
		MinConfidence: *o.minConfidence, Workers: study.DefaultAltConfig.Workers}
	var backend study.AltBackend
	switch *o.backend {
	case "lexical":
		backend = &study.LexicalAlt{Seed: *o.seed, Noise: 0.02}
	case "llm":
		b, err := o.llmBackend(ctx)
		if err != nil {
			return nil, err
		}
		backend = b
	default:
		return nil, stage.BadInput(fmt.Errorf("--alt-backend %q: want lexical or llm", *o.backend))
	}
	docs, err := study.ReadParquet[readers.Doc](ctx, *o.corpus, opts)
	if err != nil {
		return nil, fmt.Errorf("--corpus: %w", err)
	}
	texts := make(map[string]*readers.Doc, len(docs))
	for i := range docs {
		texts[docs[i].ID] = &docs[i]
	}
	items, err := study.Items(labels)
	if err != nil {
		return nil, err
	}
	var out []study.System
	for _, k := range kinds {
		name := map[string]string{
			study.AltOrdinal:    "Ordinal judge",
			study.AltMajority:   fmt.Sprintf("Majority judge (%d votes)", cfg.Votes),
			study.AltConfidence: fmt.Sprintf("Pairwise judge (confidence ≥ %g)", cfg.MinConfidence),
		}[k]
		if *o.backend == "lexical" {
			name += " [offline lexical]"
		}
		sys, err := study.AltSystem(ctx, name, k, items, texts, backend, cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, sys)
	}
	return out, nil
}

func (o *altOptions) llmBackend(ctx context.Context) (*study.LLMAlt, error) {
	path := ""
	if f := o.fs.Lookup("config"); f != nil {
		path = f.Value.String()
	}
	if path == "" {
		return nil, stage.BadInput(fmt.Errorf("--alt-backend llm needs --config FILE: the run whose judge model (judge.llm, else llm) and LLM cache to use"))
	}
	cfg, _, err := loadConfig(path)
	if err != nil {
		return nil, err
	}
	jc := judge.Section.Of(cfg)
	lcfg := cfg.LLMFor(jc.LLM)
	if err := lcfg.Validate(); err != nil {
		return nil, stage.BadInput(fmt.Errorf("%s: judge.llm: %w", path, err))
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, stage.BadInput(fmt.Errorf("%s: root: %w", path, err))
	}
	client, err := llm.New(lcfg, kvcache.New(root, layout.LLMCachePrefix(cfg.Run)))
	if err != nil {
		return nil, stage.BadInput(err)
	}
	return &study.LLMAlt{Client: client, ModelID: lcfg.Model, Retries: jc.ParseRetries}, nil
}
