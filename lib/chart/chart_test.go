package chart

import (
	"bytes"
	"flag"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -chart.out=DIR writes every rendered figure there, to look at.
var outDir = flag.String("chart.out", "", "write the test figures to this directory")

func save(t *testing.T, name string, png, svg []byte) {
	t.Helper()
	if *outDir == "" {
		return
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for ext, b := range map[string][]byte{".png": png, ".svg": svg} {
		if err := os.WriteFile(filepath.Join(*outDir, name+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// check renders c both ways, twice, and checks that the PNG decodes at the
// expected size, the SVG is an SVG document naming every string in want,
// and both renders are byte-identical.
func check(t *testing.T, name string, c Chart, want ...string) {
	t.Helper()
	png, svg, err := RenderBoth(c, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if format != "png" {
		t.Errorf("decoded as %q", format)
	}
	// 6 × 4 inches at 96 dpi.
	if b := img.Bounds(); b.Dx() != 576 || b.Dy() != 384 {
		t.Errorf("PNG is %d × %d, want 576 × 384", b.Dx(), b.Dy())
	}
	s := string(svg)
	if !strings.HasPrefix(s, "<?xml") || !strings.Contains(s, "<svg") || !strings.HasSuffix(strings.TrimSpace(s), "</svg>") {
		t.Errorf("not an SVG document: %.80q…", s)
	}
	for _, w := range want {
		if !strings.Contains(s, ">"+w+"<") {
			t.Errorf("SVG lacks the text %q", w)
		}
	}
	png2, svg2, err := RenderBoth(c, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(png, png2) {
		t.Error("two PNG renders of one chart differ")
	}
	if !bytes.Equal(svg, svg2) {
		t.Error("two SVG renders of one chart differ")
	}
	save(t, name, png, svg)
}

func TestLine(t *testing.T) {
	r := []float64{1, 2, 3, 5, 10, 20, 30}
	c := Line{
		Title: "Inversions against the exhaustive ranking", XLabel: "rounds R", YLabel: "inversions",
		Series: []Series{
			{Name: "Swiss", X: r, Y: []float64{3000, 2100, 1600, 1100, 700, 420, 330}},
			{Name: "Random", X: r, Y: []float64{3400, 2600, 2100, 1600, 1100, 700, 520}},
		},
		Points: true, YFromZero: true,
	}
	check(t, "line", c, "Swiss", "Random", "rounds R", "inversions", "Inversions against the exhaustive ranking")
	c.LogX, c.Legend = true, BottomLeft
	check(t, "line-logx", c, "Swiss", "Random", "1", "10")
}

func TestBars(t *testing.T) {
	c := Bars{
		Title: "nDCG@10 by domain", YLabel: "nDCG@10",
		Categories: []string{"Algebra", "Geometry", "Number Theory", "Combinatorics", "Calculus"},
		Series: []BarSeries{
			{Name: "BM25", Values: []float64{0.31, 0.28, 0.35, 0.22, 0.30}},
			{Name: "TF-IDF", Values: []float64{0.29, 0.27, 0.33, 0.21, 0.28}},
			{Name: "Qwen3-Embedding-8B", Values: []float64{0.52, 0.47, 0.55, 0.41, 0.50}},
		},
	}
	check(t, "bars", c, "Algebra", "Number Theory", "BM25", "Qwen3-Embedding-8B", "nDCG@10 by domain")
}

func TestScatter(t *testing.T) {
	c := Scatter{
		Title: "Quality and latency", XLabel: "median seconds per query", YLabel: "nDCG@10",
		LogX: true, Legend: BottomRight,
		Points: []Point{
			{Label: "BM25", X: 0.004, Y: 0.30, Group: "lexical"},
			{Label: "e5-large", X: 0.35, Y: 0.41, Group: "bi-encoder"},
			{Label: "Qwen3-Emb-8B", X: 2.1, Y: 0.52, Group: "bi-encoder"},
			{Label: "bge-reranker", X: 4.0, Y: 0.47, Group: "reranker"},
			{Label: "Qwen3-Rerank-8B", X: 19, Y: 0.58, Group: "reranker"},
		},
		Lines: []Series{
			{Name: "bi-encoder frontier", X: []float64{0.004, 0.35, 2.1}, Y: []float64{0.30, 0.41, 0.52}},
			{Name: "reranker frontier", X: []float64{4.0, 19}, Y: []float64{0.47, 0.58}},
		},
	}
	check(t, "scatter", c, "BM25", "Qwen3-Rerank-8B", "bi-encoder", "reranker", "bi-encoder frontier", "reranker frontier", "median seconds per query")
}

func TestErrors(t *testing.T) {
	nan := func() float64 { var z float64; return z / z }()
	for name, tc := range map[string]struct {
		c    Chart
		want string
	}{
		"no series":      {Line{}, "without series"},
		"length":         {Line{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}}, `"a" has 2 x and 1 y`},
		"empty series":   {Line{Series: []Series{{Name: "a"}}}, `"a" has no points`},
		"nan":            {Line{Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{nan}}}}, "must be finite"},
		"log x zero":     {Line{LogX: true, Series: []Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}}}, "log axis"},
		"bars count":     {Bars{Categories: []string{"x", "y"}, Series: []BarSeries{{Name: "s", Values: []float64{1}}}}, `"s" has 1 values for 2 categories`},
		"bars empty":     {Bars{}, "need at least one"},
		"scatter log":    {Scatter{LogX: true, Points: []Point{{Label: "p", X: -1, Y: 1}}}, `"p" has x = -1`},
		"scatter empty":  {Scatter{}, "without points"},
		"scatter line":   {Scatter{Lines: []Series{{Name: "f", X: []float64{1}, Y: nil}}}, `"f" has 1 x and 0 y`},
		"bar value nan":  {Bars{Categories: []string{"x"}, Series: []BarSeries{{Name: "s", Values: []float64{nan}}}}, `category "x"`},
		"scatter log ok": {Scatter{LogY: true, Points: []Point{{Label: "q", X: 1, Y: 0}}}, `"q" has y = 0`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.c.Render(PNG, DefaultWidth, DefaultHeight)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ok := Line{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}}
	if _, err := ok.Render("gif", DefaultWidth, DefaultHeight); err == nil || !strings.Contains(err.Error(), `format "gif"`) {
		t.Errorf("gif: %v", err)
	}
	if _, err := ok.Render(SVG, 0, DefaultHeight); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("zero width: %v", err)
	}
}

func TestNiceTicks(t *testing.T) {
	labels := func(lo, hi float64) string {
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
		{1, 30, "5 10 15 20 25 30"},
		{0, 0.55, "0.0 0.1 0.2 0.3 0.4 0.5"},
		{0, 3811, "0 500 1000 1500 2000 2500 3000 3500"},
		{-1, 1, "-1.00 -0.75 -0.50 -0.25 0.00 0.25 0.50 0.75 1.00"},
		{0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
	} {
		if got := labels(c.lo, c.hi); got != c.want {
			t.Errorf("ticks of [%v, %v]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}
