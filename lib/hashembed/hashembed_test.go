package hashembed

import (
	"math"
	"testing"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestVector(t *testing.T) {
	a := Vector("Find all real $x$ with $x^2 - 5x + 6 = 0$.", Dim)
	if math.Abs(dot(a, a)-1) > 1e-6 {
		t.Fatalf("not unit length: %v", dot(a, a))
	}
	b := Vector("Find all real $x$ with $x^2 - 5x + 6 = 0$.", Dim)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("not deterministic")
		}
	}
	near := Vector("Determine every real $t$ with $t^2 - 5t + 6 = 0$.", Dim)
	far := Vector("A triangle has sides 7, 24 and 25. What is its area?", Dim)
	if dot(a, near) <= dot(a, far) {
		t.Fatalf("a restatement (%.3f) is not closer than another problem (%.3f)", dot(a, near), dot(a, far))
	}
	if z := Vector("", 8); dot(z, z) != 0 {
		t.Fatalf("empty text: %v", z)
	}
}
