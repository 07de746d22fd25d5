package analyze

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/config"
	"github.com/saber-math/saber/jobs/llmcall"
	"github.com/saber-math/saber/jobs/llmstage"
	"github.com/saber-math/saber/jobs/readers"
	"github.com/saber-math/saber/jobs/retrieval"
	"github.com/saber-math/saber/jobs/retrievers"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/analysis"
	"github.com/saber-math/saber/lib/chart"
	"github.com/saber-math/saber/lib/llm"
	"github.com/saber-math/saber/lib/llmconf"
	"github.com/saber-math/saber/lib/parallel"
	"github.com/saber-math/saber/lib/prompts"
	"github.com/saber-math/saber/lib/text"
)

// Why a query is left out of the maths-vs-words analysis.
const (
	DropNoMaths     = "no maths"
	DropNoWords     = "no words"
	DropUnparseable = "normaliser answer without \\boxed{…}"
	DropRefused     = "normaliser refused"
)

var dropReasons = []string{DropNoMaths, DropNoWords, DropUnparseable, DropRefused}

// dropCounts are the manifest statistics of the reasons.
var dropCounts = map[string]string{DropNoMaths: "mathtext_no_maths", DropNoWords: "mathtext_no_words",
	DropUnparseable: "mathtext_unparseable", DropRefused: "mathtext_refused"}

// split is one query's two sides.
type split struct {
	query, domain string
	maths, words  string
	ratio         float64
}

// mathTextResult is the analysis: the kept queries, the dropped ones by
// reason, and every retriever's outcome per kept query.
type mathTextResult struct {
	kept       []split
	dropped    map[string][]string // reason → query ids
	retrievers []string
	perQuery   map[string][]analysis.MathTextQuery // retriever → per kept query
	rows       []dataset.MathTextRow
	backend    string
	version    string // the normaliser's prompt version, llm only
}

// normaliser makes every expression of a statement delimited.
type normaliser interface {
	normalise(ctx context.Context, statement string) (string, string, error) // text, drop reason
}

type rulesNormaliser struct{}

func (rulesNormaliser) normalise(_ context.Context, s string) (string, string, error) {
	return text.DelimitMath(s), "", nil
}

// llmNormaliser asks with prompt F.5 and takes the last \boxed{…}.
type llmNormaliser struct {
	client *llmcall.Client
}

var errNoBoxed = errors.New(`no \boxed{…} in the answer`)

func (n *llmNormaliser) normalise(ctx context.Context, s string) (string, string, error) {
	out, err := llmcall.Ask(ctx, n.client, prompts.FormatData{Text: s}, func(raw string) (string, error) {
		if b, ok := text.LastBoxed(raw); ok && strings.TrimSpace(b) != "" {
			return strings.TrimSpace(b), nil
		}
		return "", errNoBoxed
	})
	var un *llmcall.UnparseableError
	switch {
	case err == nil:
		return out, "", nil
	case errors.As(err, &un):
		return "", DropUnparseable, nil
	case errors.Is(err, llm.ErrPermanent):
		return "", DropRefused, nil
	}
	return "", "", err
}

// Split normalises and splits one statement: its maths and words parts,
// their maths-token ratio, or the reason it is dropped.
func Split(ctx context.Context, n normaliser, statement string) (maths, words string, ratio float64, drop string, err error) {
	norm, drop, err := n.normalise(ctx, statement)
	if err != nil || drop != "" {
		return "", "", 0, drop, err
	}
	maths, words = text.SplitMath(norm)
	switch {
	case maths == "":
		return "", "", 0, DropNoMaths, nil
	case words == "":
		return "", "", 0, DropNoWords, nil
	}
	return maths, words, analysis.MathRatio(maths, words), "", nil
}

func newNormaliser(env *stage.Env) (normaliser, func(), string, error) {
	cfg := Section.Of(env.Config)
	if cfg.Backend != BackendLLM {
		return rulesNormaliser{}, func() {}, "", nil
	}
	c, record, err := llmcall.NewFor(env, env.Config.LLMFor(cfg.LLM), cfg.ParseRetries, prompts.Format)
	if err != nil {
		return nil, nil, "", err
	}
	return &llmNormaliser{client: c}, record, c.PromptVersion(), nil
}

