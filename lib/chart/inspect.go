package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// Text is one text element of a rendered SVG: its string, font size, and
// the box its glyphs cover on the canvas (points, y downward), measured
// with the font the SVG names.
type Text struct {
	S                      string
	Size                   float64
	MinX, MinY, MaxX, MaxY float64
}

// Layout is what Inspect reads from an SVG: the canvas size and every text.
type Layout struct {
	Width, Height float64
	Texts         []Text
}

// Inspect reads the texts of an SVG this package rendered and places them
// on the canvas, following the nested transforms gonum/plot writes
// (scale, translate, rotate). It is for tests, here and in the packages
// that draw charts, which check a figure is readable (Layout.Readable).
func Inspect(svg []byte) (Layout, error) {
	var l Layout
	dec := xml.NewDecoder(bytes.NewReader(svg))
	stack := []affine{identity}
	type open struct {
		family     string
		size, x, y float64
		m          affine
	}
	var cur *open
	var buf strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return l, fmt.Errorf("svg: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			m := stack[len(stack)-1]
			var style string
			attr := map[string]string{}
			for _, a := range t.Attr {
				attr[a.Name.Local] = a.Value
			}
			if tr, ok := attr["transform"]; ok {
				own, err := parseTransform(tr)
				if err != nil {
					return l, err
				}
				m = m.mul(own)
			}
			style = attr["style"]
			stack = append(stack, m)
			switch t.Name.Local {
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					return l, fmt.Errorf("svg: viewBox %q", attr["viewBox"])
				}
				l.Width, _ = strconv.ParseFloat(vb[2], 64)
				l.Height, _ = strconv.ParseFloat(vb[3], 64)
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				fam, size := styleFont(style)
				cur = &open{fam, size, x, y, m}
				buf.Reset()
			}
		case xml.CharData:
			if cur != nil {
				buf.Write(t)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if t.Name.Local == "text" && cur != nil {
				l.Texts = append(l.Texts, place(buf.String(), cur.family, cur.size, cur.x, cur.y, cur.m))
				cur = nil
			}
		}
	}
	return l, nil
}

// styleFont reads font-family and font-size from an SVG style.
func styleFont(style string) (family string, size float64) {
	family, size = "Liberation Serif", 10
	for _, kv := range strings.Split(style, ";") {
		k, v, _ := strings.Cut(kv, ":")
		switch strings.TrimSpace(k) {
		case "font-family":
			family = strings.TrimSpace(v)
		case "font-size":
			size, _ = strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "px"), 64)
		}
	}
	return family, size
}

// place measures s, written at (x, y) in family and size under m, and
// returns its box on the canvas.
func place(s, family string, size, x, y float64, m affine) Text {
	typeface, variant, _ := strings.Cut(family, " ")
	face := font.DefaultCache.Lookup(font.Font{Typeface: font.Typeface(typeface), Variant: font.Variant(variant)}, vg.Length(size))
	w := float64(face.Width(s))
	ext := face.Extents()
	// Glyphs run right of x, above the baseline y (SVG's y grows down).
	asc, desc := float64(ext.Ascent), float64(ext.Descent)
	corners := [][2]float64{{x, y - asc}, {x + w, y - asc}, {x, y + desc}, {x + w, y + desc}}
	out := Text{S: s, Size: size, MinX: math.Inf(1), MinY: math.Inf(1), MaxX: math.Inf(-1), MaxY: math.Inf(-1)}
	for _, c := range corners {
		px, py := m.apply(c[0], c[1])
		out.MinX, out.MaxX = math.Min(out.MinX, px), math.Max(out.MaxX, px)
		out.MinY, out.MaxY = math.Min(out.MinY, py), math.Max(out.MaxY, py)
	}
	return out
}

