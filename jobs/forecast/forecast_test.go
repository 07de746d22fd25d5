package forecast

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/pipeline"
	"github.com/saber-math/saber/jobs/stages/stagestest"
	"github.com/saber-math/saber/lib/llm/llmtest"
	"github.com/saber-math/saber/lib/synth"
)

// fakeModel answers F.1 with label-overlap scores, F.2 with the start of
// the solution and F.3 with a short verdict whose winner is a hash of
// the prompt: a model whose traversal and answers no forecast can copy.
func fakeModel(req llmtest.ChatRequest) string {
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	sum := sha256.Sum256([]byte(user))
	switch {
	case strings.Contains(user, "[Sample 1]"):
		return fmt.Sprintf("Sample %d shares the target's technique.\n$\\boxed{%d}$", sum[0]%2+1, sum[0]%2+1)
	case strings.Contains(user, "Solution:") && !strings.Contains(user, "JSON:"):
		words := strings.Fields(user[strings.LastIndex(user, "Solution:")+len("Solution:"):])
		words = words[:min(len(words), 8)]
		b, _ := json.Marshal(map[string]any{"noCoreIdea": false, "coreIdea": strings.Join(words, " "), "supportingIdeas": []string{"x"}, "keywords": []string{"y"}, "confidence": 0.8})
		return "```json\n" + string(b) + "\n```"
	}
	i := strings.LastIndex(user, "JSON:")
	if i < 0 {
		return "no tags?"
	}
	text := strings.ToLower(user[:i])
	scores := map[string]float64{}
	for _, tag := range strings.Split(user[i+len("JSON:"):], ",") {
		tag = strings.TrimSpace(tag)
		s := 0.01
		for _, w := range strings.Fields(strings.ToLower(tag)) {
			if len(w) > 3 && strings.Contains(text, w) {
				s++
			}
		}
		scores[tag] = s + float64(sum[2]%3)/100
	}
	b, _ := json.Marshal(scores)
	return string(b)
}

const fakeYAML = `run: fc
root: %s/data
seed: 11
log: {progress_seconds: 0}
llm: {base_url: %q, model: fake-oss, api_key_env: SABER_TEST_LLM_KEY, timeout_seconds: 5, concurrency: 32}
plan: {sample: 40}
ingest:
  shards: 2
  sources: [{name: s, paths: [%s/synth.jsonl], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]
dedup: {shards: 2}
tag: {shards: 2, backend: llm, max_invalid_share: 0.9, workers: 32}
summarize: {shards: 2, backend: llm, workers: 8}
pairs: {shards: 2}
benchmark: {k: 3}
calibrate: {min_eligible: 3}
select: {per_domain: 3, allow_shortfall: true}
judge: {shards: 2, rounds: 5, backend: llm, position_audit: 0.2, workers: 8}
rate: {shards: 1}
`

