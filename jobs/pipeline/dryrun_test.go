package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/jobs/stages"
	"github.com/saber-math/saber/lib/synth"
	"github.com/saber-math/saber/shard"
)

const dryYAML = `run: dry
root: %s/data
seed: 3
log: {progress_seconds: 0}
ingest:
  shards: 2
  sources: [{name: s, paths: [%s/synth.jsonl], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]
dedup: {shards: 2}
tag: {shards: 3, tau: %s}
summarize: {shards: 2}
`

// halfRun writes the corpus and config, and runs in-process every shard of
// ingest and dedup, tag's shard 1 and summarize's shard 0: a run stopped
// half way.
func halfRun(t *testing.T) (dir string, cfg *config.Config) {
	t.Helper()
	dir = t.TempDir()
	writeSynth(t, filepath.Join(dir, "synth.jsonl"), synth.Config{N: 150, Seed: 3})
	cfg = dryConfig(t, dir, "0.85")
	root, _ := store.Open(context.Background(), cfg.RootURI(), store.Options{})
	sel, err := Select(cfg, "ingest,dedup,tag,summarize")
	if err != nil {
		t.Fatal(err)
	}
	only := map[string]int{"tag": 1, "summarize": 0}
	for _, st := range sel {
		for _, step := range st.Steps {
			n := step.Count(cfg)
			for i := 0; i < n; i++ {
				if want, ok := only[st.Name]; ok && i != want {
					continue
				}
				if _, err := stage.RunShard(context.Background(), cfg, stages.Of(st), step, shard.Spec{Index: i, Count: n}, root, zerolog.Nop(), stage.Options{}); err != nil {
					t.Fatalf("%s %s %d/%d: %v", st.Name, step.Name, i, n, err)
				}
			}
		}
	}
	return dir, cfg
}

func dryConfig(t *testing.T, dir, tau string) *config.Config {
	t.Helper()
	cfg, err := ParseConfig([]byte(fmt.Sprintf(dryYAML, dir, dir, tau)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestDryRunHalfFinished: on a run stopped half way, the dry run lists
// exactly the missing shards of each step as the ones to run, the rest as
// done, and changes nothing on disk; a changed tag.tau makes tag's done
// shard stale — refused without --rerun-stale, listed to run with it, with
// what downstream reads it (nothing here: pairs is not selected).
func TestDryRunHalfFinished(t *testing.T) {
	ctx := context.Background()
	dir, cfg := halfRun(t)
	sel, err := Select(cfg, "ingest,dedup,tag,summarize")
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	res, err := DryRun(ctx, cfg, sel, Rerun{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the dry run changed files:\nbefore %v\nafter  %v", before, after)
	}
	got := map[string]string{}
	for _, d := range res.Steps {
		got[d.Name] = fmt.Sprintf("run %v missing %v done %v", d.Run, d.Missing, d.Done)
	}
	want := map[string]string{
		"ingest map":    "run [] missing [] done [0 1]",
		"ingest reduce": "run [] missing [] done [0]",
		"dedup map":     "run [] missing [] done [0 1]",
		"dedup reduce":  "run [] missing [] done [0]",
		"tag":           "run [0 2] missing [0 2] done [1]",
		"summarize":     "run [1] missing [1] done [0]",
	}
	for k, w := range want {
		if g := got[k]; g != w {
			t.Errorf("%s: %s, want %s", k, g, w)
		}
	}
	var out bytes.Buffer
	res.Print(&out)
	for _, line := range []string{"tag: 2 of 3 shards to run\n  missing    0, 2\n  done       1\n", "dry run: 3 shards would run"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}

	// The end-of-run summary reads the complete datasets only, and warns
	// that offline backends made the labels.
	sum, err := Summarize(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	sum.Print(&out)
	for _, want := range []string{"rows in              150 read: 0 filtered out by where:, 0 rejected, 150 accepted", "kept (file://", "warning: offline backends in use (tag lexical, summarize extractive, judge lexical, audit lexical)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "topics  ") {
		t.Errorf("summary reports topics, which are not complete:\n%s", out.String())
	}

	// tag.tau changed: shard 1 is stale.
	cfg = dryConfig(t, dir, "0.9")
	res, err = DryRun(ctx, cfg, sel, Rerun{Command: "saber run --config run.yaml"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Refusal == nil || stage.ExitCode(res.Refusal) != stage.ExitBadInput {
		t.Fatalf("stale tag shard: refusal %v, want the stale refusal (exit 2)", res.Refusal)
	}
	out.Reset()
	res.Print(&out)
	if !strings.Contains(out.String(), "  stale      1\n") || !strings.Contains(out.String(), "config tag.tau") || !strings.Contains(out.String(), "--rerun-stale") {
		t.Errorf("stale listing:\n%s", out.String())
	}
	res, err = DryRun(ctx, cfg, sel, Rerun{Stale: true}, false)
	if err != nil || res.Refusal != nil {
		t.Fatal(err, res.Refusal)
	}
	for _, d := range res.Steps {
		if d.Name == "tag" && fmt.Sprint(d.Run) != "[0 1 2]" {
			t.Errorf("tag with --rerun-stale: run %v, want [0 1 2]", d.Run)
		}
	}
	if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the dry run with --rerun-stale changed files")
	}
}
