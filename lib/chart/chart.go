// Package chart draws the few kinds of figure the suite's reports and
// studies need — line charts, grouped bar charts, and labelled scatter plots
// with polyline overlays — as PNG or SVG bytes, over gonum.org/v1/plot.
//
// A chart is a plain value (title, axis labels, data); Render draws it in
// one format, RenderBoth in both, from one code path, so the PNG and the SVG
// of a figure always show the same thing. The package is pure: no files, no
// randomness, no clock. Output is deterministic: the same chart, format and
// size give byte-identical PNG and SVG (gonum/plot's SVG writer emits
// elements in drawing order with fixed-precision numbers, no ids or
// timestamps; PNG is image/png over a deterministic rasteriser; both use the
// Liberation fonts compiled into the binary, so no system font is read).
// Tests pin this.
//
// Bad data is an error, never a panic: NaN or infinite values, series whose
// X and Y differ in length, and non-positive values on a log axis are
// reported with the series' name.
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Formats Render accepts.
const (
	PNG = "png"
	SVG = "svg"
)

// Default figure size: 6 × 4 inches (432 × 288 pt; a PNG is rendered at
// gonum/plot's default 96 dpi, so 576 × 384 pixels).
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
)

// Chart is anything this package can draw.
type Chart interface {
	// Render draws the chart in format (PNG or SVG) at w × h.
	Render(format string, w, h vg.Length) ([]byte, error)
}

// RenderBoth renders c as PNG and as SVG at w × h.
func RenderBoth(c Chart, w, h vg.Length) (png, svg []byte, err error) {
	if png, err = c.Render(PNG, w, h); err != nil {
		return nil, nil, err
	}
	if svg, err = c.Render(SVG, w, h); err != nil {
		return nil, nil, err
	}
	return png, svg, nil
}

// Legend places the legend inside the plot area. The zero value is the top
// right corner.
type Legend int

const (
	TopRight Legend = iota
	TopLeft
	BottomRight
	BottomLeft
	// NoLegend draws none.
	NoLegend
)

// Series is a named sequence of points (a line of a Line chart, or a
// polyline overlay of a Scatter).
type Series struct {
	Name string
	X, Y []float64
}

// Line is a line chart: one line per series, each in its own colour and
// dash pattern, named in the legend.
type Line struct {
	Title, XLabel, YLabel string
	// LogX and LogY put an axis on a log scale; every value on it must be
	// positive.
	LogX, LogY bool
	// Points marks each data point with a glyph as well.
	Points bool
	// YFromZero makes the Y axis start at 0 (or lower, if data is negative).
	YFromZero bool
	Legend    Legend
	Series    []Series
}

// Render draws the chart.
func (c Line) Render(format string, w, h vg.Length) ([]byte, error) {
	if len(c.Series) == 0 {
		return nil, errors.New("chart: line chart without series")
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.Legend)
	setLog(p, c.LogX, c.LogY)
	for i, s := range c.Series {
		xys, err := points(s, c.LogX, c.LogY)
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("chart: series %q: %w", s.Name, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		thumb := []plot.Thumbnailer{l}
		if c.Points {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("chart: series %q: %w", s.Name, err)
			}
			sc.Color = plotutil.Color(i)
			sc.Shape = plotutil.Shape(i)
			sc.Radius = vg.Points(2)
			p.Add(sc)
			thumb = append(thumb, sc)
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, thumb...)
		}
	}
	if c.Points {
		pad(&p.X, c.LogX)
		pad(&p.Y, c.LogY)
	}
	if c.YFromZero && !c.LogY {
		p.Y.Min = math.Min(p.Y.Min, 0)
	}
	return render(p, format, w, h)
}

// BarSeries is one series of a grouped bar chart: one value per category,
// and optionally an interval per category (a confidence interval), drawn
// as an error bar over the bar.
type BarSeries struct {
	Name   string
	Values []float64
	// Lo and Hi, when set, hold one interval per category, Lo ≤ Hi.
	Lo, Hi []float64
}

// Bars is a grouped bar chart: one group of bars per category along X (for
// example a domain), one bar per series inside each group (for example a
// retriever), series named in the legend.
type Bars struct {
	Title, XLabel, YLabel string
	Categories            []string
	Series                []BarSeries
	Legend                Legend
}

