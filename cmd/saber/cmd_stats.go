package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdStats(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("stats", `saber stats — what each stage did, from its shard manifests

Usage:
  saber stats --config run.yaml [--stages tag,summarize] [--json]

Sums the statistics every shard recorded in its completion manifest, per
stage step: rows read and rejected (ingest), clusters and dropped (dedup),
LLM calls made, cached, retried and failed, tokens and latency, the share
of prompt tokens the server served from its prefix cache, and the share
of invalid results (tag, summarize, judge, audit), topics per document, depths and domains (tag), summary lengths
(summarize), pairs per category (pairs). Steps with no finished shard are
listed as such. Without --stages, the run's summary follows, as saber run
prints it at its end.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	stages := fs.String("stages", "", "comma-separated `list` of stages (default: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "stats", err)
	}
	sel, err := pipeline.Select(cfg, *stages)
	if err != nil {
		return fail(stderr, "stats", err)
	}
	root, err := store.Open(ctx, cfg.RootURI(), cfg.Storage)
	if err != nil {
		return fail(stderr, "stats", stage.BadInput(err))
	}
	type stepStats struct {
		Stage  string           `json:"stage"`
		Step   string           `json:"step"`
		Shards int              `json:"shards_done"`
		Stats  map[string]int64 `json:"stats"`
		Note   string           `json:"note,omitempty"`
	}
	var all []stepStats
	sm := stage.NewSummarizer(cfg, root) // the summary below reads what this loop read
	for _, st := range sel {
		for _, step := range st.Steps {
			s := stepStats{Stage: st.Name, Step: step.Name, Stats: map[string]int64{}}
			ms, err := layout.Complete(ctx, root, cfg.Run, step.Outputs[0])
			var inc *layout.IncompleteError
			switch {
			case errors.As(err, &inc):
				s.Note = inc.Msg
				sm.Know(step.Outputs[0], nil)
			case err != nil:
				return fail(stderr, "stats", err)
			}
			for _, m := range ms {
				s.Shards++
				for k, v := range m.Stats {
					s.Stats[k] += v
				}
			}
			if err == nil {
				sm.Know(step.Outputs[0], s.Stats)
			}
			all = append(all, s)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return fail(stderr, "stats", err)
		}
		return stage.ExitOK
	}
	for _, s := range all {
		fmt.Fprintf(stdout, "%s %s (%d shards)\n", s.Stage, s.Step, s.Shards)
		if s.Note != "" {
			fmt.Fprintf(stdout, "  not complete: %s\n", s.Note)
		}
		keys := make([]string, 0, len(s.Stats))
		for k := range s.Stats {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(stdout, "  %-28s %d\n", k, s.Stats[k])
		}
		// The share of the prompt tokens sent that the server did not
		// compute: what ordering the sends for its prefix cache buys.
		ev, ca := s.Stats[llmcall.StatPromptEvaluated], s.Stats[llmcall.StatPromptCached]
		if ev+ca > 0 {
			fmt.Fprintf(stdout, "  %-28s %.1f%% (%d of %d prompt tokens; %d answers reported the server's cache)\n", "prompt cached share",
				100*float64(ca)/float64(ev+ca), ca, ev+ca, s.Stats[llmcall.StatPromptCacheReports])
		}
		// The LLM stages' invalid results as a share: a shard over its
		// <stage>.max_invalid_share failed, so this is what passed.
		if of := s.Stats[llmcall.StatInvalidShareOf]; of > 0 {
			n := s.Stats[llmcall.StatInvalidShareCount]
			fmt.Fprintf(stdout, "  %-28s %.1f%% (%d of %d; a shard fails above %s.max_invalid_share)\n", "invalid share", 100*float64(n)/float64(of), n, of, s.Stage)
		}
	}
	// The run summary, read from the same manifests: what saber run
	// printed at its end, so the two cannot disagree.
	if *stages == "" {
		sum, err := pipeline.SummarizeWith(ctx, sm)
		if err != nil {
			return fail(stderr, "stats", err)
		}
		sum.Print(stdout)
	}
	return stage.ExitOK
}
