package schedule

import (
	"testing"

	"github.com/saber-math/saber/lib/swiss"
)

// TestMatchesForecast: the Swiss forecast is swiss.Matches' exactly; the
// active scheduler's, over 150 candidates and 20 rounds, is well under
// Swiss's (the study measures ~54%) and at least its 5 Swiss rounds; both
// are the same on every call.
func TestMatchesForecast(t *testing.T) {
	want, err := swiss.Matches(150, 20, 9)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Matches(Config{}, 150, 20, 9); err != nil || got != want {
		t.Errorf("swiss forecast %d (%v), swiss.Matches %d", got, err, want)
	}
	c := Config{Kind: Active}.WithDefaults()
	a, err := Matches(c, 150, 20, 9)
	if err != nil {
		t.Fatal(err)
	}
	if a < 5*75 || a > want*3/4 {
		t.Errorf("active forecast %d of Swiss's %d: want between 5 Swiss rounds (375) and 3/4", a, want)
	}
	if b, _ := Matches(c, 150, 20, 9); b != a {
		t.Errorf("forecasts %d and %d differ", a, b)
	}
	t.Logf("forecast per query: swiss %d, active %d", want, a)
}
