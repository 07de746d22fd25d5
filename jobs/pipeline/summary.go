package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
)

// Summary is what a run produced and what a user should not miss: each
// step's lines (its Summarize), in the stages' order.
type Summary = stage.Summary

// Summarize reads the summary of cfg's run: each declared step's part
// (stage.Step.Summarize) in the order of Stages, then where the reports
// are and whether offline backends made the labels. A dataset that is not
// complete (a stage not selected, or not run yet) has no line.
func Summarize(ctx context.Context, cfg *config.Config) (*Summary, error) {
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return nil, err
	}
	return SummarizeWith(ctx, stage.NewSummarizer(cfg, root))
}

// SummarizeWith is Summarize through sm, which may know some datasets'
// statistics already (Summarizer.Know).
func SummarizeWith(ctx context.Context, sm *stage.Summarizer) (*Summary, error) {
	cfg, root := sm.Config, sm.Root
	for _, st := range Stages {
		for _, step := range st.Steps {
			if step.Summarize == nil {
				continue
			}
			if err := step.Summarize(ctx, sm); err != nil {
				return nil, fmt.Errorf("summary of %s %s: %w", st.Name, step.Name, err)
			}
		}
	}
	sm.Line("reports", "%s", root.URI(layout.ReportsPrefix(cfg.Run)))
	if off := offline(cfg); len(off) > 0 {
		sm.Warn("offline backends in use (" + strings.Join(off, ", ") + "): the labels are a smoke test, not the paper's; set <stage>.backend: llm with an llm: server")
	}
	return sm.Summary(), nil
}

// offline lists the stages whose backend is an offline one.
func offline(cfg *config.Config) []string {
	var out []string
	for _, st := range []struct{ stage, online string }{{"tag", "llm"}, {"summarize", "llm"}, {"judge", "llm"}, {"audit", "llm"}} {
		if b := strings.Trim(cfg.Values(st.stage)[st.stage+".backend"], `"`); b != "" && b != st.online {
			out = append(out, st.stage+" "+b)
		}
	}
	return out
}
