package release

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"
	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/lib/domains"
)

// cardHeader is the YAML header of the Hugging Face dataset card, fields
// in the order the Hub documents them.
type cardHeader struct {
	PrettyName     string         `yaml:"pretty_name"`
	License        string         `yaml:"license"`
	LicenseName    string         `yaml:"license_name,omitempty"`
	LicenseLink    string         `yaml:"license_link,omitempty"`
	Language       []string       `yaml:"language"`
	TaskCategories []string       `yaml:"task_categories"`
	TaskIDs        []string       `yaml:"task_ids"`
	SizeCategories []string       `yaml:"size_categories"`
	Tags           []string       `yaml:"tags"`
	Configs        []cardConfig   `yaml:"configs"`
	DatasetInfo    []cardDataInfo `yaml:"dataset_info"`
}

type cardConfig struct {
	Name      string     `yaml:"config_name"`
	DataFiles []cardFile `yaml:"data_files"`
}

type cardFile struct {
	Split string `yaml:"split"`
	Path  string `yaml:"path"`
}

// cardDataInfo is a config's features and split sizes, as the Hub's
// dataset_info lists them.
type cardDataInfo struct {
	Config   string        `yaml:"config_name"`
	Features []cardFeature `yaml:"features"`
	Splits   []cardSplit   `yaml:"splits"`
}

// cardFeature is a column: dtype for a scalar, sequence for a list.
type cardFeature struct {
	Name     string `yaml:"name"`
	DType    string `yaml:"dtype,omitempty"`
	Sequence string `yaml:"sequence,omitempty"`
}

type cardSplit struct {
	Name     string `yaml:"name"`
	Examples int64  `yaml:"num_examples"`
}

// CardSplit is the split every config's file is under.
const CardSplit = "test"

// sizeCategory is the Hub's size category of n rows.
func sizeCategory(n int64) string {
	switch {
	case n < 1_000:
		return "n<1K"
	case n < 10_000:
		return "1K<n<10K"
	case n < 100_000:
		return "10K<n<100K"
	case n < 1_000_000:
		return "100K<n<1M"
	case n < 10_000_000:
		return "1M<n<10M"
	}
	return "10M<n<100M"
}

// MTEBFiles are the MTEB layout's files of a setting, by the config
// suffix MTEB's retrieval loader asks for: <setting>-corpus and so on.
var MTEBFiles = []string{"corpus", "queries", "qrels", "top_ranked"}

// MainSetting is the setting the card's unprefixed MTEB configs (corpus,
// queries, qrels, top_ranked: MTEB's names without a subset) point at.
func MainSetting(settings []string) string {
	if slices.Contains(settings, "statement-full") || len(settings) == 0 {
		return "statement-full"
	}
	return settings[0]
}

// CardConfigs are the configs the card declares: one per data/ table
// (saber_<table>), then every layout's (Layout.CardConfigs: MTEB's).
func CardConfigs(settings []string) []cardConfig {
	var out []cardConfig
	for _, t := range Tables {
		out = append(out, cardConfig{Name: t.CardConfig(), DataFiles: []cardFile{{Split: CardSplit, Path: t.Path}}})
	}
	for _, l := range Layouts {
		if l.CardConfigs != nil {
			out = append(out, l.CardConfigs(settings)...)
		}
	}
	return out
}

// featureType is a column's type as datasets and Arrow name it: string,
// int32, int64, float64, bool; list reports a list of that type.
func featureType(n parquet.Node) (dtype string, list bool) {
	if !n.Leaf() {
		for _, g := range n.Fields() {
			for _, e := range g.Fields() {
				n, list = e, true
			}
		}
	}
	list = list || n.Repeated()
	switch n.Type().Kind() {
	case parquet.Boolean:
		return "bool", list
	case parquet.Int32:
		return "int32", list
	case parquet.Int64:
		return "int64", list
	case parquet.Float:
		return "float32", list
	case parquet.Double:
		return "float64", list
	}
	return "string", list
}