// fakeServerRun is the run against the fake server that the forecast is
// checked on: the forecast an admin makes with --measure before each GPU
// phase — once the corpus exists (tag, summarize: before any LLM call of
// the run), once the benchmark is selected (judge, rate) — is saved as
// `saber plan --measure --json` would, the phase runs, and the saved
// forecast is compared with the manifests. The server answers every call
// after delay (0: at CPU speed).
func fakeServerRun(t testing.TB, delay time.Duration) fakeRun {
	ctx := context.Background()
	srv := llmtest.NewServer(t, fakeModel)
	t.Setenv("SABER_TEST_LLM_KEY", "sk-test")
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "synth.jsonl"))
	if err := synth.Write(f, synth.Config{N: 200, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg, err := pipeline.ParseConfig([]byte(fmt.Sprintf(fakeYAML, dir, srv.URL, dir)))
	if err != nil {
		t.Fatal(err)
	}
	root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
	sel, err := pipeline.Select(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := Forecast(ctx, cfg, pipeline.Default(), sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	Markdown(&buf, cfg.Run, steps, false)
	plain := buf.String()

	srv.SetDelay(delay)
	forecastAt := func(list string, keep ...string) []*Step {
		t.Helper()
		stagestest.Run(t, cfg, root, list)
		before := srv.Requests()
		steps, err := Forecast(ctx, cfg, pipeline.Default(), sel, Options{Measure: true})
		if err != nil {
			t.Fatal(err)
		}
		if srv.Requests() == before {
			t.Fatal("--measure sent nothing to the server")
		}
		saved, _ := json.Marshal(steps)
		var out []*Step
		if err := json.Unmarshal(saved, &out); err != nil {
			t.Fatal(err)
		}
		var kept []*Step
		for _, st := range out {
			for _, k := range keep {
				if st.Stage == k {
					kept = append(kept, st)
				}
			}
		}
		return kept
	}
	compared := forecastAt("ingest,dedup", "tag", "summarize", "pairs")
	stagestest.Run(t, cfg, root, "tag,summarize")
	compared = append(compared, forecastAt("pairs,calibrate,select", "judge", "rate")...)
	stagestest.Run(t, cfg, root, "judge,rate")
	if err := Compare(ctx, cfg, pipeline.Default(), compared); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	Markdown(&buf, cfg.Run, compared, true)
	return fakeRun{cfg: cfg, plain: plain, steps: compared, md: buf.String()}
}

// fakeRun is what fakeServerRun returns: its config, the plan of every
// stage made before anything ran (Markdown), the forecasts saved before
// each LLM phase with the actuals beside them, and their Markdown.
type fakeRun struct {
	cfg       *config.Config
	plain, md string
	steps     []*Step
}

// TestForecastAgainstFakeServer is the bar on a run against the
// fake server: every stage is in the plan made before anything ran, and
// every count of the forecasts saved before each LLM phase (--measure
// sending a 40-document sample of 200) is within 10% of what the
// manifests recorded: tag's calls (the model's own traversal),
// summarize's, judge's Swiss comparisons and audit, and the tokens (the
// server's /tokenize for prompts, the measured answers for completions).
// GPU-hours are compared, not checked here: they are timed, and move with
// the machine's load; BenchmarkForecastGPUHours measures them against a
// server with a GPU's latency, on a quiet machine (make bench).
func TestForecastAgainstFakeServer(t *testing.T) {
	run := fakeServerRun(t, 0)
	for _, n := range pipeline.Default().Nodes() {
		if !strings.Contains(run.plain, "## "+n.String()+"\n") && (!n.Stage.Optional || n.Stage.Enabled != nil && n.Stage.Enabled(run.cfg)) {
			t.Errorf("the plan lacks step %s:\n%s", n, run.plain)
		}
	}
	checked := map[string]bool{}
	for _, st := range run.steps {
		for _, m := range st.Metrics {
			if m.Actual == nil {
				continue
			}
			checked[st.Stage+" "+m.Name] = true
			if m.GPUs > 0 {
				// The server's busy time falls within the shards' wall
				// time: both recorded, whatever the machine's load.
				if *m.Actual <= 0 || m.Ratio == nil || m.Held == nil || *m.Held < *m.Actual {
					t.Errorf("%s %s: forecast %.3g, busy %v, held %v: want a busy time within the shards' wall time", st.Name, m.Name, m.Value, m.Actual, m.Held)
				} else {
					t.Logf("%s %s: forecast %.3g, server busy %.3g (forecast/actual %.2f), shards' wall time %.3g", st.Name, m.Name, m.Value, *m.Actual, 1 / *m.Ratio, *m.Held)
				}
				continue
			}
			if !m.Within() { // a count: within 10%
				t.Errorf("%s %s: forecast %.0f, actual %.0f: not within 10%%", st.Name, m.Name, m.Value, *m.Actual)
			}
		}
	}
	for _, want := range []string{"tag scorer calls", "tag llm calls", "tag prompt tokens", "tag completion tokens", "tag GPU-hours",
		"summarize llm calls", "summarize prompt tokens", "summarize GPU-hours", "judge GPU-hours", "judge judgments", "judge audited comparisons", "judge llm calls", "judge prompt tokens", "rate ratings"} {
		if !checked[want] {
			t.Errorf("%s was not compared", want)
		}
	}
	if t.Failed() {
		t.Logf("compare:\n%s", run.md)
	}
}

// gpuBenchDelay is the fake server's time a call in
// BenchmarkForecastGPUHours: a GPU server's order (tens of milliseconds to
// seconds), far above what the client and the fake spend per call on the
// CPU (a few milliseconds on 2 cores), so the server's time is what is
// forecast, as on a cluster.
const gpuBenchDelay = 50 * time.Millisecond

// BenchmarkForecastGPUHours measures issue 23's goal for time: GPU-hours
// forecast with --measure within 25% of the actual, the time the server
// was busy with the shards' requests. It runs fakeServerRun once (use
// -benchtime 1x) with every call answered after gpuBenchDelay, and reports
// forecast/actual per LLM step beside the goal. Timed: run it on a quiet
// machine.
func BenchmarkForecastGPUHours(b *testing.B) {
	for range b.N {
		run := fakeServerRun(b, gpuBenchDelay)
		for _, st := range run.steps {
			for _, m := range st.Metrics {
				if m.GPUs == 0 || m.Ratio == nil || *m.Ratio <= 0 {
					continue
				}
				r := 1 / *m.Ratio
				verdict := "PASS"
				if !m.Within() {
					verdict = "FAIL"
				}
				fmt.Printf("%s GPU-hours (%s a call): forecast %.3g, server busy %.3g, forecast/actual %.2f: goal within 25%%: %s; the shards held their GPUs %.3g\n",
					st.Stage, gpuBenchDelay, m.Value, *m.Actual, r, verdict, *m.Held)
				b.ReportMetric(r, st.Stage+"-forecast/actual")
			}
		}
		if b.N == 1 {
			b.Logf("compare:\n%s", run.md)
		}
	}
}

const offlineYAML = `run: orders
root: %s/data
seed: 5
log: {progress_seconds: 0}
ingest:
  shards: 1
  sources: [{name: s, paths: [%s/synth.jsonl], fields: {id: id, statement: statement, solution: solution, subject: domain, source: source}}]
dedup: {shards: 1}
tag: {shards: 1}
summarize: {shards: 1}
pairs: {shards: 1}
benchmark: {k: 3}
calibrate: {min_eligible: 3}
select: {per_domain: 3, allow_shortfall: true}
judge: {shards: 2, rounds: 8, %s}
`

// TestForecastJudgeOrders: the judge's forecast counts what each way of
// auditing its position bias adds — a second judgment of every comparison
// under judge.both_orders (and no audit call), a position_audit share of
// comparisons judged again — within 10% of what the shards record.
func TestForecastJudgeOrders(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, judge string
		audit       bool
	}{
		{"one-order", "position_audit: 0", false},
		{"position-audit", "position_audit: 0.3", true},
		{"both-orders", "both_orders: true", true},
		// An adaptive scheduler's count is played against a simulated
		// judge; the lexical judge here settles about as fast.
		{"active", "scheduler: {kind: active, swiss_rounds: 2, min_rounds: 3, stable_rounds: 2}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f, _ := os.Create(filepath.Join(dir, "synth.jsonl"))
			if err := synth.Write(f, synth.Config{N: 240, Seed: 5}); err != nil {
				t.Fatal(err)
			}
			f.Close()
			cfg, err := pipeline.ParseConfig([]byte(fmt.Sprintf(offlineYAML, dir, dir, tc.judge)))
			if err != nil {
				t.Fatal(err)
			}
			root, _ := store.Open(ctx, cfg.RootURI(), store.Options{})
			stagestest.Run(t, cfg, root, "ingest,dedup,tag,summarize,pairs,calibrate,select")
			sel, _ := pipeline.Select(cfg, "judge")
			steps, err := Forecast(ctx, cfg, pipeline.Default(), sel, Options{})
			if err != nil {
				t.Fatal(err)
			}
			stagestest.Run(t, cfg, root, "judge")
			if err := Compare(ctx, cfg, pipeline.Default(), steps); err != nil {
				t.Fatal(err)
			}
			got := map[string]Metric{}
			for _, m := range steps[0].Metrics {
				got[m.Name] = m
			}
			want := []string{"judgments"}
			if tc.audit {
				want = append(want, "audited comparisons")
			} else if _, ok := got["audited comparisons"]; ok {
				t.Error("an audited-comparisons forecast without an audit")
			}
			for _, name := range want {
				m, ok := got[name]
				if !ok || m.Ratio == nil {
					t.Fatalf("%s: no forecast or no actual (%+v)", name, m)
				}
				if *m.Ratio < 0.9 || *m.Ratio > 1.1 {
					t.Errorf("%s: forecast %.0f, actual %.0f (%s)", name, m.Value, *m.Actual, m.Basis)
				}
			}
			if tc.name == "active" && !strings.Contains(got["judgments"].Basis, "judge.scheduler active") {
				t.Errorf("the forecast does not play the configured scheduler: %s", got["judgments"].Basis)
			}
			if tc.name == "both-orders" && got["audited comparisons"].Value*2 != got["judgments"].Value {
				t.Errorf("both orders: %v audited of %v judgments, want half", got["audited comparisons"].Value, got["judgments"].Value)
			}
		})
	}
}
