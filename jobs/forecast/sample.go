package forecast

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/ingest"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/tag"
	"github.com/saber-math/saber/lib/ontology"
	"github.com/saber-math/saber/lib/topics"
)

// sampleBytes is how much of each input file the row count reads: a file
// no larger is counted exactly, a larger one extrapolated by its size.
const sampleBytes = 4 << 20

// inputRows counts the rows of ingest's sources: JSONL lines (non-empty),
// counted in the first sampleBytes of each file and extrapolated by size.
// Other formats (JSON arrays, Parquet, CSV) are counted the same way by
// lines, which is exact for CSV and is flagged as an estimate otherwise.
func inputRows(ctx context.Context, cfg *config.Config) (rows, size float64, basis string, err error) {
	icfg := ingest.Section.Of(cfg)
	files, exact, lineFormats := 0, true, true
	for _, src := range icfg.Sources {
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
				if !strings.HasSuffix(f.Key, ".jsonl") && !strings.HasSuffix(f.Key, ".csv") {
					lineFormats = false
				}
				n, read, err := countLines(ctx, f)
				if err != nil {
					return 0, 0, "", err
				}
				if read < info.Size && read > 0 {
					exact = false
					n = n * float64(info.Size) / float64(read)
				}
				rows += n
			}
		}
	}
	basis = fmt.Sprintf("lines of %d input files", files)
	if !exact {
		basis += fmt.Sprintf(" (the first %d MiB of each, extrapolated by size)", sampleBytes>>20)
	}
	if !lineFormats {
		basis += "; some are not line formats, so an estimate"
	}
	return rows, size, basis, nil
}

// countLines counts the non-empty lines in the first sampleBytes of f.
func countLines(ctx context.Context, f layout.File) (n float64, read int64, err error) {
	rc, err := f.Store.Open(ctx, f.Key)
	if err != nil {
		return 0, 0, fmt.Errorf("open %s: %w", f.URI, err)
	}
	defer rc.Close()
	r := bufio.NewReader(io.NewSectionReader(rc, 0, min(rc.Size(), sampleBytes)))
	for {
		line, err := r.ReadBytes('\n')
		read += int64(len(line))
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
		if err == io.EOF {
			return n, read, nil
		}
		if err != nil {
			return 0, 0, fmt.Errorf("read %s: %w", f.URI, err)
		}
	}
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
