package forecast

import (
	"math"
	"testing"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/plan"
)

func TestServerSecondsCountsWaves(t *testing.T) {
	one := func(items, chain float64) []plan.Phase { return []plan.Phase{{Name: "p", Items: items, Chain: chain}} }
	for _, tc := range []struct {
		name          string
		phases        []plan.Phase
		shards, conc  int
		latency, want float64
		share         float64
	}{
		{"a full wave", one(8, 1), 1, 8, 2, 2, 1},
		{"one more item is another wave", one(9, 1), 1, 8, 2, 4, 1},
		{"a small phase costs a whole wave", one(3, 1), 1, 16, 0.5, 0.5, 1},
		{"thousands: calls over throughput", one(16000, 1), 1, 16, 1, 1000, 1},
		{"split over shards, the first ones one more", one(17, 1), 2, 8, 1, 3, 1}, // 9 → 2 waves, 8 → 1
		{"more shards than items", one(3, 1), 5, 8, 1, 3, 1},
		{"a chain of calls per item", one(16, 2.5), 1, 8, 1, 5, 1},
		{"rounds are phases of their own", []plan.Phase{{Items: 12, Chain: 1}, {Items: 12, Chain: 1}, {Items: 4, Chain: 1}}, 1, 16, 1, 3, 1},
		{"a phase repeated", []plan.Phase{{Items: 12, Chain: 1, Times: 5}, {Items: 20, Chain: 1}}, 1, 16, 1, 7, 1},
		{"cached items cost nothing", one(16, 1), 1, 8, 1, 1, 0.5},
		{"all cached", one(16, 1), 1, 8, 1, 0, 0},
		{"no latency known", one(16, 1), 1, 8, 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := serverSeconds(tc.phases, tc.shards, tc.conc, tc.latency, tc.share)
			if math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("serverSeconds = %g, want %g", got, tc.want)
			}
		})
	}
}

func TestTimingFromConfiguredThroughput(t *testing.T) {
	rounds := func(n int, items float64) []plan.Phase {
		return []plan.Phase{{Name: "rounds", Items: items, Chain: 1, Times: n}}
	}
	for _, tc := range []struct {
		name      string
		phases    []plan.Phase
		cached    float64
		wantHours float64 // GPU-hours at 2 GPUs
	}{
		// 1,600 calls at 100 calls/s: 16 s, whatever the waves.
		{"thousands of calls: calls over throughput", []plan.Phase{{Name: "documents", Items: 1600, Chain: 1}}, 0, 16.0 / 3600 * 2},
		{"half cached", []plan.Phase{{Name: "documents", Items: 1600, Chain: 1}}, 0.5, 8.0 / 3600 * 2},
		// 5 rounds of 12 comparisons a shard, 16 in flight at 0.16 s a
		// call: a wave a round, 1.6 s over both shards, not 120/100.
		{"rounds under one wave", rounds(5, 24), 0, 1.6 / 3600 * 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &config.Config{}
			cfg.Plan.GPUs = 2
			cfg.Plan.CallsPerSecond = map[string]float64{"judge": 100}
			var calls float64
			for _, p := range tc.phases {
				calls += p.Items
			}
			st := &Step{Shards: 2, LLM: &plan.LLMCost{Calls: calls, Concurrency: 16, Phases: tc.phases, CachedShare: tc.cached, SavedCalls: calls * tc.cached}}
			timing(st, cfg, "judge", 1)
			if st.LLM.CallSeconds != 0.16 || math.Abs(st.LLM.GPUHours-tc.wantHours) > 1e-12 {
				t.Errorf("call %g s, %g GPU-hours; want 0.16 s, %g", st.LLM.CallSeconds, st.LLM.GPUHours, tc.wantHours)
			}
			if len(st.Metrics) != 1 || st.Metrics[0].GPUs != 2 || math.Abs(st.Metrics[0].Value-tc.wantHours) > 1e-12 || st.Metrics[0].Stats[0] != "llm_busy_ms" {
				t.Errorf("metric %+v; want %g GPU-hours compared with llm_busy_ms", st.Metrics, tc.wantHours)
			}
		})
	}
	// Without a throughput or --measure there is no time forecast.
	st := &Step{Shards: 1, LLM: &plan.LLMCost{Calls: 10, Concurrency: 4, Phases: []plan.Phase{{Items: 10, Chain: 1}}}}
	timing(st, &config.Config{}, "tag", 1)
	if len(st.Metrics) != 0 || st.LLM.GPUHours != 0 {
		t.Errorf("forecast time without a throughput: %+v", st)
	}
}

func TestMedianCallSecondsWeighsCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []rowTime
		want float64
	}{
		{"none", nil, 0},
		{"one", []rowTime{{0.05, 1}}, 0.05},
		{"a stalled row moves it not", []rowTime{{0.05, 1}, {0.051, 1}, {0.9, 1}, {0.052, 1}, {0.049, 1}}, 0.051},
		// Tag's rows: a traversal of 40 calls weighs 40 of 44.
		{"weighted by calls", []rowTime{{0.2, 2}, {0.06, 40}, {0.3, 2}}, 0.06},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := medianCallSeconds(tc.rows); got != tc.want {
				t.Errorf("median = %g, want %g", got, tc.want)
			}
		})
	}
}
