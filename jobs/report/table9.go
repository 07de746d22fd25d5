package report

import (
	"fmt"

	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/lib/ndcg"
)

// instructionRow is one retriever of the study: its default run and its
// variant per instruction ("" where none was evaluated).
type instructionRow struct {
	base     string
	variants []string // parallel to evaluate.instructions
}

// instructionRows groups the evaluated retrievers into the study's rows,
// in the report's retriever order.
func instructionRows(cfg *config.Config, retrievers []string) []instructionRow {
	if len(config.EvaluateInstructions.Get(cfg)) == 0 {
		return nil
	}
	idx := map[string]int{}
	var rows []instructionRow
	for _, r := range retrievers {
		base, in, ok := cfg.InstructionVariant(r)
		if !ok {
			continue
		}
		i, seen := idx[base]
		if !seen {
			i = len(rows)
			idx[base] = i
			rows = append(rows, instructionRow{base: base, variants: make([]string, len(config.EvaluateInstructions.Get(cfg)))})
		}
		for k, name := range config.EvaluateInstructions.Get(cfg) {
			if name == in {
				rows[i].variants[k] = r
			}
		}
	}
	return rows
}

// table9 puts each instruction-capable retriever's overall nDCG with its
// default input beside its runs with each instruction (Table 9).
func (m *model) table9(cfg *config.Config) (table, bool) {
	rows := instructionRows(cfg, m.retrievers)
	if len(rows) == 0 {
		return table{}, false
	}
	exp := ndcg.Exponential
	ins := config.EvaluateInstructions.Get(cfg)
	t := table{name: Table9, title: fmt.Sprintf("Table 9 — nDCG@%d with task instructions (%s, exponential gain)", m.k, m.main)}
	t.notes = []string{fmt.Sprintf("Overall nDCG@%d of each retriever that takes an instruction: its configured input (Default) and the same model with each instruction of App. F.6 applied to the query only (evaluate.instructions). The best of each row is bold. %s", m.k, m.queriesNote())}
	header := append([]string{"Retriever", "Default"}, ins...)
	t.md = grid{header: header, left: 1}
	t.tex = grid{header: texAll(header), left: 1}
	t.csv = [][]string{append([]string{"retriever", "default"}, ins...)}
	for _, row := range rows {
		names := append([]string{row.base}, row.variants...)
		vals := make([]float64, len(names))
		best := -1.0
		for i, n := range names {
			vals[i] = -1
			if n != "" {
				vals[i] = m.get(n, m.main, exp, ScopeOverall).Mean
				best = max(best, vals[i])
			}
		}
		mdRow, texRow, csvRow := []string{markdown.text(row.base)}, []string{latex.text(row.base)}, []string{row.base}
		for _, v := range vals {
			if v < 0 {
				mdRow, texRow, csvRow = append(mdRow, "—"), append(texRow, "--"), append(csvRow, "")
				continue
			}
			mdRow = append(mdRow, markdown.num(v, v == best))
			texRow = append(texRow, latex.num(v, v == best))
			csvRow = append(csvRow, exact(v))
		}
		t.md.rows = append(t.md.rows, mdRow)
		t.tex.rows = append(t.tex.rows, texRow)
		t.csv = append(t.csv, csvRow)
	}
	return t, true
}