// affine is [a c e; b d f]: x' = a x + c y + e, y' = b x + d y + f.
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func (m affine) mul(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

// parseTransform reads the transform lists gonum/plot writes.
func parseTransform(s string) (affine, error) {
	m := identity
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		open := strings.IndexByte(s, '(')
		end := strings.IndexByte(s, ')')
		if open < 0 || end < open {
			return m, fmt.Errorf("svg: transform %q", s)
		}
		name := strings.TrimSpace(s[:open])
		var args []float64
		for _, f := range strings.FieldsFunc(s[open+1:end], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return m, fmt.Errorf("svg: transform %q: %w", s, err)
			}
			args = append(args, v)
		}
		s = s[end+1:]
		var n affine
		switch {
		case name == "scale" && len(args) == 1:
			n = affine{a: args[0], d: args[0]}
		case name == "scale" && len(args) == 2:
			n = affine{a: args[0], d: args[1]}
		case name == "translate" && len(args) == 1:
			n = affine{a: 1, d: 1, e: args[0]}
		case name == "translate" && len(args) == 2:
			n = affine{a: 1, d: 1, e: args[0], f: args[1]}
		case name == "rotate" && len(args) == 1:
			r := args[0] * math.Pi / 180
			n = affine{a: math.Cos(r), b: math.Sin(r), c: -math.Sin(r), d: math.Cos(r)}
		default:
			return m, fmt.Errorf("svg: transform %s%v is not supported", name, args)
		}
		m = m.mul(n)
	}
	return m, nil
}

// TickLabelSize is the font size of gonum/plot's tick labels, which tells
// them from titles (12), legends (9) and point labels (7).
const TickLabelSize = 10

// Readable checks the rules every chart of the suite must meet: at least
// two tick labels along each axis (X labels below the plot at two or more
// positions, Y labels left of it at two or more heights), no text beyond
// the canvas (by more than tol points), and no two X tick labels
// overlapping.
func (l Layout) Readable(tol float64) error {
	var errs []error
	var ticks []Text
	for _, t := range l.Texts {
		if t.MinX < -tol || t.MinY < -tol || t.MaxX > l.Width+tol || t.MaxY > l.Height+tol {
			errs = append(errs, fmt.Errorf("text %q at [%.1f, %.1f]×[%.1f, %.1f] is outside the %.0f × %.0f canvas", t.S, t.MinX, t.MaxX, t.MinY, t.MaxY, l.Width, l.Height))
		}
		if t.Size == TickLabelSize && t.S != "" {
			ticks = append(ticks, t)
		}
	}
	// Y tick labels are right-aligned in a column left of the plot: the
	// tick texts in the left quarter sharing the right edge most of them
	// share (an X label at the left end is there too, but alone). X tick
	// labels are the other tick texts below the middle.
	right, most := math.NaN(), 0
	for _, t := range ticks {
		if (t.MinX+t.MaxX)/2 >= 0.25*l.Width {
			continue
		}
		n := 0
		for _, u := range ticks {
			if math.Abs(u.MaxX-t.MaxX) < 1 {
				n++
			}
		}
		if n > most {
			right, most = t.MaxX, n
		}
	}
	var xs, ys []Text
	for _, t := range ticks {
		switch {
		case (t.MinX+t.MaxX)/2 < 0.25*l.Width && math.Abs(t.MaxX-right) < 1:
			ys = append(ys, t)
		case (t.MinY+t.MaxY)/2 > 0.6*l.Height:
			xs = append(xs, t)
		}
	}
	distinct := func(ts []Text, key func(Text) float64) int {
		var seen []float64
		for _, t := range ts {
			k := key(t)
			dup := false
			for _, s := range seen {
				dup = dup || math.Abs(s-k) < 1
			}
			if !dup {
				seen = append(seen, k)
			}
		}
		return len(seen)
	}
	if n := distinct(xs, func(t Text) float64 { return (t.MinX + t.MaxX) / 2 }); n < 2 {
		errs = append(errs, fmt.Errorf("the X axis has tick labels at %d positions, want ≥ 2", n))
	}
	if n := distinct(ys, func(t Text) float64 { return (t.MinY + t.MaxY) / 2 }); n < 2 {
		errs = append(errs, fmt.Errorf("the Y axis has tick labels at %d heights, want ≥ 2", n))
	}
	for i, a := range xs {
		for _, b := range xs[i+1:] {
			// Lines of one wrapped label share its centre.
			sameLabel := math.Abs((a.MinX+a.MaxX)/2-(b.MinX+b.MaxX)/2) < 1
			if !sameLabel && a.MinX < b.MaxX-tol && b.MinX < a.MaxX-tol && a.MinY < b.MaxY-tol && b.MinY < a.MaxY-tol {
				errs = append(errs, fmt.Errorf("the X tick labels %q and %q overlap", a.S, b.S))
			}
		}
	}
	return errors.Join(errs...)
}
