package forecast

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	judgedecl "github.com/saber-math/saber/jobs/judge/decl"
	reportdecl "github.com/saber-math/saber/jobs/report/decl"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/lib/schedule"
)

// PaperFigure is one of the paper's compute figures (App. E): a stage's
// wall time on its GPUs, with the sentence it comes from, so that the
// figure printed beside a forecast is the paper's own (the test finds
// each Quote in the paper and reads Hours and GPUs back from it).
type PaperFigure struct {
	// Stage is the stage whose forecast stands beside the figure.
	Stage string
	// What the paper timed, in its words.
	What    string
	Hours   float64
	GPUs    int
	AtLeast bool // GPUs counts nodes: at least one GPU each
	Section string
	Quote   string
}

// GPUHours is the figure's hours × GPUs (a floor when AtLeast).
func (f PaperFigure) GPUHours() float64 { return f.Hours * float64(f.GPUs) }

// AppendixE are the paper's GPU figures, in its order. Its App. E.1
// (OpenAI Batch API, $300) and the BM25/Jaccard hour on CPUs spend no GPU
// time and are left out.
var AppendixE = []PaperFigure{
	// "two days": 48 hours.
	{Stage: "tag", What: "topic extraction", Hours: 48, GPUs: 8, Section: "E.2",
		Quote: "Topic extraction for all $\\sim$283K problems took approximately two days using 8 H200 GPUs."},
	{Stage: "summarize", What: "summary extraction", Hours: 12, GPUs: 4, Section: "E.2",
		Quote: "Extracting summaries for all solutions in the corpus took approximately 12 hours using 4 H200 GPUs."},
	// "4 H200 GPU nodes": the GPUs per node are not stated, so 4 × 160
	// GPU-hours is a floor, and a forecast's share of it a ceiling.
	{Stage: "judge", What: "pairwise judging", Hours: 160, GPUs: 4, AtLeast: true, Section: "E.2",
		Quote: "Pairwise judging for the 1000 filtered queries took approximately 160 hours on 4 H200 GPU nodes."},
	{Stage: "evaluate", What: "evaluating the open-weight embedding models", Hours: 200, GPUs: 4, Section: "E.3",
		Quote: "Computing the benchmark results in Tables 1 and 8 took approximately 200 hours using 4 H200 GPUs for the open-weight embedding models."},
}

// paperRounds is the paper's tournament, the reference the scheduler's
// saving is counted against: R = 20 Swiss rounds (§3.5, App. D.2).
const paperRounds = 20

// goalShare is issue 41's goal: the build at ≤ 40% of App. E's GPU time,
// at equal fidelity.
const goalShare = 0.40

