package forecast

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/saber-math/saber/jobs/plan"
)

// Markdown writes the forecast: one section per step with its shards and
// array jobs, a table of its counts (with actuals and ratios when
// compared), its LLM costs, its bytes, and notes; then the totals.
func Markdown(w io.Writer, run string, steps []*Step, compared bool) {
	fmt.Fprintf(w, "# Forecast of run %s\n\n", run)
	var calls, prompt, completion, gpu, wall, bytes float64
	for _, st := range steps {
		fmt.Fprintf(w, "## %s\n\n", st.Name)
		fmt.Fprintf(w, "%d shards (%d done), %d Slurm array job(s) of %d tasks\n\n", st.Shards, st.Done, st.ArrayJobs, st.ArrayTasks)
		if st.NoForecast {
			fmt.Fprintf(w, "no forecast (its declaration has no Forecast: %s/%s)\n\n", st.Stage, st.Step)
			continue
		}
		if len(st.Metrics) > 0 {
			if compared {
				fmt.Fprintln(w, "| count | forecast | actual | ratio | basis |")
				fmt.Fprintln(w, "|---|---:|---:|---:|---|")
			} else {
				fmt.Fprintln(w, "| count | forecast | basis |")
				fmt.Fprintln(w, "|---|---:|---|")
			}
			for _, m := range st.Metrics {
				if compared {
					actual, ratio := "—", "—"
					if m.Actual != nil {
						actual = value(m, *m.Actual)
					}
					if m.Ratio != nil {
						ratio = fmt.Sprintf("%.3f", *m.Ratio)
					}
					fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", m.Name, value(m, m.Value), actual, ratio, cell(m.Basis))
				} else {
					fmt.Fprintf(w, "| %s | %s | %s |\n", m.Name, value(m, m.Value), cell(m.Basis))
				}
			}
			fmt.Fprintln(w)
			for _, m := range st.Metrics {
				if m.Held != nil && m.Actual != nil {
					fmt.Fprintf(w, "The done shards held their GPUs for %.3g GPU-hours (wall time × %.0f GPUs); the server was busy for %s of it, the rest is what a shard does besides waiting for it (start-up, reading, writing, checkpoints).\n\n",
						*m.Held, m.GPUs, share(*m.Actual, *m.Held))
				}
			}
		}
		if c := st.LLM; c != nil {
			calls += c.Calls
			prompt += c.PromptTokens
			completion += c.CompletionTokens
			gpu += c.GPUHours
			wall += c.WallHours
			fmt.Fprintf(w, "LLM: %s calls, %s prompt and %s completion tokens", num(c.Calls), num(c.PromptTokens), num(c.CompletionTokens))
			if c.SavedCalls > 0 {
				fmt.Fprintf(w, "; %s calls saved by the cache and done shards", num(c.SavedCalls))
			}
			if c.CallSeconds > 0 {
				fmt.Fprintf(w, "; %d in flight at %.3g s a call (%.3g calls/s): %.2f h of server time, %.2f GPU-hours", c.Concurrency, c.CallSeconds, c.CallsPerSecond, c.WallHours, c.GPUHours)
			} else {
				fmt.Fprintf(w, "; no throughput (set plan.calls_per_second.%s, or saber plan --measure)", st.Stage)
			}
			fmt.Fprintln(w)
			fmt.Fprintln(w)
		}
		if len(st.Bytes) > 0 {
			var parts []string
			for _, ds := range sortedKeys(st.Bytes) {
				parts = append(parts, fmt.Sprintf("%s %s", ds, size(st.Bytes[ds])))
				bytes += st.Bytes[ds]
			}
			fmt.Fprintf(w, "storage: %s (bytes per row of the done parts)\n\n", strings.Join(parts, ", "))
		}
		for _, n := range st.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		if len(st.Notes) > 0 {
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "## Total\n\n%s LLM calls, %s prompt and %s completion tokens, %.2f GPU-hours (%.2f h of server time) where a throughput is known, %s of datasets where sampled\n",
		num(calls), num(prompt), num(completion), gpu, wall, size(bytes))
}

// share renders part/whole as a percentage.
func share(part, whole float64) string {
	if whole <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*part/whole)
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// value renders a metric's value: hours to three significant digits,
// counts to the unit.
func value(m Metric, v float64) string {
	if m.GPUs > 0 {
		return fmt.Sprintf("%.3g", v)
	}
	return num(v)
}

// num renders a count: whole numbers with thousands separators.
func num(v float64) string { return plan.GroupDigits(fmt.Sprintf("%.0f", v), ",") }

func size(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
