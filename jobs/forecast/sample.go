package forecast

import (
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/topics"
)

// inputRows counts the rows ingest stages from its sources: records as
// ingest reads them (JSON lines, the elements of a JSON array, Parquet
// rows), less those where: drops, one per element of an exploded list
// (countFile), in the first sampleBytes of each file and extrapolated by
// size.
func inputRows(ctx context.Context, cfg *config.Config) (rows, size float64, basis string, err error) {
	icfg := ingest.Section.Of(cfg)
	files, sampled := 0, 0
	formats := map[string]int{}
	weighed := false
	for i := range icfg.Sources {
		src := &icfg.Sources[i]
		weighed = weighed || !newWeigher(src).plain
		for _, pat := range src.Paths {
			fs, err := layout.Files(ctx, cfg.Resolve(pat), cfg.Storage, nil)
			if err != nil {
				return 0, 0, "", fmt.Errorf("ingest source %s: %q: %w", src.Name, pat, err)
			}
			for _, f := range fs {
				info, err := f.Store.Stat(ctx, f.Key)
				if err != nil {
					return 0, 0, "", fmt.Errorf("stat %s: %w", f.URI, err)
				}
				files++
				size += float64(info.Size)
				fc, err := countFile(ctx, src, f, info.Size)
				if err != nil {
					return 0, 0, "", fmt.Errorf("ingest source %s: %w", src.Name, err)
				}
				rows += fc.rows
				formats[fc.format]++
				if fc.sampled {
					sampled++
				}
			}
		}
	}
	var kinds []string
	for _, k := range []string{"jsonl", "json", "parquet"} {
		if formats[k] > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", formats[k], map[string]string{"jsonl": "JSON lines", "json": "JSON array", "parquet": "Parquet"}[k]))
		}
	}
	basis = fmt.Sprintf("records of %d input files (%s), as ingest reads them", files, strings.Join(kinds, ", "))
	if weighed {
		basis += ", less where: filters, one row per element of an exploded list"
	}
	if sampled > 0 {
		basis += fmt.Sprintf("; %d files sampled (the first %d KiB of each, or %d Parquet rows) and extrapolated by size", sampled, sampleBytes>>10, sampleParquetRows)
	}
	return rows, size, basis, nil
}

func loadTree(ctx context.Context, in *Input) (*ontology.Tree, []layout.Object, error) {
	return readers.LoadOntology(ctx, in.Config)
}

// tagCallsPerDoc is the scorer calls per document: the lexical traversal
// of a seeded corpus sample when the corpus exists (the tag backend's own
// with backend: lexical; a proxy for the llm's, whose answers --measure
// gets), else the ontology's descent cost (a floor: one kept child per
// level).
func tagCallsPerDoc(ctx context.Context, in *Input, cfg *tag.Config) (float64, string, error) {
	tree, _, err := loadTree(ctx, in)
	if err != nil {
		return 0, "", err
	}
	docs, err := sampleDocs(ctx, in)
	if err != nil {
		return 0, "", err
	}
	if len(docs) > 0 && cfg.Backend == "llm" && in.Opt.Measure {
		lcfg := in.Config.LLMFor(cfg.LLM)
		m, err := in.measureOnce(ctx, lcfg, "topics", inFlight(cfg.Workers, lcfg))
		if err != nil {
			return 0, "", fmt.Errorf("--measure: %w", err)
		}
		return m.perRow, fmt.Sprintf("--measure: the model's traversal of %d sampled documents", m.rows), nil
	}
	if len(docs) > 0 && cfg.Backend == "llm" {
		// The model's own traversals, read back from the run's cache,
		// when earlier runs tagged some of the sample (a rebuild).
		look, err := in.lookOnce(ctx, in.Config.LLMFor(cfg.LLM), "topics")
		if err != nil {
			return 0, "", err
		}
		if look != nil && look.cached > 0 {
			return look.perRow, fmt.Sprintf("the model's traversal of the %d of %d sampled documents the run's LLM cache answers", look.cached, look.rows), nil
		}
	}
	if len(docs) == 0 {
		return tree.DescentCalls(), fmt.Sprintf("the ontology's descent cost, one kept child per level over %d nodes: a floor, as documents keep several", tree.Len()), nil
	}
	lex := topics.NewLexical(tree)
	var calls float64
	for _, d := range docs {
		a, err := topics.Assign(ctx, tree, lex, topics.Text{Statement: d.Statement, Solution: d.Solution}, cfg.Tau, cfg.MaxCalls)
		if err != nil && ctx.Err() != nil {
			return 0, "", ctx.Err()
		}
		calls += float64(a.Calls)
	}
	how := fmt.Sprintf("the lexical traversal of %d sampled documents", len(docs))
	if cfg.Backend == "llm" {
		how += ", a proxy for the model's (--measure asks it)"
	}
	return calls / float64(len(docs)), how, nil
}
