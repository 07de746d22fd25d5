package analyze

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strings"

	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/chart"
	"gonum.org/v1/plot/vg"
)

// table is one report table as Markdown, CSV and LaTeX.
type table struct {
	name, title string
	notes       []string
	prov        *readers.Provenance
	left        int // leading left-aligned columns
	header      []string
	rows        [][]string
	csv         [][]string // header first
}

var texReplacer = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`, "{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`)

func (t table) write(ctx context.Context, env *stage.Env) error {
	var md bytes.Buffer
	fmt.Fprintf(&md, "# %s\n\n", t.title)
	if t.prov != nil {
		md.WriteString(t.prov.Markdown())
	}
	for _, n := range t.notes {
		md.WriteString(n + "\n\n")
	}
	md.WriteString("| " + strings.Join(t.header, " | ") + " |\n|")
	for i := range t.header {
		if i < t.left {
			md.WriteString("---|")
		} else {
			md.WriteString("--:|")
		}
	}
	md.WriteString("\n")
	for _, r := range t.rows {
		md.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	var tex bytes.Buffer
	fmt.Fprintf(&tex, "%% %s\n%% Written by saber analyze (run %s); needs \\usepackage{booktabs}.\n", t.title, env.Config.Run)
	if t.prov != nil {
		tex.WriteString("% " + t.prov.Text() + "\n")
	}
	for _, n := range t.notes {
		tex.WriteString("% " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
	fmt.Fprintf(&tex, "\\begin{tabular}{%s%s}\n\\toprule\n", strings.Repeat("l", t.left), strings.Repeat("r", len(t.header)-t.left))
	esc := func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = texReplacer.Replace(c)
		}
		return strings.Join(out, " & ") + ` \\` + "\n"
	}
	tex.WriteString(esc(t.header) + "\\midrule\n")
	for _, r := range t.rows {
		tex.WriteString(esc(r))
	}
	tex.WriteString("\\bottomrule\n\\end{tabular}\n")
	if err := stage.WriteReport(ctx, env, t.name+".md", md.Bytes()); err != nil {
		return err
	}
	if err := writeCSV(ctx, env, t.name+".csv", t.csv); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, t.name+".tex", tex.Bytes())
}

func writeCSV(ctx context.Context, env *stage.Env, name string, rows [][]string) error {
	var c bytes.Buffer
	w := csv.NewWriter(&c)
	if err := w.WriteAll(rows); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return stage.WriteReport(ctx, env, name, c.Bytes())
}

// writeFigure renders c as name.png and name.svg.
func writeFigure(ctx context.Context, env *stage.Env, name string, c chart.Chart, w, h vg.Length) error {
	png, svg, err := chart.RenderBoth(c, w, h)
	if err != nil {
		return fmt.Errorf("%s figure: %w", name, err)
	}
	if err := stage.WriteReport(ctx, env, name+".png", png); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, name+".svg", svg)
}

// index is analyze.md: what was written, in order, with a line each.
type index struct {
	prov  readers.Provenance
	items [][3]string // title, file, note
	skips []string
}

func (x *index) add(title, file, note string) {
	x.items = append(x.items, [3]string{title, file, note})
}
func (x *index) skip(why string) { x.skips = append(x.skips, why) }

func (x *index) markdown(run string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Analyses of run %s\n\n", run)
	b.WriteString(x.prov.Markdown())
	for _, it := range x.items {
		fmt.Fprintf(&b, "- %s: [%s](%s)", it[0], it[1], it[1])
		if it[2] != "" {
			b.WriteString(" — " + it[2])
		}
		b.WriteString("\n")
	}
	for _, s := range x.skips {
		b.WriteString("- Not written: " + s + "\n")
	}
	return b.Bytes()
}