// ReadableType is featureType as one word: "list<string>" for a list.
func ReadableType(n parquet.Node) string {
	t, list := featureType(n)
	if list {
		return "list<" + t + ">"
	}
	return t
}

// dataInfo is the card's dataset_info: every config's features, from the
// Parquet file it loads, and its rows.
func dataInfo(configs []cardConfig, files []File) ([]cardDataInfo, error) {
	by := map[string]File{}
	for _, f := range files {
		by[f.Path] = f
	}
	var out []cardDataInfo
	for _, c := range configs {
		f := by[c.DataFiles[0].Path]
		s, err := dataset.FileSchema(f.Data, f.Path)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", c.Name, err)
		}
		info := cardDataInfo{Config: c.Name, Splits: []cardSplit{{Name: CardSplit, Examples: f.Rows}}}
		for _, fd := range s.Fields() {
			t, list := featureType(fd)
			ft := cardFeature{Name: fd.Name(), DType: t}
			if list {
				ft = cardFeature{Name: fd.Name(), Sequence: t}
			}
			info.Features = append(info.Features, ft)
		}
		out = append(out, info)
	}
	return out, nil
}

// card renders README.md: the header, then the sections a dataset card
// has, every figure computed from the contents.
func (c *Contents) card(files []File) ([]byte, error) {
	var largest int64
	for _, f := range files {
		if f.Kind == KindData {
			largest = max(largest, f.Rows)
		}
	}
	lic, licName, licLink := c.hubLicence()
	configs := CardConfigs(c.Settings)
	info, err := dataInfo(configs, files)
	if err != nil {
		return nil, err
	}
	h := cardHeader{
		PrettyName: c.Meta.Name, License: lic, LicenseName: licName, LicenseLink: licLink,
		Language: []string{"en"}, TaskCategories: []string{"text-retrieval", "text-ranking"}, TaskIDs: []string{"document-retrieval"},
		SizeCategories: []string{sizeCategory(largest)},
		Tags:           []string{"mathematics", "information-retrieval", "reranking", "benchmark", "mteb"},
		Configs:        configs,
		DatasetInfo:    info,
	}
	var head bytes.Buffer
	enc := yaml.NewEncoder(&head)
	enc.SetIndent(2)
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(head.Bytes())
	b.WriteString("---\n\n")
	rows := map[string]int64{}
	for _, f := range files {
		rows[f.Path] = f.Rows
	}
	fmt.Fprintf(&b, "# %s %s\n\n", c.Meta.Name, c.Meta.Version)
	c.cardSummary(&b)
	c.cardTask(&b)
	c.cardLoad(&b)
	c.cardStructure(&b, rows)
	c.cardCreation(&b)
	c.cardAudit(&b)
	c.cardJudgeAudit(&b)
	c.cardResults(&b)
	c.cardLicensing(&b)
	c.cardLimitations(&b)
	fmt.Fprintf(&b, "## Citation\n\n```bibtex\n%s\n```\n", strings.TrimSpace(c.Meta.Citation))
	return b.Bytes(), nil
}

func (c *Contents) domains() ([]string, map[string]int) {
	n := map[string]int{}
	for _, q := range c.Queries {
		n[q.Domain]++
	}
	labels := make([]string, 0, len(n))
	for d := range n {
		labels = append(labels, d)
	}
	slices.Sort(labels)
	m := domains.Match(c.Domains, labels)
	count := map[string]int{}
	for d, k := range n {
		count[m.Of[d]] += k
	}
	return m.Order, count
}

