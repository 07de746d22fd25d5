package chart

import (
	"image/color"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// What makes a chart readable, whatever its data (each rule is pinned by
// TestReadable): every axis has at least two labelled ticks, whatever its
// range (logTicks, niceTicks); points are never drawn on the frame (pad);
// category labels never overlap (wrapLabels); and point labels stay on the
// canvas (Scatter puts the labels of the right-hand points on their left).

// logTicks marks a log axis. When the range holds two or more powers of
// ten it labels them, as gonum/plot's LogTicks does; a narrower range (all
// points within one decade, which LogTicks leaves without a single label)
// is labelled at 1, 2 and 5 × 10^k, then at every m × 10^k, and, within a
// fraction of a decade, at the linear ticks of niceTicks.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || !(lo > 0) || math.IsInf(hi, 0) {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	kLo, kHi := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	for _, mants := range [][]float64{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		var ticks []plot.Tick
		labelled := 0
		for k := kLo; k <= kHi; k++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow(10, float64(k))
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				for _, lm := range mants {
					if float64(m) == lm {
						t.Label = decimal(m, k)
						labelled++
					}
				}
				ticks = append(ticks, t)
			}
		}
		if labelled >= 2 {
			return ticks
		}
	}
	return niceTicks{}.Ticks(lo, hi)
}

// decimal writes m × 10^k without floating-point noise (0.3, not
// 0.30000000000000004).
func decimal(m, k int) string {
	if k >= 0 {
		return strconv.Itoa(m) + strings.Repeat("0", k)
	}
	return strconv.FormatFloat(float64(m)*math.Pow(10, float64(k)), 'f', -k, 64)
}

// padFraction is the share of an axis's span left empty beyond the
// outermost points, so that a glyph at the edge is drawn whole.
const padFraction = 0.05

// pad widens the axis's range by padFraction of its span on each side, in
// the axis's own scale (a log axis by a factor). A range of one value is
// widened around it.
func pad(a *plot.Axis, log bool) {
	lo, hi := a.Min, a.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return
	}
	if log {
		if !(lo > 0) {
			return
		}
		if hi <= lo {
			a.Min, a.Max = lo/1.5, hi*1.5
			return
		}
		f := math.Pow(hi/lo, padFraction)
		a.Min, a.Max = lo/f, hi*f
		return
	}
	if hi <= lo {
		d := math.Max(math.Abs(lo)*padFraction, 0.5)
		a.Min, a.Max = lo-d, hi+d
		return
	}
	d := (hi - lo) * padFraction
	a.Min, a.Max = lo-d, hi+d
}

// wrapLabels breaks each label into lines no wider than width in style:
// at spaces first, then, for a word wider than width, inside the word, so
// that labels of neighbouring categories never overlap. Labels that fit
// are returned unchanged.
func wrapLabels(labels []string, width vg.Length, style interface{ Width(string) vg.Length }) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		if style.Width(l) <= width {
			out[i] = l
			continue
		}
		var lines []string
		line := ""
		for _, w := range strings.Fields(l) {
			for _, piece := range splitWord(w, width, style) {
				switch {
				case line == "":
					line = piece
				case style.Width(line+" "+piece) <= width:
					line += " " + piece
				default:
					lines = append(lines, line)
					line = piece
				}
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
		out[i] = strings.Join(lines, "\n")
	}
	return out
}

// splitWord cuts a word wider than width into pieces that fit (at least
// one character each).
func splitWord(w string, width vg.Length, style interface{ Width(string) vg.Length }) []string {
	if style.Width(w) <= width {
		return []string{w}
	}
	var out []string
	for w != "" {
		n := len(w)
		for n > 0 && style.Width(w[:n]) > width {
			_, size := utf8.DecodeLastRuneInString(w[:n])
			n -= size
		}
		if n == 0 {
			_, n = utf8.DecodeRuneInString(w)
		}
		out = append(out, w[:n])
		w = w[n:]
	}
	return out
}

// errorBars draws a vertical interval with caps over each bar of one bar
// series: at category j, shifted by offset like the series' bars.
type errorBars struct {
	lo, hi []float64
	offset vg.Length
	color  color.Color
}

func (e errorBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.LineStyle{Color: e.color, Width: vg.Points(1)}
	capW := vg.Points(2.5)
	for j := range e.lo {
		x := trX(float64(j)) + e.offset
		ylo, yhi := trY(e.lo[j]), trY(e.hi[j])
		c.StrokeLine2(sty, x, ylo, x, yhi)
		c.StrokeLine2(sty, x-capW, ylo, x+capW, ylo)
		c.StrokeLine2(sty, x-capW, yhi, x+capW, yhi)
	}
}

// DataRange makes the axes hold the intervals' ends.
func (e errorBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for j := range e.lo {
		ymin, ymax = math.Min(ymin, e.lo[j]), math.Max(ymax, e.hi[j])
	}
	return 0, float64(len(e.lo) - 1), ymin, ymax
}

var _ plot.DataRanger = errorBars{}
var _ plot.Plotter = errorBars{}
