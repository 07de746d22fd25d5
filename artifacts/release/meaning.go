package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/trec"
	"github.com/saber-math/saber/lib/ndcg"
)

// The checks of what a release means, beyond its bytes: every id of every
// run names a query and one of its candidates, no run has a tie, the
// results are the runs' nDCG@10, and every file that is derived from the
// tables (BEIR, MTEB, TREC, the card, Croissant, the licences, the
// manifest) is what the tables give. The last is done by rebuilding the
// release from its own tables, runs and MANIFEST.json and comparing the
// bytes: one source per fact, so an edited text, count or licence
// anywhere fails, naming the file, the line and the check.

// resultsTolerance is how far a result may be from the runs' nDCG@10:
// the report sums in another order than this check.
const resultsTolerance = 1e-9

// tables are a release's data/ tables, decoded once for every check;
// have names those that decoded (the others are reported missing,
// changed or corrupt).
type tables struct {
	queries    []Query
	corpus     []Doc
	candidates []Candidate
	qrels      []Qrel
	judgments  []Judgment
	topics     []Topic
	summaries  []Summary
	nodes      []OntologyNode
	edges      []OntologyEdge
	tree       []OntologyTreeNode
	thresholds []Threshold
	results    []Result
	leaks      []Leak
	have       map[string]bool
}

// all reports whether every table decoded.
func (t *tables) all() bool { return len(t.have) == len(Tables) }

// decodeTables decodes every data/ table that is there and intact.
func decodeTables(rep *Report, data map[string][]byte) *tables {
	t := &tables{have: map[string]bool{}}
	t.queries = decodeTable[Query](rep, data, "queries", t.have)
	t.corpus = decodeTable[Doc](rep, data, "corpus", t.have)
	t.candidates = decodeTable[Candidate](rep, data, "candidates", t.have)
	t.qrels = decodeTable[Qrel](rep, data, "qrels", t.have)
	t.judgments = decodeTable[Judgment](rep, data, "judgments", t.have)
	t.topics = decodeTable[Topic](rep, data, "topics", t.have)
	t.summaries = decodeTable[Summary](rep, data, "summaries", t.have)
	t.nodes = decodeTable[OntologyNode](rep, data, "ontology_nodes", t.have)
	t.edges = decodeTable[OntologyEdge](rep, data, "ontology_edges", t.have)
	t.tree = decodeTable[OntologyTreeNode](rep, data, "ontology_tree", t.have)
	t.thresholds = decodeTable[Threshold](rep, data, "thresholds", t.have)
	t.results = decodeTable[Result](rep, data, "results", t.have)
	t.leaks = decodeTable[Leak](rep, data, "leaks", t.have)
	return t
}

func checkMeaning(rep *Report, data map[string][]byte, t *tables) {
	if !t.all() {
		return
	}
	runs, runsOK := checkRuns(rep, data, t)
	if runsOK {
		checkResults(rep, t, runs)
	}
	b, ok := data[ManifestFile]
	if !ok || !runsOK {
		return
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return // reported by checkManifest
	}
	conf, ok := data[ReproduceConfig]
	if !ok {
		rep.add(ReproduceConfig, "missing: the config that REPRODUCE.md rebuilds the release with")
		return
	}
	c := contentsOf(&m, t, runs, conf)
	files, err := Build(c)
	if err != nil {
		rep.add(ManifestFile, "the release's own tables and manifest do not build a release: %v", err)
		return
	}
	// Croissant and the manifest hold every other file's hash: they are
	// compared only when every other file is what the tables give, so that
	// one edited file is reported once, by its own name.
	differ := false
	pass := func(p string) int {
		switch p {
		case CroissantFile:
			return 1
		case ManifestFile:
			return 2
		}
		return 0
	}
	for n := range 3 {
		for _, f := range files {
			if f.Path == SumsFile || pass(f.Path) != n || (n > 0 && differ) {
				continue
			}
			got, ok := data[f.Path]
			if !ok {
				if !rep.bad[f.Path] {
					rep.add(f.Path, "missing: the tables give this file (check: regenerated from the tables)")
				}
				differ = true
				continue
			}
			if !bytes.Equal(got, f.Data) {
				rep.add(f.Path, "%s (check: %s)", firstDifference(f.Path, got, f.Data), regenCheck(f.Path))
				differ = true
			}
		}
	}
}