// Render draws the chart.
func (c Bars) Render(format string, w, h vg.Length) ([]byte, error) {
	if len(c.Categories) == 0 || len(c.Series) == 0 {
		return nil, fmt.Errorf("chart: bar chart with %d categories and %d series: need at least one of each", len(c.Categories), len(c.Series))
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.Legend)
	// Each group takes ~70% of its slot's width; the bars split it evenly.
	// The plot area is about the canvas less the axes, so 0.8·w is a good
	// enough estimate of the slot width's scale.
	k := float64(len(c.Series))
	barW := vg.Length(0.8 * float64(w) / float64(len(c.Categories)) * 0.7 / k)
	if barW <= 0 {
		return nil, fmt.Errorf("chart: bar chart of width %v has no room for its bars", w)
	}
	for i, s := range c.Series {
		if len(s.Values) != len(c.Categories) {
			return nil, fmt.Errorf("chart: bar series %q has %d values for %d categories", s.Name, len(s.Values), len(c.Categories))
		}
		for j, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("chart: bar series %q: category %q has value %v", s.Name, c.Categories[j], v)
			}
		}
		if err := checkIntervals(c.Categories, s); err != nil {
			return nil, err
		}
		b, err := plotter.NewBarChart(plotter.Values(s.Values), barW)
		if err != nil {
			return nil, fmt.Errorf("chart: bar series %q: %w", s.Name, err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = vg.Points(0.5)
		b.Offset = vg.Length(float64(i)-(k-1)/2) * barW
		p.Add(b)
		if s.Lo != nil {
			p.Add(errorBars{lo: s.Lo, hi: s.Hi, offset: b.Offset, color: color.Black})
		}
		if s.Name != "" {
			p.Legend.Add(s.Name, b)
		}
	}
	// A category's label must fit its slot, or neighbours overlap: wrap
	// it. The plot area is the canvas less about 60 pt of Y axis, split
	// evenly among the categories; 90% of a slot leaves a gap.
	slot := (w - vg.Points(60)) / vg.Length(len(c.Categories))
	p.NominalX(wrapLabels(c.Categories, slot*0.9, p.X.Tick.Label)...)
	p.Y.Min = math.Min(p.Y.Min, 0)
	if c.Legend == TopRight || c.Legend == TopLeft {
		// Headroom for the legend above the tallest bars: a line of
		// legend text is ~5% of the plot's height.
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.06 * float64(len(c.Series)+1)
	}
	p.Y.Tick.Marker = niceTicks{}
	return render(p, format, w, h)
}

// Point is a labelled point of a Scatter. Points with the same Group share a
// glyph and colour and one legend entry; an empty Group has no entry.
type Point struct {
	Label string
	X, Y  float64
	Group string
}

// Scatter is a scatter plot of labelled points with named polylines drawn
// over it: for example systems by latency and quality, with the Pareto
// frontier of each family as a line.
type Scatter struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Points                []Point
	// Lines are drawn under the points, in the order given, each named in
	// the legend.
	Lines  []Series
	Legend Legend
	// Muted names groups drawn in grey (the systems below a frontier).
	Muted []string
}

// Render draws the chart.
func (c Scatter) Render(format string, w, h vg.Length) ([]byte, error) {
	if len(c.Points) == 0 && len(c.Lines) == 0 {
		return nil, errors.New("chart: scatter plot without points or lines")
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel, c.Legend)
	setLog(p, c.LogX, c.LogY)
	for i, s := range c.Lines {
		xys, err := points(s, c.LogX, c.LogY)
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("chart: line %q: %w", s.Name, err)
		}
		// Lines take colours from the end of the palette's cycle so they
		// stand apart from the first groups of points.
		l.Color = plotutil.Color(len(plotutil.SoftColors) - 1 - i%len(plotutil.SoftColors))
		l.Dashes = plotutil.Dashes(i + 1)
		l.Width = vg.Points(1.25)
		p.Add(l)
		if s.Name != "" {
			p.Legend.Add(s.Name, l)
		}
	}
	// Groups in order of first appearance.
	var groups []string
	byGroup := map[string]plotter.XYs{}
	for _, pt := range c.Points {
		if err := checkValue(pt.Label, pt.X, pt.Y, c.LogX, c.LogY); err != nil {
			return nil, err
		}
		if _, ok := byGroup[pt.Group]; !ok {
			groups = append(groups, pt.Group)
		}
		byGroup[pt.Group] = append(byGroup[pt.Group], plotter.XY{X: pt.X, Y: pt.Y})
	}
	for i, g := range groups {
		sc, err := plotter.NewScatter(byGroup[g])
		if err != nil {
			return nil, fmt.Errorf("chart: group %q: %w", g, err)
		}
		sc.Color = plotutil.Color(i)
		if slices.Contains(c.Muted, g) {
			sc.Color = color.Gray{Y: 0x99}
		}
		sc.Shape = plotutil.Shape(i)
		sc.Radius = vg.Points(3)
		p.Add(sc)
		if g != "" {
			p.Legend.Add(g, sc)
		}
	}
	pad(&p.X, c.LogX)
	pad(&p.Y, c.LogY)
	if len(c.Points) > 0 {
		// A label is written right of its point, except in the right
		// part of the plot, where it goes on the left so it stays on the
		// canvas.
		lo, hi := p.X.Scale.Normalize(p.X.Min, p.X.Max, p.X.Min), p.X.Scale.Normalize(p.X.Min, p.X.Max, p.X.Max)
		var right, left plotter.XYLabels
		for _, pt := range c.Points {
			side := &right
			if f := p.X.Scale.Normalize(p.X.Min, p.X.Max, pt.X); hi > lo && (f-lo)/(hi-lo) > 0.6 {
				side = &left
			}
			side.XYs = append(side.XYs, plotter.XY{X: pt.X, Y: pt.Y})
			side.Labels = append(side.Labels, pt.Label)
		}
		for _, side := range []struct {
			xyl    plotter.XYLabels
			align  text.XAlignment
			offset vg.Length
		}{{right, draw.XLeft, vg.Points(4)}, {left, draw.XRight, -vg.Points(4)}} {
			if len(side.xyl.XYs) == 0 {
				continue
			}
			labels, err := plotter.NewLabels(side.xyl)
			if err != nil {
				return nil, fmt.Errorf("chart: point labels: %w", err)
			}
			for i := range labels.TextStyle {
				labels.TextStyle[i].Font.Size = vg.Points(7)
				labels.TextStyle[i].XAlign = side.align
			}
			labels.Offset = vg.Point{X: side.offset, Y: vg.Points(2)}
			p.Add(labels)
		}
	}
	return render(p, format, w, h)
}

