// Package plan holds a run's forecast as `saber plan --json` saves it —
// per stage step: shards, counts, rows, bytes, LLM costs — and puts the
// actuals its manifests recorded beside it. It is apart from the forecast
// itself (jobs/forecast, the engine, which links the LLM client it
// measures with) so that the steps' declarations, which every stage binary
// links, fill it (stage.Step.Forecast), and report shows a saved forecast
// against the run, without that client.
package plan

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/saber-math/saber/artifacts/layout"
)

// Metric is one forecast count of a step, and, under --compare, the
// actual beside it.
type Metric struct {
	// Name is what is counted ("llm_calls", "rows of topics").
	Name string `json:"name"`
	// Value is the forecast for the whole step (every shard).
	Value float64 `json:"forecast"`
	// Stats are the manifest statistics whose sum is the actual ("" for a
	// metric with no recorded counterpart); Rows, when set, compares with
	// the rows the manifests of that dataset record instead.
	Stats []string `json:"stats,omitempty"`
	Rows  string   `json:"rows_of,omitempty"`
	// GPUs, when set, makes the metric GPU-hours: the actual is the sum
	// of its Stats as milliseconds (llm_busy_ms: the time the server was
	// busy with the shard's requests), in hours, times GPUs (the GPUs the
	// server of each shard runs on) — or, with no Stats (a forecast saved
	// before llm_busy_ms was recorded), the shards' wall time times GPUs.
	GPUs float64 `json:"gpus,omitempty"`
	// Basis says how the forecast was derived, for a reader to judge it.
	Basis string `json:"basis"`
	// Actual is the sum over the done shards; Ratio is Actual over the
	// forecast for those shards (Value × done/shards).
	Actual *float64 `json:"actual,omitempty"`
	Ratio  *float64 `json:"ratio,omitempty"`
	// Held, for GPU-hours, is what the done shards held their GPUs for:
	// their wall time (Finished − Started) times GPUs, the server's busy
	// time plus what a shard does besides waiting for it (reading,
	// writing, checkpoints, its fits): the allocation an admin pays.
	Held *float64 `json:"held,omitempty"`
}

// Tolerance is how far off the forecast may be and still count as met:
// 10% for a count, 25% for GPU-hours, which depend on a measured
// throughput that moves with the server's load and batch (issue 23's goal).
func (m Metric) Tolerance() float64 {
	if m.GPUs > 0 {
		return 0.25
	}
	return 0.10
}

// Within says whether the actual is within Tolerance of the forecast;
// false without an actual.
func (m Metric) Within() bool {
	return m.Ratio != nil && *m.Ratio >= 1-m.Tolerance() && *m.Ratio <= 1+m.Tolerance()
}

// Step is the forecast of one stage step.
type Step struct {
	Name  string `json:"name"`
	Stage string `json:"stage"`
	Step  string `json:"step"`
	// Shards is the step's shard count; ArrayJobs the Slurm arrays it
	// takes after slurm.max_array_size splits (ArrayTasks its tasks);
	// Done the shards with a manifest, whose work a run skips.
	Shards     int `json:"shards"`
	ArrayJobs  int `json:"array_jobs"`
	ArrayTasks int `json:"array_tasks"`
	Done       int `json:"done"`
	// Output is the dataset whose manifests record the step's statistics
	// (its first output): what Actuals reads, without the pipeline graph.
	Output string `json:"output,omitempty"`
	// Metrics are the counts, in the function's order.
	Metrics []Metric `json:"metrics,omitempty"`
	// Rows and Bytes forecast each output dataset's size.
	Rows  map[string]float64 `json:"rows,omitempty"`
	Bytes map[string]float64 `json:"bytes,omitempty"`
	// LLM are the model-call costs of an LLM step (nil otherwise).
	LLM *LLMCost `json:"llm,omitempty"`
	// NoForecast: the step's declaration has no Forecast.
	NoForecast bool `json:"no_forecast,omitempty"`
	// Notes say what the forecast could not know or assumed.
	Notes []string `json:"notes,omitempty"`
}