// contentsOf rebuilds the contents a release was built from out of its
// tables, runs and MANIFEST.json.
func contentsOf(m *Manifest, t *tables, runs map[System][]trec.RunLine, conf []byte) *Contents {
	return &Contents{
		Meta: Meta{Name: m.Name, Version: m.Version, Date: m.Date, License: m.License, Homepage: m.Homepage, Creators: m.Creators,
			Citation: m.Citation, CodeVersion: m.CodeVersion, ConfigHash: m.ConfigHash, Seed: m.Seed,
			ExcludeNoTraining: m.ExcludeNoTraining, Excluded: m.Excluded, Upstream: m.Upstream, Datasets: m.Datasets,
			Sources: m.Sources, Config: conf},
		Queries: t.queries, Corpus: t.corpus, Candidates: t.candidates, Qrels: t.qrels, Judgments: t.judgments,
		Topics: t.topics, Summaries: t.summaries, Nodes: t.nodes, Edges: t.edges, Tree: t.tree,
		Thresholds: t.thresholds, Results: t.results, Leaks: t.leaks, Runs: runs,
		Settings: m.Settings, Domains: m.Domains, Labellers: m.Labellers,
		Audit: Audit{Backend: m.Audit.Backend, Top: m.Audit.Top, Audited: m.Audit.Audited, Flagged: m.Audit.Flagged,
			Accepted: m.Audit.Accepted, Invalid: m.Audit.Invalid},
		JudgeAudit: m.JudgeAudit,
	}
}

// regenCheck names the check a regenerated file failed.
func regenCheck(p string) string {
	if l, ok := layoutOf(p); ok && l.Regen != nil {
		if s := l.Regen(p); s != "" {
			return s
		}
	}
	switch {
	case p == CardFile:
		return "the card's figures regenerated from the tables"
	case p == CroissantFile:
		return "Croissant's licences, files and fields regenerated from the tables"
	case p == LicensesFile:
		return "licences regenerated from the rows"
	case p == "data/topics.parquet", p == "data/summaries.parquet":
		return "source, license and no_training follow the document and how the text was made"
	case strings.HasPrefix(p, "data/"):
		return "the table as the release writes it"
	}
	return "regenerated from the tables"
}

// firstDifference says where a file's bytes first depart from what the
// tables give: a line of a text file, a row of a Parquet table.
func firstDifference(p string, got, want []byte) string {
	if strings.HasSuffix(p, ".parquet") {
		return parquetDifference(p, got, want)
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, the tables give %q", i+1, trim(gl), trim(wl))
		}
	}
	return "differs from what the tables give"
}

// parquetDifference compares a Parquet file with the one the tables give
// row by row, naming the first row and column that differ.
func parquetDifference(p string, got, want []byte) string {
	g, cols, gerr := parquetRows(got)
	w, _, werr := parquetRows(want)
	if gerr != nil || werr != nil {
		return "differs from what the tables give"
	}
	if len(g) != len(w) {
		return fmt.Sprintf("%d rows, the tables give %d", len(g), len(w))
	}
	for i := range g {
		for j := 0; j < max(len(g[i]), len(w[i])); j++ {
			var gv, wv, col string
			if j < len(g[i]) {
				gv, col = g[i][j].String(), cols[g[i][j].Column()]
			}
			if j < len(w[i]) {
				wv, col = w[i][j].String(), cols[w[i][j].Column()]
			}
			if gv != wv {
				return fmt.Sprintf("row %d, column %s is %q, the tables give %q", i+1, col, trim(gv), trim(wv))
			}
		}
	}
	return "same rows, other bytes: not written as the release writes it"
}

