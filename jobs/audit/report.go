package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/lib/leak"
)

// group is one backend's share of the audit.
type group struct {
	backend, model, prompt               string
	queries                              map[string]bool
	pairs, equivalent, distinct, invalid int
}

// report renders reports/audit.md from every audited row (sorted by
// query, rank), the invalid ones, and the texts of the flagged pairs.
func report(cfg *Config, qs []dataset.Query, rows, invalid []dataset.AuditRow, texts map[string]*readers.Doc) []byte {
	var b strings.Builder
	domain := make(map[string]string, len(qs))
	for _, q := range qs {
		domain[q.ID] = q.Domain
	}
	groups := map[[3]string]*group{}
	total := &group{queries: map[string]bool{}}
	perQuery := map[string]int{}
	for _, r := range rows {
		k := [3]string{r.Backend, r.Model, r.PromptVersion}
		g := groups[k]
		if g == nil {
			g = &group{backend: r.Backend, model: r.Model, prompt: r.PromptVersion, queries: map[string]bool{}}
			groups[k] = g
		}
		perQuery[r.Query]++
		for _, g := range []*group{g, total} {
			g.queries[r.Query] = true
			g.pairs++
			switch r.Verdict {
			case Equivalent:
				g.equivalent++
			case Distinct:
				g.distinct++
			default:
				g.invalid++
			}
		}
	}
	keys := make([][3]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [3]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]), cmp.Compare(a[2], b[2]))
	})
	short := 0
	for _, n := range perQuery {
		if n < cfg.Top {
			short++
		}
	}

	fmt.Fprintf(&b, "# Duplicate-leakage audit\n\n")
	fmt.Fprintf(&b, "Paper App. A.5. For each of the %d queries, its %d highest-rated documents under the final ratings "+
		"(rating descending, ties by document id) were inspected for a statement of an equivalent problem: the same "+
		"mathematical content up to renaming, rewording or notation. A flagged pair is a leak: `leaks` lists it, and "+
		"the release refuses every leak its config does not accept by id (`query/doc`).\n\n", len(qs), cfg.Top)

	fmt.Fprintf(&b, "## Pairs audited\n\n")
	fmt.Fprintf(&b, "| backend | model | prompt | queries | pairs | equivalent | distinct | invalid |\n")
	fmt.Fprintf(&b, "|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, k := range keys {
		g := groups[k]
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d |\n", cell(g.backend), cell(g.model), cell(g.prompt),
			len(g.queries), g.pairs, g.equivalent, g.distinct, g.invalid)
	}
	fmt.Fprintf(&b, "| **total** | | | %d | %d | %d | %d | %d |\n\n", len(total.queries), total.pairs, total.equivalent, total.distinct, total.invalid)
	if short > 0 {
		fmt.Fprintf(&b, "%d of the queries have fewer than %d rated documents; all of theirs were audited.\n\n", short, cfg.Top)
	}

	fmt.Fprintf(&b, "## Method\n\n")
	for _, k := range keys {
		g := groups[k]
		switch g.backend {
		case "lexical":
			r := cfg.Lexical.Rule()
			fmt.Fprintf(&b, "**lexical** (offline, %s; lib/leak). Not a model: a deterministic near-duplicate test of our own. "+
				"Each statement is cut into sentences, normalised (lower case, punctuation and TeX markup to spaces), its "+
				"variables masked (every identifier letter in math, and Greek letters, become one token) and shingled into "+
				"its words and word 3-grams; the score is the Jaccard similarity of the two shingle sets. The numbers of each "+
				"statement (integers, decimals, simple fractions, in text or TeX) form a multiset, and each solution's final "+
				"answer is its last `\\boxed{…}`, normalised. A pair is flagged when both answers are present and equal and "+
				"either the score is ≥ %g, or the numbers are equal and the score is ≥ %g; or, when an answer is missing, "+
				"when the numbers are equal and the score is ≥ %g. Two different answers are never flagged.\n\n",
				leak.Version, r.Jaccard, r.JaccardNumbers, r.Jaccard)
			fmt.Fprintf(&b, "Its limits: it finds near-copies, not equivalence. A renaming that also changes the numbers, a "+
				"story retold in other words, the same content in other notation (1/2 and 0.5, \"five\" and 5), or equal "+
				"answers written differently are missed; templated problems that differ in one word that matters (maximum and "+
				"minimum, at least and at most) but share numbers and, by chance, the answer may be flagged. ")
			if r == leak.DefaultRule {
				fmt.Fprintf(&b, "With these (default) thresholds, on MATH it flags every problem against a copy with renamed "+
					"variables and reordered sentences, and 28 false positives among 12.4 million pairs of distinct problems "+
					"of the same type (0.006%% of each problem's 50 nearest). ")
			}
			fmt.Fprintf(&b, "No flag here is not proof of no leak: the llm backend is the audit the paper describes.\n\n")
		case "llm":
			fmt.Fprintf(&b, "**llm** (model %s, prompt %s). The model sees both problems with their solutions and the definition "+
				"of equivalent (the same objects, data, conditions and question, up to renaming, rewording or notation; "+
				"special cases, generalisations and problems with merely the same answer are distinct), reasons, and ends "+
				"with `\\boxed{equivalent}` or `\\boxed{distinct}`; the last such box decides. An answer without one is asked "+
				"again up to %d times; then the pair is invalid (unparseable), as is a pair the server refused (refused). "+
				"Invalid pairs are kept, counted here and never flagged.\n\n", code(g.model), code(g.prompt), cfg.ParseRetries)
		default:
			fmt.Fprintf(&b, "**%s**: a backend this report does not describe.\n\n", cell(g.backend))
		}
	}

	var flagged []dataset.AuditRow
	for _, r := range rows {
		if r.Flagged {
			flagged = append(flagged, r)
		}
	}
	fmt.Fprintf(&b, "## Flagged pairs (%d)\n\n", len(flagged))
	if len(flagged) == 0 {
		fmt.Fprintf(&b, "None.\n\n")
	}
	for i, r := range flagged {
		fmt.Fprintf(&b, "### %d. %s / %s\n\n", i+1, code(r.Query), code(r.Doc))
		fmt.Fprintf(&b, "Leak id %s. Rank %d of the query's documents, rating %.4f; backend %s", code(dataset.LeakID(r.Query, r.Doc)), r.Rank, r.Rating, r.Backend)
		if r.Backend == "lexical" {
			fmt.Fprintf(&b, ", score %.3f", r.Score)
		}
		fmt.Fprintf(&b, ": %s.\n\n", r.Reason)
		label := "Query " + code(r.Query)
		if d := domain[r.Query]; d != "" {
			label += " (" + d + ")"
		}
		problem(&b, label, texts[r.Query])
		problem(&b, "Document "+code(r.Doc), texts[r.Doc])
	}

	fmt.Fprintf(&b, "## Invalid answers (%d)\n\n", len(invalid))
	if len(invalid) == 0 {
		fmt.Fprintf(&b, "None.\n")
	} else {
		fmt.Fprintf(&b, "Kept in `audit`, never flagged.\n\n")
		fmt.Fprintf(&b, "| query | doc | rank | backend | reason | asks | answer sha256 |\n|---|---|---:|---|---|---:|---|\n")
		for _, r := range invalid {
			sum := r.AnswerSHA256
			if sum == "" {
				sum = "–"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %d | %s |\n", cell(r.Query), cell(r.Doc), r.Rank, cell(r.Backend), cell(r.Reason), r.Asks, sum)
		}
	}
	return []byte(b.String())
}

// problem writes a statement as a quote and its final answer.
func problem(b *strings.Builder, label string, d *readers.Doc) {
	fmt.Fprintf(b, "**%s**\n\n", label)
	if d == nil {
		fmt.Fprintf(b, "(not in the corpus)\n\n")
		return
	}
	for _, line := range strings.Split(strings.TrimRight(d.Statement, "\n"), "\n") {
		if line = strings.TrimRight(line, " \t\r"); line == "" {
			b.WriteString(">\n")
		} else {
			b.WriteString("> " + line + "\n")
		}
	}
	ans := "(none: the solution boxes no answer)"
	if a, ok := leak.Answer(d.Solution); ok {
		ans = code(a)
	}
	fmt.Fprintf(b, "\nFinal answer: %s\n\n", ans)
}

// code writes s as inline code, with a fence longer than any run of
// backticks in it.
func code(s string) string {
	if s == "" {
		return "–"
	}
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// cell makes s safe in a table cell.
func cell(s string) string {
	if s == "" {
		return "–"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