// mathText runs the analysis over every configured retriever.
func mathText(ctx context.Context, env *stage.Env, b *bench) (*mathTextResult, error) {
	cfg := Section.Of(env.Config)
	norm, record, version, err := newNormaliser(env)
	if err != nil {
		return nil, err
	}
	res := &mathTextResult{dropped: map[string][]string{}, perQuery: map[string][]analysis.MathTextQuery{}, backend: cfg.Backend, version: version}
	splits := make([]split, len(b.queries))
	drops := make([]string, len(b.queries))
	var lcfg llmconf.Config // the server's settings: read (and declared) only for the llm backend
	if cfg.Backend == BackendLLM {
		lcfg = env.Config.LLMFor(cfg.LLM)
	}
	nw := llmstage.Workers(cfg.Workers, cfg.Backend == BackendLLM, lcfg)
	err = parallel.For(ctx, len(b.queries), nw, func(ctx context.Context, i int) error {
		q := b.queries[i]
		m, w, ratio, drop, err := Split(ctx, norm, b.texts[q.ID].Statement)
		if err != nil {
			return fmt.Errorf("normalise query %s: %w", q.ID, err)
		}
		splits[i], drops[i] = split{query: q.ID, domain: q.Domain, maths: m, words: w, ratio: ratio}, drop
		return nil
	})
	record()
	if err != nil {
		return nil, err
	}
	for i, s := range splits {
		if drops[i] != "" {
			res.dropped[drops[i]] = append(res.dropped[drops[i]], s.query)
			continue
		}
		res.kept = append(res.kept, s)
	}
	for _, r := range dropReasons {
		env.Count(dropCounts[r], int64(len(res.dropped[r])))
	}
	env.Count("mathtext_kept", int64(len(res.kept)))

	// The documents: each kept query's best-rated candidates, full text.
	docs := make([][]string, len(res.kept))
	for i, s := range res.kept {
		top := analysis.TopRated(b.ratings[s.query], cfg.Top)
		ds := make([]*readers.Doc, 0, len(top))
		for _, id := range top {
			d, ok := b.texts[id]
			if !ok {
				return nil, stage.BadInput(fmt.Errorf("ratings: query %s rates document %s, which is not among its candidates", s.query, id))
			}
			ds = append(ds, d)
		}
		_, docs[i], err = readers.SettingTexts("statement-full", b.texts[s.query], ds)
		if err != nil {
			return nil, err
		}
	}
	reg := retrieval.NewRegistry(env.Config.RetrieverSpecs(), retrieval.Options{Dir: env.Config.Dir()})
	res.retrievers = cfg.RetrieversOf(env.Config)
	for _, name := range res.retrievers {
		per, err := scoreRetriever(ctx, env, reg, name, res.kept, docs, cfg.Workers)
		if err != nil {
			return nil, err
		}
		res.perQuery[name] = per
		for i, q := range per {
			res.rows = append(res.rows, dataset.MathTextRow{Retriever: name, Query: q.Query, Domain: q.Domain, MathRatio: q.Ratio,
				MathScore: q.MathMean, TextScore: q.TextMean, MathWins: q.MathWins(), Docs: int32(len(docs[i]))})
		}
	}
	slices.SortFunc(res.rows, func(a, b dataset.MathTextRow) int { return dataset.MathText.Compare(&a, &b) })
	return res, nil
}

// scoreRetriever builds a retriever and scores both sides of every kept
// query with it.
func scoreRetriever(ctx context.Context, env *stage.Env, reg *retrieval.Registry, name string, kept []split, docs [][]string, configured int) ([]analysis.MathTextQuery, error) {
	ret, err := reg.Build(ctx, name)
	if err != nil {
		return nil, stage.BadInput(fmt.Errorf("analyze.retrievers: %s: %w", name, err))
	}
	defer ret.Close()
	out, err := scoreSides(ctx, ret, kept, docs, workers(configured, reg.Workers(name)))
	if rec, ok := ret.(retrieval.LLMRecorder); ok {
		for _, c := range rec.LLMClients() {
			llmcall.Record(env, c)
		}
	}
	return out, err
}

