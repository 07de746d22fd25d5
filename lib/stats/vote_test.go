package stats

import (
	"math"
	"testing"
)

func TestMajority(t *testing.T) {
	tests := []struct {
		a, b, margin, want int
	}{
		{5, 0, 1, PreferA}, {4, 1, 1, PreferA}, {3, 2, 1, PreferTie}, {2, 3, 1, PreferTie},
		{1, 4, 1, PreferB}, {0, 5, 1, PreferB},
		{3, 2, 0, PreferA}, {2, 2, 0, PreferTie}, {2, 3, 0, PreferB},
		{2, 1, 1, PreferTie}, {3, 1, 1, PreferA}, // an invalid vote: 4 counted
		{0, 0, 1, PreferTie},
	}
	for _, tt := range tests {
		if got := Majority(tt.a, tt.b, tt.margin); got != tt.want {
			t.Errorf("Majority(%d, %d, margin %d) = %d, want %d", tt.a, tt.b, tt.margin, got, tt.want)
		}
	}
}

func TestPrefer(t *testing.T) {
	tests := []struct {
		a, b, margin float64
		want         int
	}{
		{80, 60, 0, PreferA}, {60, 80, 0, PreferB}, {70, 70, 0, PreferTie},
		{75, 70, 5, PreferTie}, {76, 70, 5, PreferA}, {70, 76, 5, PreferB},
		{math.NaN(), 70, 5, PreferTie},
	}
	for _, tt := range tests {
		if got := Prefer(tt.a, tt.b, tt.margin); got != tt.want {
			t.Errorf("Prefer(%v, %v, margin %v) = %d, want %d", tt.a, tt.b, tt.margin, got, tt.want)
		}
	}
}

func TestProp(t *testing.T) {
	// The paper's Table 6 pairwise row: 0.780 of 200, [0.718, 0.832].
	p := Prop(156, 200)
	if p.P != 0.78 || math.Abs(p.Lo-0.718) > 5e-4 || math.Abs(p.Hi-0.832) > 5e-4 || !(p.PValue < 1e-14) {
		t.Errorf("Prop(156, 200) = %+v, want 0.780 [0.718, 0.832], p ≈ 2.2e-15", p)
	}
	if e := Prop(0, 0); !math.IsNaN(e.P) || !math.IsNaN(e.Lo) || !math.IsNaN(e.PValue) {
		t.Errorf("Prop(0, 0) = %+v, want NaNs", e)
	}
	if h := Prop(50, 100); h.P != 0.5 || h.PValue != 1 || !(h.Lo < 0.5 && h.Hi > 0.5) {
		t.Errorf("Prop(50, 100) = %+v", h)
	}
}