func (c *Contents) candidatesPerQuery() (int, int) {
	per := map[string]int{}
	for _, q := range c.Qrels {
		per[q.Query]++
	}
	lo, hi := 0, 0
	for i, q := range c.Queries {
		n := per[q.ID]
		if i == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}

func (c *Contents) cardSummary(b *bytes.Buffer) {
	names, n := c.domains()
	var parts []string
	for _, d := range names {
		parts = append(parts, fmt.Sprintf("%s %d", d, n[d]))
	}
	lo, hi := c.candidatesPerQuery()
	per := fmt.Sprint(lo)
	if hi != lo {
		per = fmt.Sprintf("%d–%d", lo, hi)
	}
	b.WriteString("## Summary\n\n")
	fmt.Fprintf(b, "%s is a reranking benchmark for mathematical information retrieval: given a problem (the query), rank the problems whose solutions help solve it. "+
		"It has %d queries (%s), each with %s candidate documents drawn from a corpus by topic and solution-summary similarity, "+
		"and %d relevance labels: real-valued ratings in [0, 5] fitted by Bradley–Terry to %d pairwise judgments of a Swiss tournament per query. "+
		"The %d documents of the candidate sets come from %s.\n\n",
		c.Meta.Name, len(c.Queries), strings.Join(parts, ", "), per, len(c.Qrels), len(c.Judgments), len(c.Corpus), strings.Join(c.origins(), ", "))
}

func (c *Contents) origins() []string {
	n := map[string]int{}
	for _, d := range c.Corpus {
		n[d.Origin]++
	}
	var out []string
	for o, k := range n {
		out = append(out, fmt.Sprintf("%s (%d)", o, k))
	}
	sort.Strings(out)
	return out
}

func (c *Contents) cardTask(b *bytes.Buffer) {
	b.WriteString("## Task and metric\n\n")
	b.WriteString("Rerank each query's candidates. The metric is nDCG@10 with **exponential gain** 2^rating − 1 over the real-valued ratings " +
		"(`data/qrels.parquet`, column `rating`), discount log2(rank + 1), the ideal ranking from the query's own candidates, ties in a system's " +
		"scores broken by document id ascending; the mean over queries, with a 95% percentile bootstrap interval over 1000 resamples of the queries. " +
		"MTEB's reranking default is linear gain on integer scores: its layout here carries the integer `level` (the rating rounded half up), " +
		"so MTEB's own nDCG@10 on it is not this benchmark's number.\n\n")
	fmt.Fprintf(b, "Text settings (query text – document text, where full is the statement, a blank line, the solution): %s; the main one is statement-full.\n\n", strings.Join(c.Settings, ", "))
}

func (c *Contents) cardStructure(b *bytes.Buffer, rows map[string]int64) {
	b.WriteString("## Structure and fields\n\n")
	b.WriteString("Each table below is a Parquet file under `data/` and a config of this card named `" + CardConfigPrefix + "<table>` (split `" + CardSplit + "`); the names without the prefix are MTEB's (see How to load).\n\n")
	for _, t := range Tables {
		fmt.Fprintf(b, "### %s\n\n`%s` (config `%s`), %d rows: %s. Key: %s.\n\n| column | type | meaning |\n|---|---|---|\n", t.Config, t.Path, t.CardConfig(), rows[t.Path], t.Doc, strings.Join(t.Key, ", "))
		for _, f := range t.Schema.Fields() {
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.Name(), ReadableType(f), strings.ReplaceAll(t.Docs[f.Name()], "|", "\\|"))
		}
		b.WriteString("\n")
	}
	b.WriteString("### Other layouts\n\n")
	for _, l := range Layouts {
		fmt.Fprintf(b, "- **%s**: %s\n", l.Name, l.Describe(c))
	}
	fmt.Fprintf(b, "- `%s` (Croissant 1.0), `%s`, `%s` (every file's SHA-256, size and rows, and what made the release), `%s` with `%s` (how to rebuild it) and `%s` (`sha256sum -c %s`).\n\n", CroissantFile, LicensesFile, ManifestFile, ReproduceFile, ReproduceConfig, SumsFile, SumsFile)
}

