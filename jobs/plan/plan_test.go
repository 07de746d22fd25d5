package plan

import (
	"math"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
)

func TestGroupDigits(t *testing.T) {
	for _, tc := range []struct{ in, sep, want string }{
		{"0", ",", "0"}, {"999", ",", "999"}, {"1000", ",", "1,000"}, {"1234567", ",", "1,234,567"},
		{"-1234", ",", "-1,234"}, {"-123", ",", "-123"}, {"123456", "\u2009", "123\u2009456"},
	} {
		if got := GroupDigits(tc.in, tc.sep); got != tc.want {
			t.Errorf("GroupDigits(%q, %q) = %q, want %q", tc.in, tc.sep, got, tc.want)
		}
	}
}

func TestActualGPUHoursAreTheServersBusyTime(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	// Two shards of four shards: 30 and 60 minutes of wall time, the
	// server busy for 18 and 36 of them.
	done := []*layout.Manifest{
		{Started: t0, Finished: t0.Add(30 * time.Minute), Stats: map[string]int64{"llm_busy_ms": 18 * 60e3}},
		{Started: t0, Finished: t0.Add(60 * time.Minute), Stats: map[string]int64{"llm_busy_ms": 36 * 60e3}},
	}
	for _, tc := range []struct {
		name             string
		stats            []string
		actual, held, at float64
	}{
		{"busy time", []string{"llm_busy_ms"}, 0.9 * 4, 1.5 * 4, 0.9 * 4 / (3.6 * 2 / 4)},
		// A forecast saved before llm_busy_ms was recorded compares
		// with the wall time, as it did.
		{"saved without stats: wall time", nil, 1.5 * 4, 1.5 * 4, 1.5 * 4 / (3.6 * 2 / 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &Step{Shards: 4, Metrics: []Metric{{Name: "GPU-hours", Value: 3.6, GPUs: 4, Stats: tc.stats}}}
			if err := Actuals(st, done, nil); err != nil {
				t.Fatal(err)
			}
			m := st.Metrics[0]
			if m.Actual == nil || math.Abs(*m.Actual-tc.actual) > 1e-9 || m.Held == nil || math.Abs(*m.Held-tc.held) > 1e-9 ||
				m.Ratio == nil || math.Abs(*m.Ratio-tc.at) > 1e-9 {
				t.Fatalf("actual %v, held %v, ratio %v; want %g, %g, %g", m.Actual, m.Held, m.Ratio, tc.actual, tc.held, tc.at)
			}
			if m.Within() != (math.Abs(tc.at-1) <= 0.25) {
				t.Errorf("Within() = %v at ratio %g", m.Within(), tc.at)
			}
		})
	}
}