// scoreSides scores query i's maths part and its words part against
// docs[i] and keeps each side's mean.
func scoreSides(ctx context.Context, ret retrieval.Retriever, kept []split, docs [][]string, workers int) ([]analysis.MathTextQuery, error) {
	out := make([]analysis.MathTextQuery, len(kept))
	err := parallel.For(ctx, len(kept), workers, func(ctx context.Context, i int) error {
		s := kept[i]
		qctx := retrieval.WithQueryID(ctx, s.query)
		var means [2]float64
		for side, q := range []string{s.maths, s.words} {
			scores, err := ret.Score(qctx, q, docs[i])
			if err != nil {
				return fmt.Errorf("retriever %s, query %s: %w", ret.Name(), s.query, err)
			}
			if len(scores) != len(docs[i]) {
				return fmt.Errorf("retriever %s, query %s: %d scores for %d documents", ret.Name(), s.query, len(scores), len(docs[i]))
			}
			means[side] = analysis.Mean(scores)
		}
		out[i] = analysis.MathTextQuery{Query: s.query, Domain: s.domain, Ratio: s.ratio, MathMean: means[0], TextMean: means[1]}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeMathText writes Figure 9's table and plot, the ratio bins and
// Table 10.
func writeMathText(ctx context.Context, env *stage.Env, b *bench, res *mathTextResult, idx *index) error {
	cfg := Section.Of(env.Config)
	total := len(b.queries)
	var dropNote []string
	ndropped := 0
	for _, r := range dropReasons {
		if n := len(res.dropped[r]); n > 0 {
			ndropped += n
			ex := res.dropped[r][:min(3, n)]
			dropNote = append(dropNote, fmt.Sprintf("%d %s (%s%s)", n, r, strings.Join(ex, ", "), more(n, 3)))
		}
	}
	norm := "the offline normaliser (the Math tokeniser's delimiter rules, bare maths in prose delimited by rule: lib/text.DelimitMath)"
	if res.backend == BackendLLM {
		norm = fmt.Sprintf("prompt F.5 (%s) with %s", res.version, env.Config.LLMFor(cfg.LLM).Model)
	}
	dropped := fmt.Sprintf("%d of %d queries kept; %d dropped", len(res.kept), total, ndropped)
	if ndropped > 0 {
		dropped += ": " + strings.Join(dropNote, "; ")
	}
	notes := []string{
		"Percentage of queries whose maths-only part scores higher than its words-only part against the full text of its " +
			fmt.Sprintf("%d best-rated candidates (mean score; paper §4.2, App. D.10, Figure 9). Statements normalised by %s, then split at the delimiters.", cfg.Top, norm),
		dropped + ".",
	}
	ratio := 0.0
	for _, s := range res.kept {
		ratio += s.ratio
	}
	if len(res.kept) > 0 {
		ratio /= float64(len(res.kept))
	}
	notes = append(notes, fmt.Sprintf("Mean maths-token ratio of the kept queries: %.3f.", ratio))

	header := []string{"Retriever", "All"}
	header = append(header, b.domains...)
	t := table{name: ReportMathText, title: "Maths against words (M > W, %)", notes: notes, prov: &b.prov, left: 1,
		header: header, csv: [][]string{append(append([]string{"retriever", "queries", "math_wins_pct"}, b.domains...), "mean_math_ratio", "kept", "dropped")}}
	for _, r := range res.retrievers {
		all, by := analysis.MathWinShares(res.perQuery[r], b.domains)
		row := []string{r, pct(all)}
		c := []string{r, fmt.Sprint(all.Of), pct(all)}
		for _, s := range by {
			row = append(row, pct(s))
			c = append(c, pct(s))
		}
		t.rows = append(t.rows, row)
		t.csv = append(t.csv, append(c, fmt.Sprintf("%.4f", ratio), fmt.Sprint(len(res.kept)), fmt.Sprint(ndropped)))
	}
	if err := t.write(ctx, env); err != nil {
		return err
	}
	idx.add("Maths against words (§4.2, D.10, Figure 9)", ReportMathText+".md", dropped)

	// The percentage against the ratio, per retriever.
	csvRows := [][]string{{"retriever", "ratio_lo", "ratio_hi", "queries", "math_wins_pct"}}
	fig := chart.Line{Title: "Maths wins against the maths-token ratio", XLabel: "maths-token ratio (bin centre)", YLabel: "queries where maths wins (%)",
		Points: true, Legend: chart.TopLeft}
	for _, r := range res.retrievers {
		s := chart.Series{Name: r}
		for _, bin := range analysis.MathWinsByRatio(res.perQuery[r], cfg.Bins) {
			csvRows = append(csvRows, []string{r, fmt.Sprintf("%.2f", bin.Lo), fmt.Sprintf("%.2f", bin.Hi), fmt.Sprint(bin.Share.Of), pct(bin.Share)})
			if bin.Share.Of > 0 {
				s.X, s.Y = append(s.X, (bin.Lo+bin.Hi)/2), append(s.Y, bin.Share.Percent())
			}
		}
		if len(s.X) > 0 {
			fig.Series = append(fig.Series, s)
		}
	}
	if err := writeCSV(ctx, env, ReportMathRatio+".csv", csvRows); err != nil {
		return err
	}
	if len(fig.Series) > 0 {
		if err := writeFigure(ctx, env, ReportMathText, fig, 8*vg.Inch, 5*vg.Inch); err != nil {
			return err
		}
		idx.add("Maths wins against the maths-token ratio", ReportMathText+".png", "and "+ReportMathRatio+".csv")
	}
	return writeTable10(ctx, env, res, idx)
}

// writeTable10 is Table 10: M > W per instruction, for the retrievers
// evaluated with instructions (App. D.9's variants "<name>.<instruction>").
func writeTable10(ctx context.Context, env *stage.Env, res *mathTextResult, idx *index) error {
	cfg := env.Config
	ins := config.EvaluateInstructions.Get(cfg)
	var bases []string
	for _, r := range res.retrievers {
		if _, _, variant := cfg.InstructionVariant(r); variant {
			continue
		}
		for _, in := range ins {
			if _, ok := res.perQuery[r+"."+in]; ok && !slices.Contains(bases, r) {
				bases = append(bases, r)
			}
		}
	}
	t := table{name: ReportTable10, title: "Maths against words per instruction (Table 10, M > W, %)", left: 1,
		header: append([]string{"Retriever", "No Instr."}, ins...), csv: [][]string{append([]string{"retriever", "none"}, ins...)}}
	t.notes = []string{"Percentage of queries where the maths-only part scores higher, for each retriever evaluated with the instructions of App. F.6 (evaluate.instructions); the instruction applies to the query side only."}
	if len(bases) == 0 {
		var takes []string
		for _, k := range retrievers.Kinds() {
			if k.TakesInstruction {
				takes = append(takes, k.Name)
			}
		}
		t.notes = append(t.notes, "No analysed retriever was evaluated with instructions: set evaluate.instructions (I1, I2, I3) with retrievers that take one ("+strings.Join(takes, ", ")+") to fill this table.")
	}
	for _, r := range bases {
		all, _ := analysis.MathWinShares(res.perQuery[r], nil)
		row := []string{r, pct(all)}
		for _, in := range ins {
			s := analysis.Share{}
			if pq, ok := res.perQuery[r+"."+in]; ok {
				s, _ = analysis.MathWinShares(pq, nil)
			}
			row = append(row, pct(s))
		}
		t.rows = append(t.rows, row)
		t.csv = append(t.csv, row)
	}
	if err := t.write(ctx, env); err != nil {
		return err
	}
	idx.add("Maths against words per instruction (Table 10)", ReportTable10+".md", fmt.Sprintf("%d retrievers", len(bases)))
	return nil
}

func more(n, shown int) string {
	if n > shown {
		return fmt.Sprintf(" and %d more", n-shown)
	}
	return ""
}