// parquetRows reads every row of a Parquet file, with the column names.
func parquetRows(b []byte) ([]parquet.Row, []string, error) {
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, nil, err
	}
	var cols []string
	for _, c := range f.Schema().Columns() {
		cols = append(cols, strings.Join(c, "."))
	}
	r := parquet.NewReader(f)
	defer r.Close()
	var rows []parquet.Row
	for {
		row := make([]parquet.Row, 1)
		n, err := r.ReadRows(row)
		if n == 1 {
			rows = append(rows, row[0].Clone())
		}
		if err == io.EOF {
			return rows, cols, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// checkRuns reads every TREC run: each line's query is a query and its
// document one of that query's candidates, the tag names the file's
// system, and ranks run 1, 2, … with strictly decreasing scores.
func checkRuns(rep *Report, data map[string][]byte, t *tables) (map[System][]trec.RunLine, bool) {
	queries := idsOf(t.queries, func(q Query) string { return q.ID })
	cand := map[string]bool{}
	for _, k := range t.candidates {
		cand[k.Query+"\t"+k.Doc] = true
	}
	runs := map[System][]trec.RunLine{}
	ok := true
	for _, p := range sortedKeys(data) {
		if !strings.HasPrefix(p, "trec/runs/") {
			continue
		}
		lines, err := trec.ReadRun(bytes.NewReader(data[p]), p)
		if err != nil {
			rep.corrupt(p, err)
			ok = false
			continue
		}
		if len(lines) == 0 {
			rep.add(p, "no lines")
			ok = false
			continue
		}
		sys, good := runSystem(lines[0].Tag)
		if !good || trec.RunFile(sys.Retriever, sys.Setting) != path.Base(p) {
			rep.add(p, "line 1: tag %q does not name this file's system (<retriever>/<setting> of %s) (check: ids)", lines[0].Tag, path.Base(p))
			ok = false
			continue
		}
		if err := trec.CheckStrict(lines); err != nil {
			rep.add(p, "%v (check: no ties in a run)", err)
			ok = false
		}
		for _, l := range lines {
			switch {
			case l.Tag != lines[0].Tag:
				rep.add(p, "line %d: tag %q, the file's is %q (check: ids)", l.Line, l.Tag, lines[0].Tag)
			case !queries[l.Query]:
				rep.add(p, "line %d: query %s is not in data/queries.parquet (check: ids)", l.Line, l.Query)
			case !cand[l.Query+"\t"+l.Doc]:
				rep.add(p, "line %d: document %s is not a candidate of query %s in data/candidates.parquet (check: ids)", l.Line, l.Doc, l.Query)
			default:
				continue
			}
			ok = false
			break
		}
		runs[sys] = lines
	}
	return runs, ok
}

// runSystem is the system a run line's tag names (trec.RunTag).
func runSystem(tag string) (System, bool) {
	r, s, ok := strings.Cut(tag, "/")
	return System{Retriever: r, Setting: s}, ok && r != "" && s != ""
}

// Scorer computes a release's nDCG@10 from its runs and ratings, the
// same way for release verify (checking the results) and for the release
// stage (recomputing them when exclude_no_training leaves rows out).
type Scorer struct {
	queries []Query
	rating  map[string]float64   // by query "\t" doc
	ratings map[string][]float64 // a query's ratings, for its ideal DCG
}

// NewScorer indexes the ratings of qrels for the queries.
func NewScorer(queries []Query, qrels []Qrel) *Scorer {
	s := &Scorer{queries: queries, rating: make(map[string]float64, len(qrels)), ratings: map[string][]float64{}}
	for _, r := range qrels {
		s.rating[r.Query+"\t"+r.Doc] = r.Rating
		s.ratings[r.Query] = append(s.ratings[r.Query], r.Rating)
	}
	return s
}

// PerQuery is nDCG@10 of a run's lines (in rank order) for each query in
// scope — dataset.ScopeOverall, or a domain matched case-insensitively —
// in the queries' order: 0 for a query whose ideal DCG is 0.
func (s *Scorer) PerQuery(lines []trec.RunLine, g ndcg.Gain, scope string) []float64 {
	ranked := map[string][]float64{}
	for _, l := range lines {
		ranked[l.Query] = append(ranked[l.Query], s.rating[l.Query+"\t"+l.Doc])
	}
	var vals []float64
	for _, q := range s.queries {
		if scope != dataset.ScopeOverall && !strings.EqualFold(q.Domain, scope) {
			continue
		}
		v := 0.0
		if ideal := ndcg.IdealDCG(s.ratings[q.ID], ndcg.DefaultK, g); ideal > 0 {
			v = ndcg.DCG(ranked[q.ID], ndcg.DefaultK, g) / ideal
		}
		vals = append(vals, v)
	}
	return vals
}

// checkResults recomputes every result of data/results.parquet from the
// runs and ratings: nDCG@10 of each query by the run's ranks, the mean
// over all queries and over each domain's.
func checkResults(rep *Report, t *tables, runs map[System][]trec.RunLine) {
	sc := NewScorer(t.queries, t.qrels)
	for _, res := range t.results {
		lines, ok := runs[System{Retriever: res.Retriever, Setting: res.Setting}]
		if !ok {
			rep.add("data/results.parquet", "%s/%s: no run trec/runs/%s (check: results)", res.Retriever, res.Setting, trec.RunFile(res.Retriever, res.Setting))
			continue
		}
		g, err := ndcg.ParseGain(res.Gain)
		if err != nil {
			rep.add("data/results.parquet", "%s/%s: %v (check: results)", res.Retriever, res.Setting, err)
			continue
		}
		vals := sc.PerQuery(lines, g, res.Scope)
		mean, err := ndcg.Mean(vals)
		switch {
		case err != nil:
			rep.add("data/results.parquet", "%s/%s %s %s: no query in scope (check: results)", res.Retriever, res.Setting, res.Gain, res.Scope)
		case int(res.Queries) != len(vals):
			rep.add("data/results.parquet", "%s/%s %s %s: %d queries, the scope has %d (check: results)", res.Retriever, res.Setting, res.Gain, res.Scope, res.Queries, len(vals))
		case math.Abs(mean-res.NDCG) > resultsTolerance:
			rep.add("data/results.parquet", "%s/%s %s %s: nDCG@10 %.12g, the run %s gives %.12g (check: results)", res.Retriever, res.Setting, res.Gain, res.Scope, res.NDCG, trec.RunFile(res.Retriever, res.Setting), mean)
		}
	}
}