// BesidePaper writes, after a forecast (plan.beside_paper), each stage's
// GPU-hours beside App. E's, the totals and their ratio, the saving of
// each mechanism shown apart — scheduler, prefix reuse, the LLM cache —
// each with where its figure comes from, and whether issue 41's goal is
// met, and on what.
func BesidePaper(w io.Writer, cfg *config.Config, steps []*Step) {
	byStage := map[string]*Step{}
	for _, st := range steps {
		if st.LLM != nil || byStage[st.Stage] == nil {
			byStage[st.Stage] = st
		}
	}
	gpus := float64(max(cfg.Plan.GPUs, 1))
	fmt.Fprintf(w, "\n## Beside the paper (App. E)\n\n")
	fmt.Fprintln(w, "| stage | App. E | App. E GPU-hours | forecast calls | forecast GPU-hours | forecast / App. E | calls/s a GPU: forecast, App. E's implied |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---|")
	var paperAll, paperBoth, ours float64
	var both []string
	// atLeast: an App. E figure is a floor (GPU nodes), which makes the
	// ratio a ceiling; floor: a forecast's calls are a floor, which makes
	// it one. Both: the direction is not known.
	atLeast, floor := false, false
	for _, f := range AppendixE {
		paperAll += f.GPUHours()
		ge := ""
		if f.AtLeast {
			ge = "≥ "
		}
		paper := fmt.Sprintf("§%s: %s, %s h on %d H200 %s", f.Section, f.What, trim(f.Hours), f.GPUs, map[bool]string{false: "GPUs", true: "GPU nodes"}[f.AtLeast])
		st := byStage[f.Stage]
		if st == nil || st.LLM == nil || buildHours(st) <= 0 {
			why := "not in the forecast's stages"
			switch {
			case st != nil && st.LLM == nil:
				why = "no GPU forecast: the stage sends no LLM calls (its retrievers' GPU time is not modelled)"
			case st != nil:
				why = fmt.Sprintf("no throughput (plan.calls_per_second.%s, or --measure)", f.Stage)
			}
			fmt.Fprintf(w, "| %s | %s | %s%s | — | — | — | %s |\n", f.Stage, paper, ge, num(f.GPUHours()), why)
			continue
		}
		c, hours := st.LLM, buildHours(st)
		paperBoth += f.GPUHours()
		ours += hours
		both = append(both, f.Stage)
		atLeast = atLeast || f.AtLeast
		calls := num(c.Calls)
		if floorCalls(st) {
			calls += " (a floor)"
			floor = true
		}
		// The paper's throughput is not stated: its calls are taken as
		// the forecast's (the same schedule and prompts), over its
		// GPU-hours; the ratio and it share their direction.
		rel := bound(floorCalls(st), f.AtLeast)
		implied := c.Calls / (f.GPUHours() * 3600)
		fmt.Fprintf(w, "| %s | %s | %s%s | %s | %.1f | %s%.3f | %.3g (%s), %s%.3g |\n", f.Stage, paper, ge, num(f.GPUHours()), calls, hours,
			rel, hours/f.GPUHours(), c.CallsPerSecond/gpus, throughputSource(c, f.Stage), rel, implied)
	}
	fmt.Fprintln(w)
	if paperBoth == 0 {
		fmt.Fprintf(w, "No stage has both a GPU forecast and an App. E figure: set plan.calls_per_second for tag, summarize and judge, or run with --measure.\n")
		return
	}
	cmp := strings.TrimSpace(bound(floor, atLeast))
	if cmp == "" {
		cmp = "="
	}
	ratio := ours / paperBoth
	fmt.Fprintf(w, "Total over %s: forecast %.1f GPU-hours, App. E %s%s: forecast/App. E %s %.3f. App. E in all, evaluate included: %s%s GPU-hours.\n",
		strings.Join(both, ", "), ours, map[bool]string{true: "≥ ", false: ""}[atLeast], num(paperBoth), cmp, ratio, map[bool]string{true: "≥ ", false: ""}[atLeast], num(paperAll))
	if floor {
		fmt.Fprintf(w, "A forecast marked \"a floor\" counts the fewest calls (tag before a corpus exists: the ontology's descent cost, one kept child a level), so its GPU-hours and ratio are floors too.\n")
	}
	fmt.Fprintln(w)

	// Each mechanism's saving, in calls and in the GPU-hours of the
	// stage's calls at the forecast's time a call.
	fmt.Fprintln(w, "| mechanism | calls saved | GPU-hours saved | at equal fidelity | source |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|")
	schedCalls, schedEqual, schedSource := schedulerSaving(cfg, byStage["judge"], candidatesOf(cfg, steps))
	schedHours := 0.0
	if j := byStage["judge"]; j != nil && j.LLM != nil {
		schedHours = schedCalls * perCallHours(j)
	}
	eq := 0.0
	if schedEqual {
		eq = schedHours
	}
	fmt.Fprintf(w, "| scheduler (judge.scheduler) | %s | %.1f | %.1f | %s |\n", num(schedCalls), schedHours, eq, cell(schedSource))
	fmt.Fprintln(w, "| prefix reuse (the server's prefix cache) | not measured | not measured | 0 | it saves prompt prefill, not calls: the shares served from cache are measured (each shard's llm_prompt_cached of its prompt tokens, saber stats; docs/algorithms.md gives CI's llama-server figures), but what prefill is of a call's time on the target server is not, so it is counted as no saving |")
	var cached, cachedHours float64
	for _, f := range AppendixE {
		if st := byStage[f.Stage]; st != nil && st.LLM != nil {
			if !st.LLM.Measured {
				// A measured time a call has the sample's cache hits
				// in it already.
				n := st.LLM.CachedShare * st.LLM.Calls
				cached += n
				cachedHours += n * perCallHours(st)
			}
		}
	}
	cacheSource := "the run's LLM cache: its cached share looked up on a sample of the corpus (each stage's notes say how; with --measure it is in the measured time a call)"
	if cached == 0 {
		cacheSource = "none answered: no corpus yet to look up (a fresh build); a rebuild's forecast looks tag's and summarize's sample up in the run's LLM cache, judge's prompts depend on the run's pairings"
	}
	fmt.Fprintf(w, "| caching (the run's LLM cache) | %s | %.1f | %.1f | %s |\n", num(cached), cachedHours, cachedHours, cell(cacheSource))
	memo := evaluateMemo(cfg, queriesOf(steps), candidatesOf(cfg, steps))
	memoHours := 0.0
	for _, f := range AppendixE {
		if f.Stage == "evaluate" && memo.without > 0 {
			memoHours = f.GPUHours() * memo.saved / memo.without
		}
	}
	fmt.Fprintf(w, "| caching (evaluate's memo, texts embedded) | %s | %.1f at App. E's time | %.1f | %s |\n\n", num(memo.saved), memoHours, memoHours, cell(memo.source))

	// The goal, and what meets it: a measured mechanism's saving holds
	// at any throughput; the rest of the gap is the forecast's time a
	// call against the paper's, which only a measurement confirms.
	saved := eq + cachedHours
	mechShare := 1.0
	if ours+saved > 0 {
		mechShare = ours / (ours + saved)
	}
	measured := true
	for _, s := range both {
		measured = measured && byStage[s].LLM.Measured
	}
	verdict := "met"
	if ratio > goalShare {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "Goal (issue 41): ≤ %.0f%% of App. E's GPU-hours at equal fidelity. This forecast: %s %.1f%%, %s", 100*goalShare, cmp, 100*ratio, verdict)
	if measured {
		fmt.Fprintf(w, " on throughput measured by saber plan --measure.\n")
	} else {
		fmt.Fprintf(w, " only on the assumed throughput (plan.calls_per_second, not measured: its source is the config's comment).\n")
	}
	if memoHours > 0 {
		ge := map[bool]string{true: "≥ ", false: ""}[atLeast]
		fmt.Fprintf(w, "Evaluate's memo takes App. E.3's %s GPU-hours to at most %s (%.0f%%): App. E in all comes to %s%s instead of %s%s.\n",
			num(paperAll-paperBoth), num(paperAll-paperBoth-memoHours), 100*(paperAll-paperBoth-memoHours)/(paperAll-paperBoth), ge, num(paperAll-memoHours), ge, num(paperAll))
	}
	fmt.Fprintf(w, "Over %s, the mechanisms' savings at equal fidelity come to %.1f GPU-hours: at App. E's own time a call they alone would leave %.0f%% of its GPU-hours, ", strings.Join(both, ", "), saved, 100*mechShare)
	if mechShare <= goalShare {
		fmt.Fprintf(w, "which meets the goal.\n")
	} else {
		fmt.Fprintf(w, "which does not meet the goal; the rest of the gap is the throughput, App. E's implied calls/s a GPU against the forecast's.\n")
	}
}

