package release

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/trec"
)

// A Layout is the benchmark laid out for one tool's loader beside the
// data/ tables: Build renders its files, Verify checks them, the card
// declares and describes them. Every function but Describe may be nil.
type Layout struct {
	// Name is how the card and the licences name the layout.
	Name string
	// Dir is the folder its files are under, ending in "/": Verify asks
	// the layout about every file there.
	Dir string
	// Setting renders its files of one text setting; Build calls it for
	// every setting in turn, each time for every layout in Layouts' order.
	Setting func(c *Contents, setting string) ([]File, error)
	// Release renders its files that are not per setting; Build calls it
	// after every setting's files.
	Release func(c *Contents) ([]File, error)
	// Schema is the declared schema of its Parquet file p, for Verify's
	// schema check: a Parquet file no table or layout declares is a
	// problem.
	Schema func(p string) (dataset.Info, bool)
	// Check checks its file p (bytes b, hashing as SHA256SUMS says)
	// against the tables' ids and levels, reporting through k.
	Check func(k *layoutCheck, p string, b []byte)
	// Regen names the check its file p failed when p differs from what
	// the tables give ("" for the generic "regenerated from the tables").
	Regen func(p string) string
	// CardConfigs are the card configs it declares for the settings; each
	// config's first file must be Parquet (the card's dataset_info reads
	// its schema).
	CardConfigs func(settings []string) []cardConfig
	// Describe is its item of the card's "Other layouts", after its name.
	Describe func(c *Contents) string
	// Load writes its part of the card's "How to load".
	Load func(c *Contents, b *bytes.Buffer)
}

// Layouts are the release's layouts, in the order Build renders them and
// the card lists them.
var Layouts = []Layout{beirLayout, mtebLayout, trecLayout}

// layoutOf returns the layout whose folder holds p.
func layoutOf(p string) (Layout, bool) {
	for _, l := range Layouts {
		if strings.HasPrefix(p, l.Dir) {
			return l, true
		}
	}
	return Layout{}, false
}