// cardLoad is the card's "How to load": a snippet for datasets, then
// every layout's (Layout.Load), each naming files and configs this
// release has.
func (c *Contents) cardLoad(b *bytes.Buffer) {
	main := MainSetting(c.Settings)
	b.WriteString("## How to load\n\n")
	b.WriteString("`PATH` is this folder or the dataset's id on the Hub. With 🤗 `datasets`, every table and every setting's MTEB files are configs:\n\n")
	b.WriteString("```python\nfrom datasets import load_dataset\n\n")
	fmt.Fprintf(b, "qrels = load_dataset(PATH, %q, split=%q)        # query, doc, rating in [0, 5], level\n", Tables[3].CardConfig(), CardSplit)
	fmt.Fprintf(b, "corpus = load_dataset(PATH, %q, split=%q)       # id, statement, solution, source, license, no_training\n", Tables[1].CardConfig(), CardSplit)
	fmt.Fprintf(b, "docs = load_dataset(PATH, \"%s-corpus\", split=%q)  # _id, title, text of the %s setting\n```\n\n", main, CardSplit, main)
	for _, l := range Layouts {
		if l.Load != nil {
			l.Load(c, b)
		}
	}
	b.WriteString("BEIR, MTEB and trec_eval score integer levels with linear gain; the benchmark's number is nDCG@10 with exponential gain over the real-valued ratings (`data/qrels.parquet`, `trec/ratings.tsv`): see Task and metric and `" + TRECReadme + "`.\n\n")
}

func (c *Contents) cardCreation(b *bytes.Buffer) {
	b.WriteString("## Creation\n\n")
	b.WriteString("Built by the saber pipeline (ingest → dedup → tag → summarize → pairs → calibrate → select → judge → rate → evaluate → report → audit → release): " +
		"near-duplicates removed by MinHash LSH; every document tagged with ontology topics and summarised; pairs over topic or summary thresholds found exactly; " +
		"thresholds calibrated per domain; queries and candidates drawn uniformly with a seeded order; each query's candidates judged pairwise in a Swiss tournament " +
		"and rated by Bradley–Terry.\n\n")
	for _, t := range c.Thresholds {
		if t.Scope == dataset.ScopeFinal {
			fmt.Fprintf(b, "Final thresholds: τ_topic = %g, τ_summ = %g, K = %d per category.\n\n", t.TauTopic, t.TauSumm, t.K)
		}
	}
	b.WriteString("What produced the labels:\n\n| labels | backend | model | prompt | rows |\n|---|---|---|---|--:|\n")
	for _, l := range c.Labellers {
		model := l.Model
		if model == "" {
			model = "—"
		}
		prompt := l.Prompt
		if prompt == "" {
			prompt = "—"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d |\n", l.What, l.Backend, model, prompt, l.Rows)
	}
	fmt.Fprintf(b, "\nCode version %s, seed %d, release date %s. `MANIFEST.json` lists every step back to ingest with its config values, the SHA-256 of every dataset the release was read from and of the raw sources; `%s` says how to rebuild the release byte for byte.\n\n", c.Meta.CodeVersion, c.Meta.Seed, c.Meta.Date, ReproduceFile)
}

func (c *Contents) cardAudit(b *bytes.Buffer) {
	a := c.Audit
	b.WriteString("## Leakage audit\n\n")
	fmt.Fprintf(b, "Each query's top %d documents by rating were inspected for a statement of an equivalent problem (same mathematical content up to renaming, rewording or notation; paper App. A.5) by the %s backend: "+
		"%d pairs audited, %d flagged, %d accepted by the release's config, %d without a usable answer.", a.Top, a.Backend, a.Audited, a.Flagged, a.Accepted, a.Invalid)
	if a.Flagged > 0 {
		b.WriteString(" The accepted pairs are in `data/leaks.parquet`.")
	}
	b.WriteString("\n\n")
}

// cardJudgeAudit is the judge's position audit, when the run had one.
func (c *Contents) cardJudgeAudit(b *bytes.Buffer) {
	a := c.JudgeAudit
	if len(a.Scopes) == 0 || a.Scopes[0].Comparisons == 0 {
		return
	}
	b.WriteString("## Judge position audit\n\n")
	if a.Source == "both_orders" {
		b.WriteString("Every comparison was judged in both sample orders (`judge.both_orders`); both judgments fed Bradley–Terry, so orders that disagree are a tie. ")
	} else {
		b.WriteString("A seeded sample of the comparisons was judged again with the samples swapped (`judge.position_audit`); those judgments change no rating. ")
	}
	b.WriteString("Self-consistency is the share of comparisons answered in both orders where both name the same document; first-position wins the share of verdicts for the sample shown first (0.5 without position bias); 95% Wilson intervals.\n\n")
	b.WriteString("| Scope | Comparisons | Self-consistency | First-position wins |\n| --- | ---: | --- | --- |\n")
	for _, s := range a.Scopes {
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", s.Scope, s.Comparisons, withCI(s.Consistency, s.ConsistencyLo, s.ConsistencyHi), withCI(s.FirstWins, s.FirstWinsLo, s.FirstWinsHi))
	}
	b.WriteString("\n")
}

func withCI(p, lo, hi Ratio) string {
	if math.IsNaN(float64(p)) {
		return "—"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", p, lo, hi)
}

func (c *Contents) cardResults(b *bytes.Buffer) {
	type row struct {
		name string
		v    float64
		lo   float64
		hi   float64
	}
	var rows []row
	for _, r := range c.Results {
		if r.Setting == "statement-full" && r.Gain == "exponential" && r.Scope == "overall" {
			rows = append(rows, row{r.Retriever, r.NDCG, r.Lo, r.Hi})
		}
	}
	if len(rows) == 0 {
		return
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.v, a.v), strings.Compare(a.name, b.name)) })
	b.WriteString("## Results\n\nOverall nDCG@10 (exponential gain, statement-full) of the evaluated retrievers, with 95% intervals (`data/results.parquet` has every setting and domain):\n\n| retriever | nDCG@10 | 95% interval |\n|---|--:|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %.3f | [%.3f, %.3f] |\n", r.name, r.v, r.lo, r.hi)
	}
	b.WriteString("\n")
}