// schedulerSaving is the judge calls the configured scheduler saves
// against the paper's Swiss R = 20 over the same queries and candidates,
// whether that saving is at equal fidelity, and where the figures come
// from.
func schedulerSaving(cfg *config.Config, st *Step, n int) (calls float64, equal bool, source string) {
	if st == nil || st.LLM == nil {
		return 0, false, "no judge forecast"
	}
	var queries, judgments float64
	for _, m := range st.Metrics {
		switch m.Name {
		case "queries":
			queries = m.Value
		case "judgments":
			judgments = m.Value
		}
	}
	jcfg := judgedecl.Section.Of(cfg)
	ref, err := schedule.Matches(schedule.Config{Kind: schedule.Swiss}, n, paperRounds, cfg.Seed)
	if err != nil {
		return 0, false, fmt.Sprintf("Swiss R = %d not computed: %v", paperRounds, err)
	}
	orders := 1.0
	if jcfg.BothOrders {
		orders = 2
	}
	calls = queries*float64(ref)*orders - judgments
	kind := jcfg.Schedule().Kind
	if kind == "" {
		kind = schedule.Swiss
	}
	if kind == schedule.Swiss && jcfg.Rounds == paperRounds {
		return calls, true, fmt.Sprintf("the config plays the paper's Swiss R = %d (%s comparisons a query of %d candidates, the forecast's own schedule): nothing to save", paperRounds, num(float64(ref)), n)
	}
	// No scheduler has met the fidelity goal yet: a saving in calls is
	// not one at equal fidelity until `saber study scheduling` says so.
	return calls, false, fmt.Sprintf("judge.scheduler %s over judge.rounds = %d against Swiss R = %d's %d comparisons a query; not at equal fidelity: no scheduler meets issue 41's fidelity goal in any of the 12 studies of saber study scheduling --sweep (docs/benchmarks.md#judge-schedulers-saber-study-scheduling), so it counts 0", kind, jcfg.Rounds, paperRounds, ref)
}

