package chart

import (
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// readable renders c as SVG at w × h and checks Layout.Readable: tick
// labels on both axes, no text off the canvas, no overlapping X labels.
func readable(t *testing.T, name string, c Chart) Layout {
	t.Helper()
	png, svg, err := RenderBoth(c, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	save(t, "readable-"+name, png, svg)
	l, err := Inspect(svg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := l.Readable(2); err != nil {
		t.Errorf("%s:\n%v", name, err)
	}
	return l
}

const long = "Reason-ModernColBERT-with-a-very-long-name"

// TestReadable renders every kind of chart with long labels and narrow
// ranges — the cases a user found unreadable: a log axis whose points all
// lie in one decade had no tick label, points on the frame were cut, long
// category labels overlapped.
func TestReadable(t *testing.T) {
	oneDecade := Scatter{
		Title: "Quality vs latency", XLabel: "median seconds per query (log scale)", YLabel: "nDCG@10", LogX: true, Legend: TopLeft,
		Points: []Point{
			{Label: long, X: 0.21, Y: 0.301, Group: "Bi-encoders"},
			{Label: "bm25", X: 0.22, Y: 0.302, Group: "Other"},
			{Label: long + "-reranker", X: 0.48, Y: 0.305, Group: "Cross-encoders / rerankers"},
		},
		Lines: []Series{{Name: "Bi-encoder frontier", X: []float64{0.21, 0.48}, Y: []float64{0.301, 0.305}}},
	}
	for name, c := range map[string]Chart{
		"scatter-one-decade": oneDecade,
		"scatter-narrow-log": Scatter{LogX: true, LogY: true, Points: []Point{{Label: long, X: 0.31, Y: 2.1}, {Label: long, X: 0.33, Y: 2.2}}},
		"scatter-one-point":  Scatter{Points: []Point{{Label: long, X: 3, Y: 0.5}}},
		"line-one-decade": Line{LogX: true, Points: true, XLabel: "x", YLabel: "y",
			Series: []Series{{Name: long, X: []float64{2, 3, 4}, Y: []float64{0.5001, 0.5002, 0.5003}}}},
		"line-flat": Line{Series: []Series{{Name: "flat", X: []float64{1, 2}, Y: []float64{0.7, 0.7}}}},
		"bars-long-categories": Bars{
			Categories: []string{"Overall", "Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus and Analysis", "(none)", "a-single-unbreakable-category-name"},
			Series: []BarSeries{
				{Name: long, Values: []float64{0.31, 0.32, 0.30, 0.33, 0.31, 0.30, 0.32, 0.31}, Lo: []float64{0.29, 0.30, 0.28, 0.31, 0.29, 0.28, 0.30, 0.29}, Hi: []float64{0.33, 0.34, 0.32, 0.35, 0.33, 0.32, 0.34, 0.33}},
				{Name: "bm25", Values: []float64{0.301, 0.302, 0.303, 0.304, 0.305, 0.306, 0.307, 0.308}},
			},
		},
	} {
		readable(t, name, c)
	}
	// The one-decade axis (padded to about [0.2015, 0.50], so 0.2 is out)
	// is labelled at every m × 10^k.
	l := readable(t, "scatter-one-decade-labels", oneDecade)
	var got []string
	for _, tx := range l.Texts {
		if tx.Size == TickLabelSize && tx.MinY > 0.75*l.Height && tx.MinX > 0.2*l.Width {
			got = append(got, tx.S)
		}
	}
	if strings.Join(got, " ") != "0.3 0.4 0.5" {
		t.Errorf("X tick labels of a one-decade log axis: %q, want \"0.3 0.4 0.5\"", got)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return strings.Join(out, " ")
	}
	nice := func(lo, hi float64) string {
		var out []string
		for _, tk := range (niceTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0.001, 20, "0.001 0.01 0.1 1 10"}, // two or more decades: powers of ten
		{0.15, 0.9, "0.2 0.5"},             // one decade: 1, 2, 5 × 10^k
		{3, 12, "5 10"},
		{0.25, 0.48, "0.3 0.4"},        // one 1, 2, 5: every m × 10^k
		{0.31, 0.48, nice(0.31, 0.48)}, // one m × 10^k: linear ticks
		{21, 29, nice(21, 29)},
	} {
		if got := labels(c.lo, c.hi); got != c.want {
			t.Errorf("ticks of [%v, %v]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestWrapLabels(t *testing.T) {
	style := widthFunc(func(s string) float64 { return float64(len(s)) })
	got := wrapLabels([]string{"Algebra", "Calculus and Analysis", "abcdefghijklmnopqrstuvwxyz"}, 12, style)
	want := []string{"Algebra", "Calculus and\nAnalysis", "abcdefghijkl\nmnopqrstuvwx\nyz"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("wrap %d: %q, want %q", i, got[i], want[i])
		}
	}
}

type widthFunc func(string) float64

func (f widthFunc) Width(s string) vg.Length { return vg.Length(f(s)) }

func TestBarIntervals(t *testing.T) {
	for _, c := range []struct {
		lo, hi []float64
		want   string
	}{
		{[]float64{0.5, 3}, []float64{1.5, 2.5}, `category "b" has the interval [3, 2.5]`},
		{[]float64{0.5}, []float64{1.5}, "1 lows and 1 highs for 2 categories"},
	} {
		b := Bars{Categories: []string{"a", "b"}, Series: []BarSeries{{Name: "s", Values: []float64{1, 2}, Lo: c.lo, Hi: c.hi}}}
		if _, err := b.Render(SVG, DefaultWidth, DefaultHeight); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("intervals %v–%v: %v, want %q", c.lo, c.hi, err, c.want)
		}
	}
}