// licenceRow is one source's terms in the card and LICENSES.md.
type licenceRow struct {
	Source, Origin, License string
	Docs, NoTraining        int
}

func (c *Contents) licenceRows() []licenceRow {
	by := map[[3]string]*licenceRow{}
	for _, d := range c.texts() {
		k := [3]string{d.Source, d.Origin, d.License}
		r := by[k]
		if r == nil {
			r = &licenceRow{Source: d.Source, Origin: d.Origin, License: d.License}
			by[k] = r
		}
		r.Docs++
		if d.NoTraining {
			r.NoTraining++
		}
	}
	out := make([]licenceRow, 0, len(by))
	for _, r := range by {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b licenceRow) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Origin, b.Origin), strings.Compare(a.License, b.License))
	})
	return out
}

func (c *Contents) cardLicensing(b *bytes.Buffer) {
	b.WriteString("## Licensing\n\n")
	ls := c.Licences()
	fmt.Fprintf(b, "The rows of this release carry %d licence%s: %s. ", len(ls), map[bool]string{true: "", false: "s"}[len(ls) == 1], strings.Join(ls, "; "))
	fmt.Fprintf(b, "Our own material — the ratings, judgments, topic labels, model-written summaries, thresholds, results, the built-in ontology and this card — is under %s. "+
		"Problem and solution texts stay under their sources' terms (paper App. A.8), and so does text derived from them word for word: every extractive summary keeps its document's licence. "+
		"Every text-bearing row names its terms: `license`, `source` and `no_training` in `data/corpus.parquet`, `data/queries.parquet`, `data/summaries.parquet` and `data/topics.parquet`; the %s files join to them by id. `%s` has the details.\n\n", c.Meta.License, layoutNames(), LicensesFile)
	b.WriteString("| source | origin | licence | documents | not for training |\n|---|---|---|--:|--:|\n")
	for _, r := range c.licenceRows() {
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d |\n", r.Source, r.Origin, r.License, r.Docs, r.NoTraining)
	}
	n := c.noTraining()
	switch {
	case n > 0:
		fmt.Fprintf(b, "\n**%d of the %d texts come from sources whose terms forbid training on them**: they and the %d summary and topic rows derived from them carry `no_training = true`; use them for evaluation only.\n", n, len(c.texts()), c.noTrainingDerived())
	case c.Meta.ExcludeNoTraining:
		fmt.Fprintf(b, "\nDocuments whose sources forbid training were left out (`release.exclude_no_training`), with everything derived from them: %d queries and %d documents.\n", c.Meta.Excluded.Queries, c.Meta.Excluded.Documents)
	default:
		b.WriteString("\nNo text of this release comes from a source that forbids training on it.\n")
	}
	b.WriteString("\n")
}