// LLMCost is what an LLM step asks of the server.
type LLMCost struct {
	Calls            float64 `json:"calls"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	// TokensBasis says where the per-call token counts came from.
	TokensBasis string `json:"tokens_basis"`
	// CachedShare is the share of calls the run's cache or done shards
	// answer without the server (measured on the sample, or the done
	// shards' share); SavedCalls those calls.
	CachedShare float64 `json:"cached_share"`
	SavedCalls  float64 `json:"saved_calls"`
	// CallsPerSecond is the server's throughput with Concurrency requests
	// in flight (plan.calls_per_second, or Concurrency over the measured
	// CallSeconds; 0 unknown), and CallSeconds the time a shard's worker
	// spends per call at that concurrency: by Little's law Concurrency
	// over the throughput; Measured when --measure timed it on a sample,
	// its cache hits (next to no time) included. WallHours and GPUHours
	// follow for the calls still to make, by Phases: each shard sends a
	// phase's items Concurrency at a time, in waves, and the next phase
	// only once the last is answered.
	CallsPerSecond float64 `json:"calls_per_second,omitempty"`
	Concurrency    int     `json:"concurrency,omitempty"`
	CallSeconds    float64 `json:"call_seconds,omitempty"`
	Measured       bool    `json:"measured,omitempty"`
	Phases         []Phase `json:"phases,omitempty"`
	WallHours      float64 `json:"wall_hours,omitempty"`
	GPUHours       float64 `json:"gpu_hours,omitempty"`
}

// Phase is a batch of an LLM step's work that a shard sends together, with
// nothing of the next batch sent before the last of it is answered: the
// shard's documents for tag and summarize, one Swiss round of comparisons
// for judge. At a few calls per shard and round the server idles between
// batches and in a batch's last wave; at thousands it never does, and the
// forecast is calls over throughput.
type Phase struct {
	Name string `json:"name"`
	// Items are the phase's units over every shard (documents,
	// comparisons); Chain the calls an item makes one after another
	// (tag's traversal of the ontology: its mean calls per document).
	Items float64 `json:"items"`
	Chain float64 `json:"chain"`
	// Times is how many such phases follow one another (judge.rounds
	// rounds of the same size); 0 is once.
	Times int `json:"times,omitempty"`
}

// GroupDigits puts sep between groups of three digits of an integer
// written in decimal ("-1234567" → "-1,234,567" with sep ","): the
// plan's counts, in saber plan's Markdown and on report's page.
func GroupDigits(s, sep string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Parse reads the JSON of `saber plan --json`.
func Parse(b []byte, name string) ([]*Step, error) {
	var steps []*Step
	if err := json.Unmarshal(b, &steps); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of saber plan --json: %w", name, err)
	}
	return steps, nil
}

// Manifests returns the done manifests of a dataset written with shards
// shards (none, and no error, when it has none).
type Manifests func(dataset string, shards int) ([]*layout.Manifest, error)

// Actuals puts beside each of st's metrics the actual that done — the
// manifests of st.Output of the step's shard count — recorded: the sum of
// its Stats, or the rows of its Rows dataset (read with rows), and the
// ratio to the forecast for the done shards' share. A metric with no
// recorded counterpart keeps Actual nil.
func Actuals(st *Step, done []*layout.Manifest, rows Manifests) error {
	st.Done = len(done)
	if len(done) == 0 {
		return nil
	}
	sum := map[string]int64{}
	for _, m := range done {
		for k, v := range m.Stats {
			sum[k] += v
		}
	}
	share := float64(len(done)) / float64(st.Shards)
	// statSum sums the named statistics; found says whether any was
	// recorded at all.
	statSum := func(names []string) (v float64, found bool) {
		for _, s := range names {
			if n, ok := sum[s]; ok {
				v += float64(n)
				found = true
			}
		}
		return v, found
	}
	for k := range st.Metrics {
		m := &st.Metrics[k]
		var actual float64
		switch {
		case m.Rows != "":
			// Each output dataset's manifest records its own rows.
			ms, err := rows(m.Rows, st.Shards)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				continue
			}
			for _, man := range ms {
				actual += float64(man.Rows)
			}
		case m.GPUs > 0:
			var held float64
			for _, man := range done {
				held += man.Finished.Sub(man.Started).Hours() * m.GPUs
			}
			m.Held = &held
			actual = held
			if len(m.Stats) > 0 {
				ms, _ := statSum(m.Stats)
				actual = ms / 3.6e6 * m.GPUs
			}
		case len(m.Stats) > 0:
			v, found := statSum(m.Stats)
			if !found {
				continue
			}
			actual = v
		default:
			continue
		}
		m.Actual = &actual
		if want := m.Value * share; want > 0 {
			r := actual / want
			m.Ratio = &r
		} else if actual == 0 {
			r := 1.0
			m.Ratio = &r
		}
	}
	return nil
}