// memoForecast is what evaluate's memo (jobs/retrieval/memo.go) saves
// the bi-encoders of evaluate.retrievers: texts embedded without it and
// saved with it.
type memoForecast struct {
	without, saved float64
	source         string
}

// evaluateMemo counts, for q queries of c candidates, the texts the
// evaluated bi-encoders embed without the memo (every setting embeds each
// query and its candidates: settings × q × (c+1) a retriever) and with it:
// each document text once per model and document form (the full text for
// statement-full and full-full, the statement for statement-statement),
// each query text once per retriever and query form, and the latency
// sample's queries again, cold, in the main setting. It counts every
// candidate as a different document, so its saving is a floor: candidates
// that several queries share save more.
func evaluateMemo(cfg *config.Config, q, c int) memoForecast {
	if q == 0 || c == 0 {
		return memoForecast{source: "no queries or candidates in the forecast"}
	}
	docForm := map[string]string{"statement-full": "full", "full-full": "full", "statement-statement": "statement"}
	queryForm := map[string]string{"statement-full": "statement", "full-full": "full", "statement-statement": "statement"}
	docForms, queryForms := map[string]bool{}, map[string]bool{}
	for _, s := range cfg.Evaluate.Settings {
		docForms[docForm[s]], queryForms[queryForm[s]] = true, true
	}
	latency := float64(min(reportdecl.LatencyQueries(cfg), q))
	models := map[string]bool{} // model, dimensions and document template: the texts they share
	var n int
	var f memoForecast
	for _, name := range cfg.Evaluate.Retrievers {
		spec, ok := cfg.Retrievers[name]
		if !ok || spec.Kind != retrievers.KindEmbedding {
			continue
		}
		n++
		f.without += float64(len(cfg.Evaluate.Settings)*q) * float64(c+1)
		with := float64(len(queryForms)*q) + latency*float64(c+1)
		model := fmt.Sprint(spec.Model, "\x00", spec.Dimensions, "\x00", spec.Format, "\x00", spec.DocTemplate)
		if !models[model] {
			models[model] = true
			with += float64(len(docForms) * q * c)
		}
		f.saved += float64(len(cfg.Evaluate.Settings)*q)*float64(c+1) - with
	}
	if n == 0 {
		f.source = "no bi-encoder (kind embedding) in evaluate.retrievers: the memo saves a fresh build nothing to forecast; cross-encoders score each (query, document) pair once per setting either way, and a rerun asks only the latency sample"
		return f
	}
	f.source = fmt.Sprintf("%d bi-encoder(s) × %d setting(s) × %s queries × (%d candidates + 1) = %s texts without the memo; with it each document text once per model and form, each query text once per form, the latency sample (%s queries) again cold: %.0f%% fewer, a floor (every candidate counted as a different document; shared candidates save more). TestEvaluateComputesEachThingOnce counts the same on the fake server. GPU-hours: that share of App. E.3's, if its hours went to the bi-encoders' texts embedded per query and setting, which App. E does not say",
		n, len(cfg.Evaluate.Settings), num(float64(q)), c, num(f.without), num(latency), 100*f.saved/f.without)
	return f
}

