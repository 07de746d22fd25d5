package study

import (
	"math"
	"testing"

	"github.com/saber-math/saber/lib/chart"
)

// The rounds figure follows the rules of every chart (lib/chart
// Layout.Readable): tick labels on both axes and no text off the canvas,
// here with a narrow range (inversions that barely move) and a long title.
func TestRoundsChartReadable(t *testing.T) {
	r := RoundsResult{Queries: 1000, MeanN: 150, MeanPairs: 11175, ExhaustiveLatentInversions: math.NaN()}
	for i, rounds := range []int{19, 20, 21} {
		r.Rows = append(r.Rows, RoundsRow{Rounds: rounds, SwissInversions: 1000.1 + float64(i)*0.01, RandomInversions: 1000.2 + float64(i)*0.01})
	}
	_, svg, err := chart.RenderBoth(r.Chart(), chart.DefaultWidth, chart.DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	l, err := chart.Inspect(svg)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Readable(2); err != nil {
		t.Error(err)
	}
}
