package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/saber-math/saber/jobs/forecast"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/plan"
	"github.com/saber-math/saber/jobs/stage"
)

func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("plan", `saber plan — forecast what a run will cost, and check the forecast after it

Usage:
  saber plan --config run.yaml [--stages tag,judge] [--json] [--measure] [--compare]

Per stage step, before anything runs: shards and Slurm array jobs (after
slurm.max_array_size splits), rows, LLM calls (tag from the ontology and a
sampled traversal, summarize one per document, judge from the Swiss
schedule, twice under judge.both_orders, plus judge.position_audit's
re-judged sample, audit from audit.top), prompt tokens (the server's /tokenize on
sampled prompts, else about 4 characters per token), completion tokens
(the done shards' answers, else llm.max_tokens, else a typical answer),
the server's time and GPU-hours (each shard's phases — its documents, or
one Swiss round at a time — sent in waves of the stage's concurrency, at a
call's time from plan.calls_per_second or --measure, times plan.gpus), bytes per
dataset from the bytes per row of done parts, and the calls the cache and
done shards save. A dataset that is complete is counted, not forecast, so
the forecast sharpens as the run goes.

--measure sends plan.sample sampled rows per LLM step to the configured
server (answers already cached are served from the cache; new ones are not
stored in the run) and uses the measured calls, tokens and time a call at
the stage's concurrency (whole waves, the first one not timed).
--compare puts beside each count the actual its done shards' manifests
recorded, with the ratio actual/forecast (over the done shards' share);
for GPU-hours the actual is the time the server was busy with the shards'
requests (llm_busy_ms), with the shards' wall time beside it.
A complete input is counted rather than forecast, so to check the forecast
made before a run, save it (saber plan --json > plan.json) and compare that
one afterwards: saber plan --compare --forecast plan.json.

With plan.beside_paper (examples/paper-scale.yaml) the Markdown ends with
each LLM stage's GPU-hours beside the paper's App. E figures, the saving
of each mechanism (scheduler, prefix reuse, caching) with its source, and
whether issue 41's goal (≤ 40% of App. E's) is met, and on what.
`, stderr)
	cfgPath := fs.String("config", "", "run config `FILE`")
	stages := fs.String("stages", "", "comma-separated `list` of stages (default: the main line)")
	asJSON := fs.Bool("json", false, "print JSON")
	measure := fs.Bool("measure", false, "send a seeded sample of each LLM step's prompts to the server to measure calls, tokens and throughput")
	compare := fs.Bool("compare", false, "put the manifests' actuals beside each forecast, with the ratio")
	saved := fs.String("forecast", "", "with --compare: compare this earlier `FILE` of saber plan --json instead of forecasting anew")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, _, err := loadConfig(*cfgPath)
	if err != nil {
		return fail(stderr, "plan", err)
	}
	sel, err := pipeline.Select(cfg, *stages)
	if err != nil {
		return fail(stderr, "plan", err)
	}
	var steps []*forecast.Step
	if *saved != "" {
		if !*compare {
			return fail(stderr, "plan", stage.BadInput(fmt.Errorf("--forecast FILE is read by --compare; add --compare")))
		}
		b, err := os.ReadFile(*saved)
		if err != nil {
			return fail(stderr, "plan", stage.BadInput(err))
		}
		if steps, err = plan.Parse(b, *saved); err != nil {
			return fail(stderr, "plan", stage.BadInput(err))
		}
		if err := forecast.Compare(ctx, cfg, pipeline.Default(), steps); err != nil {
			return fail(stderr, "plan", err)
		}
	} else {
		steps, err = forecast.Forecast(ctx, cfg, pipeline.Default(), sel, forecast.Options{Measure: *measure, Compare: *compare})
	}
	if err != nil {
		return fail(stderr, "plan", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(steps); err != nil {
			return fail(stderr, "plan", err)
		}
		return stage.ExitOK
	}
	forecast.Markdown(stdout, cfg.Run, steps, *compare)
	if cfg.Plan.BesidePaper {
		forecast.BesidePaper(stdout, cfg, steps)
	}
	return stage.ExitOK
}