// queriesOf is the queries the forecast's steps count: the first step
// with query rows (select's), else the judge forecast's queries metric.
func queriesOf(steps []*Step) int {
	for _, st := range steps {
		if r := st.Rows[dataset.Queries.Name]; r > 0 {
			return int(r)
		}
	}
	for _, st := range steps {
		for _, m := range st.Metrics {
			if st.Stage == "judge" && m.Name == "queries" {
				return int(m.Value)
			}
		}
	}
	return 0
}

// candidatesOf is the candidates a query the judge forecast played: the
// select step's forecast rows when it is among the steps, else 3 ×
// benchmark.k, as select forecasts them.
func candidatesOf(cfg *config.Config, steps []*Step) int {
	for _, st := range steps {
		q, c := st.Rows[dataset.Queries.Name], st.Rows[dataset.Candidates.Name]
		if q > 0 && c > 0 {
			return int(c/q + 0.5)
		}
	}
	return 3 * cfg.Benchmark.K
}

// bound is the relation a ratio of a forecast to App. E holds to the
// true one: "≥ " when the forecast's calls are a floor, "≤ " when App.
// E's GPU-hours are, "~ " when both (the direction is not known).
func bound(floorCalls, paperFloor bool) string {
	switch {
	case floorCalls && paperFloor:
		return "~ "
	case floorCalls:
		return "≥ "
	case paperFloor:
		return "≤ "
	}
	return ""
}

// floorCalls says whether the step's calls are a floor: tag's before
// the corpus exists (the ontology's descent cost, one kept child a level).
func floorCalls(st *Step) bool {
	for _, m := range st.Metrics {
		if strings.Contains(m.Basis, "a floor") {
			return true
		}
	}
	return false
}

// buildHours is a step's GPU-hours over the whole build, its done shards
// included (its "GPU-hours" metric; LLM.GPUHours counts only the shards
// still to run): what App. E timed.
func buildHours(st *Step) float64 {
	for _, m := range st.Metrics {
		if m.Name == "GPU-hours" {
			return m.Value
		}
	}
	return 0
}

// perCallHours is a step's GPU-hours a call the server answers: a
// configured throughput's for the calls the cache does not answer, a
// measured one's for every call, its hits included.
func perCallHours(st *Step) float64 {
	c := st.LLM
	sent := c.Calls
	if !c.Measured {
		sent *= 1 - c.CachedShare
	}
	if sent <= 0 {
		return 0
	}
	return buildHours(st) / sent
}

// throughputSource says where a stage's calls/s came from.
func throughputSource(c *LLMCost, stage string) string {
	if c.Measured {
		return "measured: saber plan --measure"
	}
	return "plan.calls_per_second." + stage + ", assumed: see the config"
}

// trim renders hours without trailing zeros.
func trim(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}