// layoutNames is "BEIR, MTEB and TREC": the layouts' names as a phrase.
func layoutNames() string {
	var names []string
	for _, l := range Layouts {
		names = append(names, l.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// layouts renders every layout's files: each setting's, then the rest.
func (c *Contents) layouts() ([]File, error) {
	var files []File
	for _, setting := range c.Settings {
		for _, l := range Layouts {
			if l.Setting == nil {
				continue
			}
			fs, err := l.Setting(c, setting)
			if err != nil {
				return nil, err
			}
			files = append(files, fs...)
		}
	}
	for _, l := range Layouts {
		if l.Release == nil {
			continue
		}
		fs, err := l.Release(c)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	return files, nil
}

// layoutCheck is what Verify holds the layouts' files against: the ids of
// data/queries.parquet and data/corpus.parquet and the levels of
// data/qrels.parquet. It reports a file's first difference only.
type layoutCheck struct {
	rep           *Report
	queries, docs map[string]bool
	levels        map[string]int32 // "query\tdoc" → level
}

// same reports file if its ids of what (document, query) are not want's.
func (k *layoutCheck) same(file, what string, got, want map[string]bool) {
	// In id order, so that the id reported is the same every time.
	for _, id := range sortedKeys(want) {
		if !got[id] {
			k.rep.add(file, "lacks %s %s", what, id)
			return
		}
	}
	for _, id := range sortedKeys(got) {
		if !want[id] {
			k.rep.add(file, "has %s %s, which the tables do not", what, id)
			return
		}
	}
}

// qrels reports file if its levels ("query\tdoc" → level) are not the
// tables'.
func (k *layoutCheck) qrels(file string, got map[string]int32) {
	if len(got) != len(k.levels) {
		k.rep.add(file, "%d qrels, data/qrels.parquet has %d", len(got), len(k.levels))
		return
	}
	for _, key := range sortedKeys(k.levels) {
		lv := k.levels[key]
		if g, ok := got[key]; !ok || g != lv {
			k.rep.add(file, "qrel %s: %d, data/qrels.parquet's level is %d", strings.ReplaceAll(key, "\t", " "), g, lv)
			return
		}
	}
}

// checkLayouts checks that every layout's files hold exactly the tables'
// ids and levels.
func checkLayouts(rep *Report, data map[string][]byte, queries []Query, corpus []Doc, qrels []Qrel) {
	k := &layoutCheck{rep: rep, queries: idsOf(queries, func(q Query) string { return q.ID }),
		docs: idsOf(corpus, func(d Doc) string { return d.ID }), levels: map[string]int32{}}
	for _, r := range qrels {
		k.levels[r.Query+"\t"+r.Doc] = r.Level
	}
	for _, p := range sortedKeys(data) {
		if l, ok := layoutOf(p); ok && l.Check != nil {
			l.Check(k, p, data[p])
		}
	}
}

// settingTexts are the corpus's and the queries' texts under setting,
// in table order.
func (c *Contents) settingTexts(setting string) (docs, queries []string, err error) {
	for _, d := range c.Corpus {
		_, text, err := Texts(setting, "", "", d.Statement, d.Solution)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, text)
	}
	for _, q := range c.Queries {
		text, _, err := Texts(setting, q.Statement, q.Solution, "", "")
		if err != nil {
			return nil, nil, err
		}
		queries = append(queries, text)
	}
	return docs, queries, nil
}

// BEIR: corpus, queries and qrels as BEIR's GenericDataLoader reads them,
// and the candidates to rerank, one folder per setting.
var beirLayout = Layout{
	Name: "BEIR",
	Dir:  "beir/",
	Setting: func(c *Contents, setting string) ([]File, error) {
		docs, queries, err := c.settingTexts(setting)
		if err != nil {
			return nil, err
		}
		var corpus, qs bytes.Buffer
		for i, d := range c.Corpus {
			if err := jsonLine(&corpus, beirDoc{ID: d.ID, Title: "", Text: docs[i]}); err != nil {
				return nil, err
			}
		}
		for i, q := range c.Queries {
			if err := jsonLine(&qs, beirQuery{ID: q.ID, Text: queries[i]}); err != nil {
				return nil, err
			}
		}
		var qrels bytes.Buffer
		qrels.WriteString("query-id\tcorpus-id\tscore\n")
		for _, r := range c.Qrels {
			fmt.Fprintf(&qrels, "%s\t%s\t%d\n", r.Query, r.Doc, r.Level)
		}
		// The candidates to rerank, for BEIR users: BEIR's loader reads
		// corpus, queries and qrels, and its usual evaluation ranks the
		// whole corpus (unjudged = irrelevant), which is not this
		// benchmark; reranking these lists is.
		var cb bytes.Buffer
		cb.WriteString("query-id\tcorpus-id\n")
		for _, k := range c.Candidates {
			fmt.Fprintf(&cb, "%s\t%s\n", k.Query, k.Doc)
		}
		dir := "beir/" + setting + "/"
		return []File{
			{Path: dir + "corpus.jsonl", Data: corpus.Bytes(), Rows: int64(len(c.Corpus)), Kind: KindBEIR},
			{Path: dir + "queries.jsonl", Data: qs.Bytes(), Rows: int64(len(c.Queries)), Kind: KindBEIR},
			{Path: dir + "qrels/test.tsv", Data: qrels.Bytes(), Rows: int64(len(c.Qrels)), Kind: KindBEIR},
			{Path: dir + BEIRCandidates, Data: cb.Bytes(), Rows: int64(len(c.Candidates)), Kind: KindBEIR},
		}, nil
	},
	Check: func(k *layoutCheck, p string, b []byte) {
		switch {
		case strings.HasSuffix(p, "/corpus.jsonl"):
			got, err := jsonlIDs(b)
			if err != nil {
				k.rep.add(p, "%v", err)
				return
			}
			k.same(p, "document", got, k.docs)
		case strings.HasSuffix(p, "/queries.jsonl"):
			got, err := jsonlIDs(b)
			if err != nil {
				k.rep.add(p, "%v", err)
				return
			}
			k.same(p, "query", got, k.queries)
		case strings.HasSuffix(p, "/qrels/test.tsv"):
			got, err := tsvQrels(b)
			if err != nil {
				k.rep.add(p, "%v", err)
				return
			}
			k.qrels(p, got)
		}
	},
	Regen: func(p string) string {
		switch {
		case strings.HasSuffix(p, "/corpus.jsonl"):
			return "BEIR corpus texts equal data/corpus.parquet under the setting's rule"
		case strings.HasSuffix(p, "/queries.jsonl"):
			return "BEIR query texts equal data/queries.parquet under the setting's rule"
		case strings.HasSuffix(p, "/"+BEIRCandidates):
			return "BEIR candidates equal data/candidates.parquet"
		}
		return "qrels equal the ratings of data/qrels.parquet"
	},
	Describe: func(c *Contents) string {
		return fmt.Sprintf("`beir/<setting>/corpus.jsonl` (`_id`, `title`, `text`), `queries.jsonl` (`_id`, `text`), `qrels/test.tsv` (`query-id`, `corpus-id`, integer `score` = level) and `%s` (`query-id`, `corpus-id`: the candidates to rerank), one folder per setting (%s).", BEIRCandidates, strings.Join(c.Settings, ", "))
	},
	Load: func(c *Contents, b *bytes.Buffer) {
		main := MainSetting(c.Settings)
		b.WriteString("With BEIR (`pip install beir`), one folder per setting; the benchmark reranks each query's candidates, so evaluate on `" + BEIRCandidates + "`, not on the whole corpus (BEIR's usual full-corpus evaluation counts unjudged documents as irrelevant, which is not this benchmark):\n\n")
		b.WriteString("```python\nimport csv\nfrom beir.datasets.data_loader import GenericDataLoader\n\n")
		fmt.Fprintf(b, "folder = \"beir/%s\"\n", main)
		fmt.Fprintf(b, "corpus, queries, qrels = GenericDataLoader(data_folder=folder).load(split=%q)\n", CardSplit)
		b.WriteString("candidates = {}\n")
		fmt.Fprintf(b, "with open(folder + \"/%s\") as f:\n", BEIRCandidates)
		b.WriteString("    for row in csv.DictReader(f, delimiter=\"\\t\"):\n        candidates.setdefault(row[\"query-id\"], {})[row[\"corpus-id\"]] = 0.0\n")
		b.WriteString("# rerank: results = beir.reranking.Rerank(model).rerank(corpus, queries, candidates, top_k=len(corpus))\n```\n\n")
	},
}

// MTEB: MTEB v2's reranking layout as Parquet, one folder per setting,
// which the card declares as configs its retrieval loader asks for.
var mtebLayout = Layout{
	Name: "MTEB",
	Dir:  "mteb/",
	Setting: func(c *Contents, setting string) ([]File, error) {
		docs, queries, err := c.settingTexts(setting)
		if err != nil {
			return nil, err
		}
		var mc []MTEBDoc
		for i, d := range c.Corpus {
			mc = append(mc, MTEBDoc{ID: d.ID, Title: "", Text: docs[i]})
		}
		var mq []MTEBQuery
		for i, q := range c.Queries {
			mq = append(mq, MTEBQuery{ID: q.ID, Text: queries[i]})
		}
		var mr []MTEBQrel
		for _, r := range c.Qrels {
			mr = append(mr, MTEBQrel{Query: r.Query, Doc: r.Doc, Score: r.Level})
		}
		top := map[string][]string{}
		for _, k := range c.Candidates {
			top[k.Query] = append(top[k.Query], k.Doc)
		}
		var mt []MTEBTopRanked
		for _, q := range c.Queries {
			mt = append(mt, MTEBTopRanked{Query: q.ID, Docs: top[q.ID]})
		}
		mdir := "mteb/" + setting + "/"
		var files []File
		for _, f := range []struct {
			name string
			enc  func() ([]byte, error)
			rows int
		}{
			{"corpus", func() ([]byte, error) { return dataset.Encode(mc) }, len(mc)},
			{"queries", func() ([]byte, error) { return dataset.Encode(mq) }, len(mq)},
			{"qrels", func() ([]byte, error) { return dataset.Encode(mr) }, len(mr)},
			{"top_ranked", func() ([]byte, error) { return dataset.Encode(mt) }, len(mt)},
		} {
			data, err := f.enc()
			if err != nil {
				return nil, fmt.Errorf("%s%s.parquet: %w", mdir, f.name, err)
			}
			files = append(files, File{Path: mdir + f.name + ".parquet", Data: data, Rows: int64(f.rows), Kind: KindMTEB})
		}
		return files, nil
	},
	Schema: func(p string) (dataset.Info, bool) {
		switch path.Base(p) {
		case "corpus.parquet":
			return infoOf[MTEBDoc](), true
		case "queries.parquet":
			return infoOf[MTEBQuery](), true
		case "qrels.parquet":
			return infoOf[MTEBQrel](), true
		case "top_ranked.parquet":
			return infoOf[MTEBTopRanked](), true
		}
		return dataset.Info{}, false
	},
	Check: func(k *layoutCheck, p string, b []byte) {
		switch {
		case strings.HasSuffix(p, "/corpus.parquet"):
			if rows, err := dataset.Decode[MTEBDoc](b, p); err == nil {
				k.same(p, "document", idsOf(rows, func(d MTEBDoc) string { return d.ID }), k.docs)
			}
		case strings.HasSuffix(p, "/queries.parquet"):
			if rows, err := dataset.Decode[MTEBQuery](b, p); err == nil {
				k.same(p, "query", idsOf(rows, func(q MTEBQuery) string { return q.ID }), k.queries)
			}
		case strings.HasSuffix(p, "/qrels.parquet"):
			if rows, err := dataset.Decode[MTEBQrel](b, p); err == nil {
				got := map[string]int32{}
				for _, r := range rows {
					got[r.Query+"\t"+r.Doc] = r.Score
				}
				k.qrels(p, got)
			}
		}
	},
	Regen: func(string) string { return "MTEB files equal the tables under the setting's rule" },
	// For every setting the four configs MTEB loads by subset
	// (<setting>-corpus, -queries, -qrels, -top_ranked), then the same
	// four without a subset for the main setting.
	CardConfigs: func(settings []string) []cardConfig {
		var out []cardConfig
		mteb := func(name, setting, file string) cardConfig {
			return cardConfig{Name: name, DataFiles: []cardFile{{Split: CardSplit, Path: "mteb/" + setting + "/" + file + ".parquet"}}}
		}
		for _, st := range settings {
			for _, f := range MTEBFiles {
				out = append(out, mteb(st+"-"+f, st, f))
			}
		}
		for _, f := range MTEBFiles {
			out = append(out, mteb(f, MainSetting(settings), f))
		}
		return out
	},
	Describe: func(*Contents) string {
		return "`mteb/<setting>/corpus.parquet` (`_id`, `title`, `text`), `queries.parquet` (`_id`, `text`), `qrels.parquet` (`query-id`, `corpus-id`, `score` int32) and `top_ranked.parquet` (`query-id`, `corpus-ids`: the documents to rerank), the configs `<setting>-corpus`, `<setting>-queries`, `<setting>-qrels` and `<setting>-top_ranked`."
	},
	Load: func(c *Contents, b *bytes.Buffer) {
		main := MainSetting(c.Settings)
		b.WriteString("With MTEB (v2), the settings are subsets and the configs carry the names its retrieval loader asks for (`<subset>-corpus`, `-queries`, `-qrels`, `-top_ranked`; the unprefixed ones are the " + main + " setting):\n\n")
		b.WriteString("```python\nfrom mteb.abstasks.retrieval_dataset_loaders import RetrievalDatasetLoader\n\n")
		fmt.Fprintf(b, "split = RetrievalDatasetLoader(hf_repo=PATH, revision=\"main\", split=%q, config=%q).load()\n", CardSplit, main)
		b.WriteString("# split[\"corpus\"], split[\"queries\"], split[\"relevant_docs\"] (levels), split[\"top_ranked\"] (the candidates)\n```\n\n")
	},
}

// TREC: the levels, the exact ratings, and every evaluated run, for
// trec_eval. Its README (TRECReadme) is one of the files that explain the
// release, rendered with them.
var trecLayout = Layout{
	Name: "TREC",
	Dir:  "trec/",
	Release: func(c *Contents) ([]File, error) {
		var ratings []trec.Rating
		for _, r := range c.Qrels {
			ratings = append(ratings, trec.Rating{Query: r.Query, Doc: r.Doc, Rating: r.Rating})
		}
		var qb, rb bytes.Buffer
		if err := trec.WriteQrels(&qb, ratings); err != nil {
			return nil, fmt.Errorf("trec/qrels.txt: %w", err)
		}
		if err := trec.WriteRatings(&rb, ratings); err != nil {
			return nil, fmt.Errorf("trec/ratings.tsv: %w", err)
		}
		files := []File{
			{Path: "trec/qrels.txt", Data: qb.Bytes(), Rows: int64(len(ratings)), Kind: KindTREC},
			{Path: "trec/ratings.tsv", Data: rb.Bytes(), Rows: int64(len(ratings)), Kind: KindTREC},
		}
		for _, s := range c.systems() {
			var b bytes.Buffer
			if err := trec.WriteRun(&b, trec.RankScores(c.Runs[s])); err != nil {
				return nil, fmt.Errorf("trec run %s/%s: %w", s.Retriever, s.Setting, err)
			}
			files = append(files, File{Path: "trec/runs/" + trec.RunFile(s.Retriever, s.Setting), Data: b.Bytes(), Rows: int64(len(c.Runs[s])), Kind: KindTREC})
		}
		return files, nil
	},
	Check: func(k *layoutCheck, p string, b []byte) {
		if p != "trec/qrels.txt" {
			return // runs are checked against the results (checkRuns)
		}
		qs, err := trec.ReadQrels(bytes.NewReader(b), p)
		if err != nil {
			k.rep.add(p, "%v", err)
			return
		}
		got := map[string]int32{}
		for _, q := range qs {
			got[q.Query+"\t"+q.Doc] = int32(q.Level)
		}
		k.qrels(p, got)
	},
	Regen: func(p string) string {
		switch {
		case p == "trec/qrels.txt", p == "trec/ratings.tsv":
			return "qrels equal the ratings of data/qrels.parquet"
		case strings.HasPrefix(p, "trec/runs/"):
			return "run scores are derived from ranks"
		}
		return ""
	},
	Describe: func(c *Contents) string {
		return fmt.Sprintf("`trec/qrels.txt` (levels), `trec/ratings.tsv` (the exact ratings) and `trec/runs/<retriever>.<setting>.run`, %s, with scores derived from ranks so that no run has a tie (`%s`).", c.systemsPhrase(), TRECReadme)
	},
}
