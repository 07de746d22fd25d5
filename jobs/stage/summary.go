package stage

import (
	"context"
	"fmt"
	"io"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
)

// Summary is what a run produced, read from the manifests of its
// complete datasets, and what a user should not miss.
type Summary struct {
	Lines    []string
	Warnings []string
}

// Print writes the summary, then the warnings.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintln(w, "\nSummary")
	for _, l := range s.Lines {
		fmt.Fprintln(w, "  "+l)
	}
	for _, warn := range s.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
}

// A Summarizer is what a step's Summarize reads (the run's config and
// storage, its datasets' statistics) and where it writes its lines.
type Summarizer struct {
	Config *config.Config
	Root   store.Store
	out    Summary
	// stats are the datasets' statistics read so far (nil: not
	// complete): each dataset's manifests are read once.
	stats map[string]map[string]int64
}

// NewSummarizer returns a Summarizer of cfg's run in root.
func NewSummarizer(cfg *config.Config, root store.Store) *Summarizer {
	return &Summarizer{Config: cfg, Root: root, stats: map[string]map[string]int64{}}
}

// Summary is what the steps wrote.
func (s *Summarizer) Summary() *Summary { return &s.out }

// Stats are a dataset's statistics summed over its complete manifests;
// nil when it is not complete.
func (s *Summarizer) Stats(ctx context.Context, ds string) map[string]int64 {
	if st, ok := s.stats[ds]; ok {
		return st
	}
	st, err := layout.SumStats(ctx, s.Root, s.Config.Run, ds)
	if err != nil {
		st = nil
	}
	s.stats[ds] = st
	return st
}

// Know records what the caller already summed of a complete dataset's
// manifests (nil: not complete), so that Stats does not read them again:
// `saber stats` reads every step's first output for its own table.
func (s *Summarizer) Know(ds string, stats map[string]int64) { s.stats[ds] = stats }

// Where is the URI of a dataset, for a line to point at.
func (s *Summarizer) Where(ds string) string {
	return s.Root.URI(layout.DatasetPrefix(s.Config.Run, ds))
}

// Line adds a line: its name, padded, then the text.
func (s *Summarizer) Line(name, format string, a ...any) {
	s.out.Lines = append(s.out.Lines, fmt.Sprintf("%-20s %s", name, fmt.Sprintf(format, a...)))
}

// Warn adds a warning; an empty one is none.
func (s *Summarizer) Warn(w string) {
	if w != "" {
		s.out.Warnings = append(s.out.Warnings, w)
	}
}
