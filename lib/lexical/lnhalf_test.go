package lexical

import (
	"math"
	"testing"
)

// TestLnExact checks lnExact against Python's math.log (glibc), including
// the arguments where Go's math.Log is one ulp off, and against math.Log to
// within one ulp everywhere else.
func TestLnExact(t *testing.T) {
	python := map[float64]float64{ // repr(math.log(x)) with Python 3.11.2, glibc 2.36
		0.5: -0.6931471805599453, 1.5: 0.4054651081081644, 23.5: 3.1570004211501135,
		41.5: 3.7256934272366524, 46.5: 3.8394523125933104, 49.5: 3.901972669574645,
		78.5: 4.363098624788363, 107.5: 4.677490847567717, 140.5: 4.945207488773801,
		151.5: 5.020585624949423, 178.5: 5.184588601219693,
	}
	for x, want := range python {
		if got := lnExact(x); got != want {
			t.Errorf("lnExact(%v) = %.17g, Python %.17g", x, got, want)
		}
	}
	for k := range 5000 {
		x := float64(k) + 0.5
		got, g := lnExact(x), math.Log(x)
		if got != g && math.Nextafter(g, got) != got {
			t.Errorf("lnExact(%v) = %.17g, math.Log %.17g: more than one ulp apart", x, got, g)
		}
	}
	out := make([]float64, 4)
	lnHalfInto(out, []int32{3, 1})
	if out[0] != 0 || out[2] != 0 || out[1] != python[1.5] || out[3] != lnExact(3.5) {
		t.Errorf("lnHalfInto = %v", out)
	}
}
