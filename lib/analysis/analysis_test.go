package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/saber-math/saber/lib/text"
)

func TestMathRatio(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{
		{`Find $x$.`, 0.5},                   // x | find
		{`Find all real $x^2$ now`, 3.0 / 7}, // x, op:sup, 2 (pairs not counted) | find all real now
		{`No maths here`, 0},
		{`$$x+y$$`, 1},
		{``, 0},
	} {
		m, w := text.SplitMath(c.in)
		if got := MathRatio(m, w); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("MathRatio(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestMathWinShares(t *testing.T) {
	qs := []MathTextQuery{
		{Query: "a", Domain: "Algebra", Ratio: 0.1, MathMean: 2, TextMean: 1},
		{Query: "b", Domain: "Algebra", Ratio: 0.55, MathMean: 1, TextMean: 1}, // a tie is no win
		{Query: "c", Domain: "Geometry", Ratio: 1, MathMean: 0.3, TextMean: 0.1},
		{Query: "d", Domain: "Other", Ratio: 0.5, MathMean: 0, TextMean: 1},
	}
	all, by := MathWinShares(qs, []string{"Algebra", "Geometry", "Number Theory"})
	if all != (Share{2, 4}) || !slices.Equal(by, []Share{{1, 2}, {1, 1}, {0, 0}}) {
		t.Errorf("shares %v %v", all, by)
	}
	if p := all.Percent(); p != 50 {
		t.Errorf("percent %v", p)
	}
	if p := (Share{}).Percent(); !math.IsNaN(p) {
		t.Errorf("empty share is %v, want NaN", p)
	}
	bins := MathWinsByRatio(qs, 2)
	if len(bins) != 2 || bins[0].Share != (Share{1, 1}) || bins[1].Share != (Share{1, 3}) || bins[1].Hi != 1 {
		t.Errorf("bins %+v", bins)
	}
}

func TestTopRated(t *testing.T) {
	c := []Rated{{"d", 1}, {"a", 3}, {"c", 3}, {"b", 0.5}, {"e", 4}}
	if got := TopRated(c, 3); !slices.Equal(got, []string{"e", "a", "c"}) {
		t.Errorf("top 3: %v", got)
	}
	if got := TopRated(c[:2], 5); !slices.Equal(got, []string{"a", "d"}) {
		t.Errorf("top 5 of 2: %v", got)
	}
}

func TestCumulative(t *testing.T) {
	cands := []Rated{{"b1", 5}, {"b2", 4}, {"s1", 3}, {"t1", 2}, {"s2", 1}, {"t2", 0}}
	cat := map[string]string{"b1": "both", "b2": "both", "s1": "summary", "s2": "summary", "t1": "topic", "t2": "topic"}
	ranks := CategoryRanks(cands, cat)
	if !slices.Equal(ranks["both"], []int{1, 2}) || !slices.Equal(ranks["topic"], []int{4, 6}) {
		t.Fatalf("ranks %v", ranks)
	}
	// A second query whose ranks pool with the first.
	more := CategoryRanks([]Rated{{"x", 1}, {"y", 2}}, map[string]string{"x": "topic", "y": "both"})
	for k, v := range more {
		ranks[k] = append(ranks[k], v...)
	}
	curves := Cumulative(ranks, []string{"topic", "summary", "both", "none"})
	if len(curves) != 3 {
		t.Fatalf("%d curves, want 3 (an empty category is left out)", len(curves))
	}
	want := map[string][]float64{
		"topic":   {0, 1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3, 1},
		"summary": {0, 0, 0.5, 0.5, 1, 1},
		"both":    {2.0 / 3, 1, 1, 1, 1, 1},
	}
	for _, c := range curves {
		for i, f := range want[c.Category] {
			if math.Abs(c.Frac[i]-f) > 1e-12 {
				t.Errorf("%s: %v, want %v", c.Category, c.Frac, want[c.Category])
				break
			}
		}
	}
	if !(curves[2].Area() > curves[1].Area()) {
		t.Errorf("both's area %v is not above summary's %v", curves[2].Area(), curves[1].Area())
	}
}

func TestSplitWeights(t *testing.T) {
	w, none := SplitWeights([][]string{{"Algebra"}, {"Algebra", "Geometry"}, {"Geometry", "Geometry", "Combinatorics"}, nil})
	want := map[string]float64{"Algebra": 1.5, "Geometry": 1, "Combinatorics": 0.5}
	if none != 1 || len(w) != len(want) {
		t.Fatalf("weights %v, unlabelled %d", w, none)
	}
	total := 0.0
	for k, v := range want {
		if math.Abs(w[k]-v) > 1e-12 {
			t.Errorf("%s: %v, want %v", k, w[k], v)
		}
		total += w[k]
	}
	if total != 3 {
		t.Errorf("the labelled items' weights sum to %v, want 3", total)
	}
}

func TestTimeFrontier(t *testing.T) {
	pts := []Dated{
		{"old-good", "2020-01-01", 0.5},
		{"later-worse", "2021-06-01", 0.4},
		{"newer-best", "2023-02-01", 0.6},
		{"same-day-lower", "2023-02-01", 0.55},
		{"tie-later", "2024-01-01", 0.6},
		{"first", "2019-05-05", 0.2},
	}
	on, err := TimeFrontier(pts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, true, false, false, true}; !slices.Equal(on, want) {
		t.Errorf("frontier %v, want %v", on, want)
	}
	if _, err := TimeFrontier([]Dated{{"x", "2020/01/01", 1}}); err == nil {
		t.Error("a date not YYYY-MM-DD is accepted")
	}
}