// noTrainingDerived counts the summaries and topic rows of documents whose
// sources forbid training.
func (c *Contents) noTrainingDerived() (n int64) {
	for _, s := range c.Summaries {
		if s.NoTraining {
			n++
		}
	}
	for _, t := range c.Topics {
		if t.NoTraining {
			n++
		}
	}
	return n
}

func (c *Contents) cardLimitations(b *bytes.Buffer) {
	b.WriteString("## Limitations\n\n")
	var offline []string
	for _, l := range c.Labellers {
		if l.Backend != "llm" {
			offline = append(offline, l.What+" ("+l.Backend+")")
		}
	}
	if len(offline) > 0 {
		fmt.Fprintf(b, "- Some labels were made by offline backends, not a language model: %s. They exercise the pipeline; they are not the paper's labels.\n", strings.Join(offline, ", "))
	}
	b.WriteString("- Relevance comes from an LLM judge's pairwise preferences, not from human annotators; ratings are relative within a query, not comparable across queries.\n" +
		"- Candidates are drawn by topic and summary similarity: documents relevant by neither signal are not in any candidate set, so the benchmark measures reranking, not recall.\n" +
		"- The leakage audit inspects each query's top-rated documents only, and its offline backend misses equivalent problems with changed numbers or vocabulary.\n\n")
}

// licenses renders LICENSES.md.
func (c *Contents) licenses() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Licences of %s %s\n\n", c.Meta.Name, c.Meta.Version)
	fmt.Fprintf(&b, "Every licence a row of this release carries: %s.\n\n", strings.Join(c.Licences(), "; "))
	fmt.Fprintf(&b, "## Our material: %s\n\nThe relevance ratings and levels (`data/qrels.parquet`, `trec/`, `beir/*/qrels/`, `mteb/*/qrels.parquet`), the judgments, topic labels (`data/topics.parquet`), summaries written by a model (`data/summaries.parquet` rows whose backend is not `%s`), thresholds, results, leakage audit, the built-in ontology, the dataset card and the metadata files are licensed under %s. A model's paraphrase keeps its document's `no_training` flag.\n\n", c.Meta.License, Extractive, c.Meta.License)
	b.WriteString("## Problem and solution texts, and text taken from them\n\nEvery problem statement and solution stays under the terms of the source it came from (paper App. A.8), and so does an extractive summary (`backend = " + Extractive + "`), made of the solution's own words. Each row of `data/corpus.parquet`, `data/queries.parquet`, `data/summaries.parquet` and `data/topics.parquet` names its licence, source and training flag; by source (each text once):\n\n")
	b.WriteString("| source | origin | licence | documents | not for training |\n|---|---|---|--:|--:|\n")
	for _, r := range c.licenceRows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d |\n", r.Source, r.Origin, r.License, r.Docs, r.NoTraining)
	}
	fmt.Fprintf(&b, "\nRows with `no_training = true` (%d) come from sources whose terms forbid training models on them: use them to evaluate only. The same texts appear in the %s layouts under the same terms.\n", c.noTraining(), layoutNames())
	return b.Bytes()
}