func newPlot(title, xlabel, ylabel string, legend Legend) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	switch legend {
	case TopRight:
		p.Legend.Top = true
	case TopLeft:
		p.Legend.Top, p.Legend.Left = true, true
	case BottomLeft:
		p.Legend.Left = true
	}
	if legend == NoLegend {
		p.Legend = plot.Legend{}
	}
	p.Legend.Padding = vg.Points(2)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	return p
}

func setLog(p *plot.Plot, x, y bool) {
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	if x {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if y {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
}

// points checks s and converts it.
func points(s Series, logX, logY bool) (plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("chart: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
	}
	if len(s.X) == 0 {
		return nil, fmt.Errorf("chart: series %q has no points", s.Name)
	}
	xys := make(plotter.XYs, len(s.X))
	for i := range s.X {
		if err := checkValue(s.Name, s.X[i], s.Y[i], logX, logY); err != nil {
			return nil, err
		}
		xys[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
	}
	return xys, nil
}

// checkIntervals checks a bar series' intervals: none, or one finite
// Lo ≤ Hi per category.
func checkIntervals(cats []string, s BarSeries) error {
	if s.Lo == nil && s.Hi == nil {
		return nil
	}
	if len(s.Lo) != len(cats) || len(s.Hi) != len(cats) {
		return fmt.Errorf("chart: bar series %q has %d lows and %d highs for %d categories", s.Name, len(s.Lo), len(s.Hi), len(cats))
	}
	for j := range cats {
		lo, hi := s.Lo[j], s.Hi[j]
		if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) || lo > hi {
			return fmt.Errorf("chart: bar series %q: category %q has the interval [%v, %v]: want finite values, low ≤ high", s.Name, cats[j], lo, hi)
		}
	}
	return nil
}

func checkValue(name string, x, y float64, logX, logY bool) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0):
		return fmt.Errorf("chart: %q has the point (%v, %v): values must be finite", name, x, y)
	case logX && x <= 0:
		return fmt.Errorf("chart: %q has x = %v on a log axis: values must be positive", name, x)
	case logY && y <= 0:
		return fmt.Errorf("chart: %q has y = %v on a log axis: values must be positive", name, y)
	}
	return nil
}

func render(p *plot.Plot, format string, w, h vg.Length) (out []byte, err error) {
	if format != PNG && format != SVG {
		return nil, fmt.Errorf("chart: format %q: want %q or %q", format, PNG, SVG)
	}
	if !(w > 0 && h > 0) || math.IsInf(float64(w), 0) || math.IsInf(float64(h), 0) {
		return nil, fmt.Errorf("chart: size %v × %v: both must be positive", w, h)
	}
	// gonum/plot panics on some degenerate inputs (a log axis whose range
	// ends up non-positive, for one); a chart is data, never a crash.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("chart: render %s: %v", format, r)
		}
	}()
	wt, err := p.WriterTo(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("chart: render %s: %w", format, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: render %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// Compile-time checks that the kinds are Charts.
var (
	_ Chart = Line{}
	_ Chart = Bars{}
	_ Chart = Scatter{}
)

// niceTicks marks a linear axis at 1, 2, 2.5 or 5 × 10^k steps, 4 to 10
// labelled ticks, with unlabelled minor ticks between (gonum/plot's default
// picks steps such as 12, which read badly for round counts).
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	span := hi - lo
	mag := math.Pow(10, math.Floor(math.Log10(span)))
	var step float64
	for _, m := range []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10} {
		step = m * mag
		if span/step <= 8 {
			break
		}
	}
	minor := step / 2
	if math.Abs(step/mag-0.25) < 1e-9 || math.Abs(step/mag-2.5) < 1e-9 {
		minor = step / 5
	}
	// Decimal places enough to tell the labels apart.
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(step/math.Pow(10, math.Floor(math.Log10(step)+1e-9))-2.5) < 1e-9 {
		prec++
	}
	var ticks []plot.Tick
	first := math.Ceil(lo/minor-1e-9) * minor
	for i := 0; ; i++ {
		v := first + float64(i)*minor
		if v > hi+minor*1e-9 {
			break
		}
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
