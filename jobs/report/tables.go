package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/ndcg"
)

// format is how a table cell is written.
type format int

const (
	markdown format = iota
	latex
)

func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// exact writes v in CSV: the shortest decimal that reads back to v.
func exact(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func (f format) text(s string) string {
	if f == markdown {
		return strings.ReplaceAll(s, "|", `\|`)
	}
	return texEscape(s)
}

var texReplacer = strings.NewReplacer(`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`,
	`_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`)

func texEscape(s string) string { return texReplacer.Replace(s) }

// num is a value to three decimals, bold when best.
func (f format) num(v float64, bold bool) string {
	s := f3(v)
	switch {
	case f == markdown && bold:
		return "**" + s + "**"
	case f == markdown:
		return s
	case bold:
		return `$\mathbf{` + s + `}$`
	}
	return "$" + s + "$"
}

// ci is value^{+hi}_{−lo}, the distances to the interval's bounds, in
// math mode (Markdown renderers that know $…$ show it as the paper does).
func (f format) ci(iv ndcg.Interval, bold bool) string {
	v := f3(iv.Mean)
	if bold {
		v = `\mathbf{` + v + `}`
	}
	up, down := iv.Hi-iv.Mean, iv.Mean-iv.Lo
	sign := func(pos string, d float64) string {
		if d < 0 {
			if pos == "+" {
				return "-" + f3(-d)
			}
			return "+" + f3(-d)
		}
		return pos + f3(d)
	}
	return "$" + v + "^{" + sign("+", up) + "}_{" + sign("-", down) + "}$"
}

// corr is a correlation to four decimals, "n/a" when undefined.
func corr(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// seconds is a median time: three significant digits under a second, two
// decimals above.
func seconds(v float64) string {
	if v >= 1 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// grid is a table for Markdown and LaTeX.
type grid struct {
	groups []span // optional row of column groups above the header
	header []string
	left   int // leading left-aligned columns; the rest are right-aligned
	rows   [][]string
}

type span struct {
	label string
	cols  int
}

func (g grid) markdown() string {
	var b strings.Builder
	header := g.header
	if len(g.groups) > 0 { // Markdown has no column spans: prefix each column
		header = append([]string(nil), g.header...)
		c := len(header)
		for _, s := range g.groups {
			c -= s.cols
		}
		for _, s := range g.groups {
			for i := 0; i < s.cols; i++ {
				if s.label != "" {
					header[c+i] = s.label + " · " + header[c+i]
				}
			}
			c += s.cols
		}
	}
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i < g.left {
			b.WriteString("---|")
		} else {
			b.WriteString("--:|")
		}
	}
	b.WriteString("\n")
	for _, r := range g.rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

func (g grid) latex() string {
	var b strings.Builder
	b.WriteString(`\begin{tabular}{` + strings.Repeat("l", g.left) + strings.Repeat("r", len(g.header)-g.left) + "}\n\\toprule\n")
	if len(g.groups) > 0 {
		c := len(g.header)
		for _, s := range g.groups {
			c -= s.cols
		}
		cells := []string{}
		for i := 0; i < c; i++ {
			cells = append(cells, "")
		}
		var rules []string
		for _, s := range g.groups {
			cells = append(cells, fmt.Sprintf(`\multicolumn{%d}{c}{%s}`, s.cols, s.label))
			rules = append(rules, fmt.Sprintf(`\cmidrule(lr){%d-%d}`, c+1, c+s.cols))
			c += s.cols
		}
		b.WriteString(strings.Join(cells, " & ") + ` \\` + "\n" + strings.Join(rules, " ") + "\n")
	}
	b.WriteString(strings.Join(g.header, " & ") + ` \\` + "\n\\midrule\n")
	for _, r := range g.rows {
		b.WriteString(strings.Join(r, " & ") + ` \\` + "\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	return b.String()
}

// table is one report table in its three formats.
type table struct {
	name, title string
	notes       []string // Markdown paragraphs (also LaTeX comments)
	// prov, when set, heads the notes: who produced the labels.
	prov    *readers.Provenance
	md, tex grid
	after   string     // Markdown after the table
	csv     [][]string // header first
}

func (t table) write(ctx context.Context, env *stage.Env) error {
	var md bytes.Buffer
	fmt.Fprintf(&md, "# %s\n\n", t.title)
	if t.prov != nil {
		md.WriteString(t.prov.Markdown())
	}
	for _, n := range t.notes {
		md.WriteString(n + "\n\n")
	}
	md.WriteString(t.md.markdown())
	if t.after != "" {
		md.WriteString("\n" + t.after)
	}
	var tex bytes.Buffer
	fmt.Fprintf(&tex, "%% %s\n%% Written by saber report (run %s); needs \\usepackage{booktabs}.\n", t.title, env.Config.Run)
	notes := t.notes
	if t.prov != nil {
		notes = append([]string{t.prov.Text()}, notes...)
	}
	for _, n := range notes {
		for _, l := range wrap(n, 76) {
			tex.WriteString("% " + l + "\n")
		}
	}
	tex.WriteString(t.tex.latex())
	var c bytes.Buffer
	w := csv.NewWriter(&c)
	if err := w.WriteAll(t.csv); err != nil {
		return fmt.Errorf("%s.csv: %w", t.name, err)
	}
	for _, f := range []struct {
		ext  string
		data []byte
	}{{".md", md.Bytes()}, {".csv", c.Bytes()}, {".tex", tex.Bytes()}} {
		if err := stage.WriteReport(ctx, env, t.name+f.ext, f.data); err != nil {
			return err
		}
	}
	return nil
}

// wrap splits s into lines of at most width bytes at spaces.
func wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}

func (m *model) get(r, setting string, g ndcg.Gain, scope string) ndcg.Interval {
	return m.ci[Key{r, setting, g.String(), scope}]
}

// best returns, per column, the largest value (bold in tables), or +Inf
// (nothing bold) with fewer than two retrievers.
func (m *model) best(col func(r string) float64) float64 {
	if len(m.retrievers) < 2 {
		return math.Inf(1)
	}
	b := math.Inf(-1)
	for _, r := range m.retrievers {
		b = math.Max(b, col(r))
	}
	return b
}

func (m *model) scopes() []string { return append([]string{ScopeOverall}, m.domains...) }

func scopeTitle(s string) string {
	if s == ScopeOverall {
		return "Overall"
	}
	return s
}

func (m *model) queriesNote() string {
	parts := make([]string, len(m.domains))
	for i, d := range m.domains {
		parts[i] = fmt.Sprintf("%s %d", d, m.domainQueries[i])
	}
	return fmt.Sprintf("%d queries (%s).", m.queries, strings.Join(parts, ", "))
}

// table1 is the main results: main setting, exponential gain, overall and
// per domain, the other settings' overall, median seconds per query.
func (m *model) table1() table {
	exp := ndcg.Exponential
	others := []string{}
	for _, s := range m.settings {
		if s != m.main {
			others = append(others, s)
		}
	}
	t := table{name: Table1, title: fmt.Sprintf("Table 1 — nDCG@%d of every retriever (%s, exponential gain)", m.k, m.main)}
	t.notes = []string{
		fmt.Sprintf("All numbers are nDCG@%d with exponential gain 2^rel − 1 against the [0, 5] ratings, in the %s setting unless a column names another; the best of each column is bold. Rows are ordered by the Overall column. %s", m.k, m.main, m.queriesNote()),
		m.latencyNote(),
		"Frontier names the family (bi-encoder or cross-encoder) on whose quality–latency Pareto frontier the retriever lies: no other retriever of the family is at least as fast and at least as good, and better in one (App. D.7; frontier.png). Times are measurements: this table, leaderboard.json and frontier.* are the only report files that change when evaluate is rerun on the same data.",
	}
	header := []string{"Retriever"}
	csvHeader := []string{"retriever"}
	for _, s := range m.scopes() {
		header = append(header, scopeTitle(s))
		csvHeader = append(csvHeader, s)
	}
	for _, s := range others {
		header = append(header, s)
		csvHeader = append(csvHeader, s+":"+ScopeOverall)
	}
	header = append(header, "Med. s/query", "Frontier")
	csvHeader = append(csvHeader, "median_seconds_per_query", "timed_queries", "timed_on", "family", "frontier")
	t.md = grid{header: header, left: 1}
	t.tex = grid{header: texAll(header), left: 1}
	t.csv = [][]string{csvHeader}
	type col struct {
		setting, scope string
	}
	var cols []col
	for _, s := range m.scopes() {
		cols = append(cols, col{m.main, s})
	}
	for _, s := range others {
		cols = append(cols, col{s, ScopeOverall})
	}
	bests := make([]float64, len(cols))
	for i, c := range cols {
		bests[i] = m.best(func(r string) float64 { return m.get(r, c.setting, exp, c.scope).Mean })
	}
	for _, r := range m.retrievers {
		mdRow, texRow, csvRow := []string{markdown.text(r)}, []string{latex.text(r)}, []string{r}
		for i, c := range cols {
			v := m.get(r, c.setting, exp, c.scope).Mean
			mdRow = append(mdRow, markdown.num(v, v == bests[i]))
			texRow = append(texRow, latex.num(v, v == bests[i]))
			csvRow = append(csvRow, exact(v))
		}
		if med, ok := m.median[System{r, m.main}]; ok {
			mark := ""
			if m.timedAll[System{r, m.main}] {
				mark = "*"
			}
			mdRow = append(mdRow, seconds(med)+mark)
			texRow = append(texRow, "$"+seconds(med)+"$"+mark)
			csvRow = append(csvRow, exact(med), strconv.Itoa(m.timed[System{r, m.main}]), m.timedOn(r))
		} else {
			mdRow = append(mdRow, "—")
			texRow = append(texRow, "---")
			csvRow = append(csvRow, "", "0", "")
		}
		mdRow = append(mdRow, m.frontierMark(r))
		texRow = append(texRow, texEscape(m.frontierMark(r)))
		csvRow = append(csvRow, m.families[r], strconv.FormatBool(m.frontier[r]))
		t.md.rows = append(t.md.rows, mdRow)
		t.tex.rows = append(t.tex.rows, texRow)
		t.csv = append(t.csv, csvRow)
	}
	return t
}

func texAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = texEscape(s)
	}
	return out
}

// table7 is the main setting with 95% bootstrap intervals.
func (m *model) table7() table {
	exp := ndcg.Exponential
	t := table{name: Table7, title: fmt.Sprintf("Table 7 — nDCG@%d with 95%% confidence intervals (%s, exponential gain)", m.k, m.main)}
	t.notes = []string{fmt.Sprintf("Each cell is the mean nDCG@%d over the scope's queries, with superscript and subscript the distances to the bounds of its 95%% percentile bootstrap interval (%d resamples of the queries, seeded per retriever, setting, gain and scope). The best value of each column is bold. %s", m.k, m.resamples, m.queriesNote())}
	header := []string{"Retriever"}
	csvHeader := []string{"retriever"}
	for _, s := range m.scopes() {
		header = append(header, scopeTitle(s))
		csvHeader = append(csvHeader, s, s+":ci_lo", s+":ci_hi")
	}
	t.md = grid{header: header, left: 1}
	t.tex = grid{header: texAll(header), left: 1}
	t.csv = [][]string{csvHeader}
	bests := map[string]float64{}
	for _, s := range m.scopes() {
		bests[s] = m.best(func(r string) float64 { return m.get(r, m.main, exp, s).Mean })
	}
	for _, r := range m.retrievers {
		mdRow, texRow, csvRow := []string{markdown.text(r)}, []string{latex.text(r)}, []string{r}
		for _, s := range m.scopes() {
			iv := m.get(r, m.main, exp, s)
			mdRow = append(mdRow, markdown.ci(iv, iv.Mean == bests[s]))
			texRow = append(texRow, latex.ci(iv, iv.Mean == bests[s]))
			csvRow = append(csvRow, exact(iv.Mean), exact(iv.Lo), exact(iv.Hi))
		}
		t.md.rows = append(t.md.rows, mdRow)
		t.tex.rows = append(t.tex.rows, texRow)
		t.csv = append(t.csv, csvRow)
	}
	return t
}

// table8 puts every evaluated setting side by side.
func (m *model) table8() table {
	exp := ndcg.Exponential
	t := table{name: Table8, title: fmt.Sprintf("Table 8 — nDCG@%d in every setting (exponential gain)", m.k)}
	t.notes = []string{fmt.Sprintf("Overall and per-domain nDCG@%d in each evaluated setting (query text – document text), exponential gain; the best of each column is bold. Rows are ordered by %s overall. %s", m.k, m.main, m.queriesNote())}
	header := []string{"Retriever"}
	csvHeader := []string{"retriever"}
	var groups []span
	for _, set := range m.settings {
		for _, s := range m.scopes() {
			header = append(header, scopeTitle(s))
			csvHeader = append(csvHeader, set+":"+s)
		}
		groups = append(groups, span{set, len(m.scopes())})
	}
	t.md = grid{header: header, left: 1, groups: groups}
	texGroups := make([]span, len(groups))
	for i, g := range groups {
		texGroups[i] = span{texEscape(g.label), g.cols}
	}
	t.tex = grid{header: texAll(header), left: 1, groups: texGroups}
	t.csv = [][]string{csvHeader}
	bests := map[[2]string]float64{}
	for _, set := range m.settings {
		for _, s := range m.scopes() {
			bests[[2]string{set, s}] = m.best(func(r string) float64 { return m.get(r, set, exp, s).Mean })
		}
	}
	for _, r := range m.retrievers {
		mdRow, texRow, csvRow := []string{markdown.text(r)}, []string{latex.text(r)}, []string{r}
		for _, set := range m.settings {
			for _, s := range m.scopes() {
				v := m.get(r, set, exp, s).Mean
				b := v == bests[[2]string{set, s}]
				mdRow = append(mdRow, markdown.num(v, b))
				texRow = append(texRow, latex.num(v, b))
				csvRow = append(csvRow, exact(v))
			}
		}
		t.md.rows = append(t.md.rows, mdRow)
		t.tex.rows = append(t.tex.rows, texRow)
		t.csv = append(t.csv, csvRow)
	}
	return t
}

// sensitivityTable is App. D.3's Table 4, one block per setting, with each
// retriever's overall nDCG under every variant.
func (m *model) sensitivityTable() table {
	t := table{name: TableSensitivity, title: fmt.Sprintf("Sensitivity of the ranking of retrievers to the rating scale and the gain (nDCG@%d)", m.k)}
	n := len(m.retrievers)
	t.notes = []string{
		fmt.Sprintf("Each variant re-scores every retriever's overall nDCG@%d and compares it with the default ([0,5] ratings, exponential gain): Pearson and Spearman correlation over the retrievers, and inversions, the pairs of retrievers the two order strictly oppositely, out of the n(n−1)/2 pairs that could be. [0,3] rescales each rating r to 3r/5 before the gain; linear gain is invariant to that rescaling, so its two rows coincide up to rounding.", m.k),
	}
	if n < 2 {
		t.notes = append(t.notes, fmt.Sprintf("**Not defined for this run:** it scores %d retriever, and comparing orderings needs at least 2; the correlations read n/a and there are no pairs to invert.", n))
	}
	t.md = grid{header: []string{"Setting", "Variant", "Pearson", "Spearman", "Inversions"}, left: 2}
	t.tex = grid{header: []string{"Setting", "Variant", "Pearson", "Spearman", "Inversions"}, left: 2}
	t.csv = [][]string{{"setting", "variant", "scale", "gain", "retrievers", "pearson", "spearman", "inversions", "pairs"}}
	for _, s := range m.sens {
		for _, r := range s.rows {
			inv := fmt.Sprintf("%d / %d", r.inversions, r.pairs)
			t.md.rows = append(t.md.rows, []string{s.setting, markdown.text(r.variant.String()), corr(r.pearson), corr(r.spearman), inv})
			t.tex.rows = append(t.tex.rows, []string{texEscape(s.setting), texEscape(r.variant.String()), corr(r.pearson), corr(r.spearman), fmt.Sprintf(`$%d\,/\,%d$`, r.inversions, r.pairs)})
			t.csv = append(t.csv, []string{s.setting, r.variant.String(), strconv.Itoa(r.variant.Scale), r.variant.Gain.String(), strconv.Itoa(n),
				exact(r.pearson), exact(r.spearman), strconv.Itoa(r.inversions), strconv.Itoa(r.pairs)})
		}
	}
	// The overall values behind the correlations, in Markdown only (the
	// CSV's numbers are in table8.csv and ndcg_per_query.csv).
	var b strings.Builder
	b.WriteString("Overall nDCG@" + strconv.Itoa(m.k) + " under each variant:\n\n")
	for _, s := range m.sens {
		header := []string{"Retriever"}
		for _, v := range Variants {
			header = append(header, v.String())
		}
		g := grid{header: header, left: 1}
		for i, r := range m.retrievers {
			row := []string{markdown.text(r)}
			for v := range Variants {
				row = append(row, strconv.FormatFloat(s.overall[v][i], 'f', 4, 64))
			}
			g.rows = append(g.rows, row)
		}
		b.WriteString("## " + s.setting + "\n\n" + g.markdown() + "\n")
	}
	t.after = b.String()
	return t
}

// leaderboard is reports/leaderboard.json.
type leaderboard struct {
	Benchmark string   `json:"benchmark"`
	Run       string   `json:"run"`
	Metric    string   `json:"metric"`
	Gain      string   `json:"gain"`
	Setting   string   `json:"setting"`
	Queries   int      `json:"queries"`
	Domains   []string `json:"domains"`
	Resamples int      `json:"bootstrap_resamples"`
	Level     float64  `json:"ci_level"`
	Note      string   `json:"note"`
	// LatencyQueries is the size of the latency sample
	// (latency_queries.csv).
	LatencyQueries int `json:"latency_queries"`
	// Provenance: who produced the topics, summaries and judgments.
	Provenance readers.Provenance `json:"provenance"`
	Entries    []entry            `json:"entries"`
}

type entry struct {
	Rank       int           `json:"rank"`
	Retriever  string        `json:"retriever"`
	NDCG       float64       `json:"ndcg"`
	Lo         float64       `json:"ci_lo"`
	Hi         float64       `json:"ci_hi"`
	NDCGLinear float64       `json:"ndcg_linear_gain"`
	Domains    []scopeValue  `json:"domains"`
	Settings   []settingItem `json:"other_settings,omitempty"`
	// MedianSeconds is nil when no timings were recorded.
	MedianSeconds *float64 `json:"median_seconds_per_query"`
	TimedQueries  int      `json:"timed_queries"`
	// TimedOn is "latency_sample" or "all" (some of the sample untimed).
	TimedOn  string `json:"timed_on,omitempty"`
	Family   string `json:"family"`
	Frontier bool   `json:"frontier"`
}

type scopeValue struct {
	Domain  string  `json:"domain"`
	Queries int     `json:"queries"`
	NDCG    float64 `json:"ndcg"`
	Lo      float64 `json:"ci_lo"`
	Hi      float64 `json:"ci_hi"`
}

type settingItem struct {
	Setting string  `json:"setting"`
	NDCG    float64 `json:"ndcg"`
	Lo      float64 `json:"ci_lo"`
	Hi      float64 `json:"ci_hi"`
}

func (m *model) leaderboard() ([]byte, error) {
	exp := ndcg.Exponential
	lb := leaderboard{Benchmark: "SABER-Math", Run: m.run, Metric: fmt.Sprintf("nDCG@%d", m.k), Gain: exp.String(), Setting: m.main,
		Queries: m.queries, Domains: m.domains, Resamples: m.resamples, Level: 0.95, LatencyQueries: len(m.latencyQueries), Provenance: m.prov,
		Note:    "Sorted by overall nDCG in the main setting, ties by name. median_seconds_per_query comes from evaluate's timings, a measurement that changes when evaluate is rerun: the median over the latency sample's queries (latency_queries.csv; timed_on latency_sample), or over every timed query where some of the sample were not timed (timed_on all). frontier: on the quality–latency Pareto frontier of its family (bi-encoder or cross-encoder).",
		Entries: []entry{}}
	for i, r := range m.retrievers {
		iv := m.get(r, m.main, exp, ScopeOverall)
		e := entry{Rank: i + 1, Retriever: r, NDCG: iv.Mean, Lo: iv.Lo, Hi: iv.Hi, NDCGLinear: m.get(r, m.main, ndcg.Linear, ScopeOverall).Mean}
		for j, d := range m.domains {
			dv := m.get(r, m.main, exp, d)
			e.Domains = append(e.Domains, scopeValue{Domain: d, Queries: m.domainQueries[j], NDCG: dv.Mean, Lo: dv.Lo, Hi: dv.Hi})
		}
		for _, s := range m.settings {
			if s != m.main {
				sv := m.get(r, s, exp, ScopeOverall)
				e.Settings = append(e.Settings, settingItem{Setting: s, NDCG: sv.Mean, Lo: sv.Lo, Hi: sv.Hi})
			}
		}
		if med, ok := m.median[System{r, m.main}]; ok {
			e.MedianSeconds = &med
			e.TimedQueries = m.timed[System{r, m.main}]
			e.TimedOn = m.timedOn(r)
		}
		e.Family, e.Frontier = m.families[r], m.frontier[r]
		lb.Entries = append(lb.Entries, e)
	}
	js, err := json.MarshalIndent(lb, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// perQuery is reports/ndcg_per_query.csv: every system's nDCG of every
// query under every variant, for significance tests and plots elsewhere.
func (m *model) perQuery() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	header := []string{"retriever", "setting", "query", "domain"}
	for _, v := range Variants {
		header = append(header, fmt.Sprintf("%s_0_%d", v.Gain, v.Scale))
	}
	w.Write(header)
	for _, s := range m.systems() {
		sc := m.scores[s]
		for qi, q := range m.bench.queries {
			row := []string{s.Retriever, s.Setting, q.ID, m.domains[m.bench.qDomain[qi]]}
			for v := range Variants {
				row = append(row, exact(sc.perQuery[v][qi]))
			}
			w.Write(row)
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// index is reports/report.md: what was scored and where each file is.
func (m *model) index() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Evaluation report — run %s\n\n", m.run)
	b.WriteString(m.prov.Markdown())
	fmt.Fprintf(&b, "nDCG@%d (SPEC §3): per query, the ranking by score (descending, ties by document id ascending) against the query's own candidates' ratings; exponential gain 2^rel − 1 unless a file says linear; the mean over a domain's queries, or over all queries (overall); 95%% percentile bootstrap intervals from %d resamples of the queries.\n\n", m.k, m.resamples)
	fmt.Fprintf(&b, "- Queries: %s\n- Retrievers (%d): %s\n- Settings: %s (main: %s)\n", m.queriesNote(), len(m.retrievers), strings.Join(m.retrievers, ", "), strings.Join(m.settings, ", "), m.main)
	fmt.Fprintf(&b, "- Made by saber %s (every shard's manifest names the code that made it)\n\n", stage.CodeVersion())
	b.WriteString("| file | what |\n|---|---|\n")
	for _, f := range [][2]string{
		{Table1 + ".md, .csv, .tex", "Table 1: overall and per-domain nDCG in the main setting, the other settings' overall, median seconds per query"},
		{Table7 + ".md, .csv, .tex", "Table 7: the main setting with 95% bootstrap intervals"},
		{Table8 + ".md, .csv, .tex", "Table 8: every setting side by side"},
		{TableSensitivity + ".md, .csv, .tex", "App. D.3: rating scale [0,5] vs [0,3] × exponential vs linear gain, correlations and inversions"},
		{Table9 + ".md, .csv, .tex", "App. D.9: each instruction-capable retriever with I1–I3 (only with evaluate.instructions)"},
		{ReportChart + ".png, .svg", "overall and per-domain nDCG of every retriever, main setting"},
		{ReportLeaderboard, "retrievers by overall nDCG with intervals, per-domain values, median latency and frontier membership"},
		{ReportLatencyQueries, "the latency sample (App. C.5): the queries whose timings give the median seconds per query"},
		{ReportFrontier + ".png, .svg", "App. D.7: overall nDCG against median seconds per query, with the bi-encoder and cross-encoder Pareto frontiers (absent when nothing was timed)"},
		{ReportPerQuery, "every retriever's nDCG on every query, in every setting and variant"},
		{ReportHTML, "the whole run on one page, for a browser: leaderboard, charts, calibration grid, selection, deduplication, audit, provenance"},
		{"../results/", "the `results` dataset: one row per retriever, setting, gain and scope"},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], f[1])
	}
	b.WriteString("\nReproducibility: every file here except table1.*, leaderboard.json, frontier.* and index.html depends only on runs, ratings, queries and the config, and a rerun reproduces its bytes. Those also show median seconds per query from `timings`, measurements that change when evaluate is rerun.\n")
	return b.Bytes()
}

func writeReports(ctx context.Context, env *stage.Env, m *model) error {
	tables := []table{m.table1(), m.table7(), m.table8(), m.sensitivityTable()}
	if t9, ok := m.table9(env.Config); ok {
		tables = append(tables, t9)
	}
	for _, t := range tables {
		// Each table states its labels' provenance, for a reader who
		// opens only that file.
		t.prov = &m.prov
		if err := t.write(ctx, env); err != nil {
			return err
		}
	}
	pq, err := m.perQuery()
	if err != nil {
		return err
	}
	if err := stage.WriteReport(ctx, env, ReportPerQuery, pq); err != nil {
		return err
	}
	lb, err := m.leaderboard()
	if err != nil {
		return err
	}
	if err := stage.WriteReport(ctx, env, ReportLeaderboard, lb); err != nil {
		return err
	}
	if err := writeChart(ctx, env, m); err != nil {
		return err
	}
	lq, err := m.latencyCSV()
	if err != nil {
		return err
	}
	if err := stage.WriteReport(ctx, env, ReportLatencyQueries, lq); err != nil {
		return err
	}
	if err := writeFrontier(ctx, env, m); err != nil {
		return err
	}
	if err := writeHTML(ctx, env, m); err != nil {
		return err
	}
	return stage.WriteReport(ctx, env, ReportIndex, m.index())
}

// timedOn says which queries a retriever's median is over.
func (m *model) timedOn(r string) string {
	if m.timedAll[System{r, m.main}] {
		return "all"
	}
	return "latency_sample"
}

// latencyNote is Table 1's note on Med. s/query.
func (m *model) latencyNote() string {
	n := fmt.Sprintf("Med. s/query is the median wall time per query from hand-over to sorted ranking (%s setting, from `timings`; — where none were recorded), over the %d queries of the latency sample (App. C.5: drawn once from the run seed, listed in latency_queries.csv", m.main, len(m.latencyQueries))
	if len(m.latencyQueries) < m.queries {
		n += fmt.Sprintf(", out of %d", m.queries)
	} else {
		n += ", here every query of the benchmark"
	}
	n += ")."
	var all []string
	for _, r := range m.retrievers {
		if _, ok := m.median[System{r, m.main}]; ok && m.timedAll[System{r, m.main}] {
			all = append(all, r)
		}
	}
	if len(all) > 0 {
		n += fmt.Sprintf(" * marks a median over every timed query instead, because not all of the sample was timed: %s.", strings.Join(all, ", "))
	}
	return n
}
