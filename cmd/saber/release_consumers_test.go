package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/saber-math/saber/artifacts/release"
	"github.com/saber-math/saber/artifacts/release/extread"
)

// These tests read the demo's release as its consumers do, with readers
// that are not ours (DuckDB, a JSON-LD processor) and loaders written from
// the formats' own documentation: MTEB v2's retrieval loader and
// datasets' configs, trec_eval's sort, Croissant's required properties.

// cardHead is the card's YAML header as the Hub and datasets read it.
type cardHead struct {
	License string `yaml:"license"`
	Configs []struct {
		Name  string `yaml:"config_name"`
		Files []struct {
			Split string `yaml:"split"`
			Path  string `yaml:"path"`
		} `yaml:"data_files"`
	} `yaml:"configs"`
	Info []struct {
		Config   string `yaml:"config_name"`
		Features []struct {
			Name     string `yaml:"name"`
			DType    string `yaml:"dtype"`
			Sequence string `yaml:"sequence"`
		} `yaml:"features"`
		Splits []struct {
			Name     string `yaml:"name"`
			Examples int64  `yaml:"num_examples"`
		} `yaml:"splits"`
	} `yaml:"dataset_info"`
}

func readCardHead(t *testing.T, rel string) cardHead {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rel, release.CardFile))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(b), "---\n", 3)
	var h cardHead
	if len(parts) != 3 || yaml.Unmarshal([]byte(parts[1]), &h) != nil {
		t.Fatalf("card header does not parse")
	}
	return h
}

// TestReleaseLoadsAsMTEBAndDatasets: MTEB v2's RetrievalDatasetLoader
// asks for the configs <subset>-corpus, <subset>-queries, <subset>-qrels
// and (when any config ends in top_ranked) <subset>-top_ranked, loads each
// config's data_files, renames _id to id and selects query-id, corpus-id,
// score (cast to int32) and query-id, corpus-ids. Done here by reading the
// card's YAML and the files with DuckDB, for every setting, and for the
// unprefixed configs MTEB uses without a subset. Our own tables' configs
// take none of those names, and every config's dataset_info lists the
// file's columns and rows.
func TestReleaseLoadsAsMTEBAndDatasets(t *testing.T) {
	_, rel := demoRelease(t)
	db := extread.NewDuckDB(t)
	h := readCardHead(t, rel)
	files := map[string]string{}
	for _, c := range h.Configs {
		if len(c.Files) != 1 || c.Files[0].Split != "test" {
			t.Fatalf("config %s: data_files %+v", c.Name, c.Files)
		}
		files[c.Name] = filepath.Join(rel, c.Files[0].Path)
	}
	sql := func(q string) []map[string]any {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rows
	}
	count := func(file string) int64 {
		return sql("SELECT count(*) AS n FROM read_parquet(" + extread.SQLString(file) + ")")[0]["n"].(int64)
	}
	queries, corpus, qrels := count(filepath.Join(rel, "data/queries.parquet")), count(filepath.Join(rel, "data/corpus.parquet")), count(filepath.Join(rel, "data/qrels.parquet"))
	for _, subset := range append(append([]string(nil), release.Settings...), "") {
		name := func(s string) string {
			if subset == "" {
				return s
			}
			return subset + "-" + s
		}
		for _, want := range []string{"corpus", "queries", "qrels", "top_ranked"} {
			if files[name(want)] == "" {
				t.Fatalf("subset %q: no config %s", subset, name(want))
			}
		}
		c := sql("SELECT CAST(_id AS VARCHAR) AS id, title, text FROM read_parquet(" + extread.SQLString(files[name("corpus")]) + ")")
		q := sql("SELECT CAST(_id AS VARCHAR) AS id, text FROM read_parquet(" + extread.SQLString(files[name("queries")]) + ")")
		r := sql(`SELECT CAST("query-id" AS VARCHAR) AS q, CAST("corpus-id" AS VARCHAR) AS d, CAST(score AS INTEGER) AS s FROM read_parquet(` + extread.SQLString(files[name("qrels")]) + ")")
		top := sql(`SELECT CAST("query-id" AS VARCHAR) AS q, len("corpus-ids") AS n FROM read_parquet(` + extread.SQLString(files[name("top_ranked")]) + ")")
		if int64(len(c)) != corpus || int64(len(q)) != queries || int64(len(r)) != qrels || int64(len(top)) != queries {
			t.Errorf("subset %q: %d docs, %d queries, %d qrels, %d top_ranked; the tables have %d, %d, %d", subset, len(c), len(q), len(r), len(top), corpus, queries, qrels)
		}
		for _, row := range c[:3] {
			if row["text"] == "" {
				t.Errorf("subset %q: empty document text %v", subset, row)
			}
		}
	}
	// Our tables: names MTEB does not take, each loading its data/ file.
	for _, tb := range release.Tables {
		n := tb.CardConfig()
		if files[n] != filepath.Join(rel, tb.Path) {
			t.Errorf("config %s loads %s, want %s", n, files[n], tb.Path)
		}
		for _, reserved := range []string{"-corpus", "-queries", "-qrels", "top_ranked", "instruction"} {
			if strings.HasSuffix(n, reserved) {
				t.Errorf("our config %s ends in MTEB's %s", n, reserved)
			}
		}
		if n == "default" || n == "query" || n == "corpus" || n == "queries" || n == "qrels" {
			t.Errorf("our config takes MTEB's name %s", n)
		}
	}
	// dataset_info: every config's features are its file's columns, in
	// order, and its split's examples the file's rows.
	if len(h.Info) != len(h.Configs) {
		t.Fatalf("%d dataset_info entries for %d configs", len(h.Info), len(h.Configs))
	}
	for _, info := range h.Info {
		cols := sql("DESCRIBE SELECT * FROM read_parquet(" + extread.SQLString(files[info.Config]) + ")")
		if len(cols) != len(info.Features) {
			t.Errorf("%s: %d features, the file has %d columns", info.Config, len(info.Features), len(cols))
			continue
		}
		for i, f := range info.Features {
			list := strings.HasSuffix(fmt.Sprint(cols[i]["column_type"]), "[]")
			if cols[i]["column_name"] != f.Name || list != (f.Sequence != "") || (f.DType == "" && f.Sequence == "") {
				t.Errorf("%s feature %d: %+v, the column is %v %v", info.Config, i, f, cols[i]["column_name"], cols[i]["column_type"])
			}
		}
		if len(info.Splits) != 1 || info.Splits[0].Examples != count(files[info.Config]) {
			t.Errorf("%s: splits %+v", info.Config, info.Splits)
		}
	}
}

// TestTRECRunsMatchResultsUnderTrecEvalsSort: every run's scores strictly
// decrease within a query, and nDCG@10 computed from the TREC files the
// way trec_eval orders a run (score descending, then docno descending),
// with the benchmark's exponential gain over trec/ratings.tsv and the
// linear one, equals data/results.parquet (read by DuckDB) to 1e-12.
func TestTRECRunsMatchResultsUnderTrecEvalsSort(t *testing.T) {
	_, rel := demoRelease(t)
	ratings := map[string]map[string]float64{}
	eachLine(t, filepath.Join(rel, "trec/ratings.tsv"), func(n int, f []string) {
		if n == 1 {
			return
		}
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatalf("ratings.tsv line %d: %v", n, err)
		}
		if ratings[f[0]] == nil {
			ratings[f[0]] = map[string]float64{}
		}
		ratings[f[0]][f[1]] = v
	})
	db := extread.NewDuckDB(t)
	results, err := db.Query("SELECT retriever, setting, gain, ndcg FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "data/results.parquet")) + ") WHERE scope = 'overall'")
	if err != nil || len(results) == 0 {
		t.Fatalf("results: %v %v", results, err)
	}
	type line struct {
		doc   string
		score float64
	}
	checked := 0
	for _, r := range results {
		file := filepath.Join(rel, "trec/runs", fmt.Sprintf("%s.%s.run", r["retriever"], r["setting"]))
		runs := map[string][]line{}
		last := map[string]float64{}
		eachLine(t, file, func(n int, f []string) {
			s, err := strconv.ParseFloat(f[4], 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
			if p, ok := last[f[0]]; ok && !(s < p) {
				t.Fatalf("%s:%d: score %v not below the previous %v of query %s", file, n, s, p, f[0])
			}
			last[f[0]] = s
			runs[f[0]] = append(runs[f[0]], line{f[2], s})
		})
		gain := func(x float64) float64 { return math.Pow(2, x) - 1 }
		if r["gain"] == "linear" {
			gain = func(x float64) float64 { return x }
		}
		sum, nq := 0.0, 0
		for q, rs := range ratings {
			ls := runs[q]
			sort.Slice(ls, func(i, j int) bool {
				if ls[i].score != ls[j].score {
					return ls[i].score > ls[j].score
				}
				return ls[i].doc > ls[j].doc
			})
			dcg := 0.0
			for i := 0; i < len(ls) && i < 10; i++ {
				dcg += gain(rs[ls[i].doc]) / math.Log2(float64(i+2))
			}
			var best []float64
			for _, v := range rs {
				best = append(best, v)
			}
			sort.Sort(sort.Reverse(sort.Float64Slice(best)))
			ideal := 0.0
			for i := 0; i < len(best) && i < 10; i++ {
				ideal += gain(best[i]) / math.Log2(float64(i+2))
			}
			if ideal > 0 {
				sum += dcg / ideal
			}
			nq++
		}
		if got := sum / float64(nq); math.Abs(got-r["ndcg"].(float64)) > 1e-12 {
			t.Errorf("%s %s: nDCG@10 from the TREC files %.15g, results %.15g", file, r["gain"], got, r["ndcg"])
		}
		checked++
	}
	t.Logf("%d results recomputed from the TREC files", checked)
}

func eachLine(t *testing.T, file string, fn func(n int, fields []string)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fn(n, strings.Fields(sc.Text()))
	}
}

// TestCroissantRequiredPropertiesByIRI: croissant.json expanded by the
// jsonld processor has, by IRI, Croissant 1.0's required dataset
// properties — name, description, license, url, creator (with a name),
// datePublished, conformsTo — and its licences include every licence a
// corpus or query row carries.
func TestCroissantRequiredPropertiesByIRI(t *testing.T) {
	_, rel := demoRelease(t)
	doc, err := extread.JSONLDExpand(t, filepath.Join(rel, release.CroissantFile))
	if err != nil {
		t.Fatal(err)
	}
	nodes, _ := doc.([]any)
	var ds map[string]any
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		if types, _ := m["@type"].([]any); len(types) > 0 && types[0] == "https://schema.org/Dataset" {
			ds = m
		}
	}
	if ds == nil {
		t.Fatalf("no https://schema.org/Dataset node in %v", nodes)
	}
	values := func(iri string) []string {
		var out []string
		vs, _ := ds[iri].([]any)
		for _, v := range vs {
			m, _ := v.(map[string]any)
			switch {
			case m["@value"] != nil:
				out = append(out, fmt.Sprint(m["@value"]))
			case m["@id"] != nil:
				out = append(out, fmt.Sprint(m["@id"]))
			default:
				names, _ := m["https://schema.org/name"].([]any)
				for _, n := range names {
					out = append(out, fmt.Sprint(n.(map[string]any)["@value"]))
				}
			}
		}
		return out
	}
	for _, iri := range []string{"https://schema.org/name", "https://schema.org/description", "https://schema.org/license", "https://schema.org/url",
		"https://schema.org/creator", "https://schema.org/datePublished", "http://purl.org/dc/terms/conformsTo"} {
		if vs := values(iri); len(vs) == 0 || vs[0] == "" {
			t.Errorf("croissant.json has no %s after expansion", iri)
		}
	}
	db := extread.NewDuckDB(t)
	rows, err := db.Query("SELECT DISTINCT license FROM (SELECT license FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "data/corpus.parquet")) +
		") UNION ALL SELECT license FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "data/queries.parquet")) + "))")
	if err != nil {
		t.Fatal(err)
	}
	licences := strings.Join(values("https://schema.org/license"), "\n")
	for _, r := range rows {
		if l := r["license"].(string); !strings.Contains(licences, l) {
			t.Errorf("licence %q of the rows is not in croissant.json's %s", l, licences)
		}
	}
	card, _ := os.ReadFile(filepath.Join(rel, release.CardFile))
	for _, r := range rows {
		if l := r["license"].(string); !strings.Contains(string(card), l) {
			t.Errorf("licence %q of the rows is not on the card", l)
		}
	}
}

// TestReleaseHoldsOnlyReleasedDocumentsWithTheirTerms: topics and
// summaries cover exactly the released documents (queries ∪ candidates),
// every text-bearing row carries source, license and no_training, and the
// demo's no_training documents reach the release flagged on their rows,
// on the card and in Croissant.
func TestReleaseHoldsOnlyReleasedDocumentsWithTheirTerms(t *testing.T) {
	_, rel := demoRelease(t)
	db := extread.NewDuckDB(t)
	file := func(p string) string { return "read_parquet(" + extread.SQLString(filepath.Join(rel, p)) + ")" }
	released := "(SELECT id FROM " + file("data/corpus.parquet") + " UNION SELECT id FROM " + file("data/queries.parquet") + ")"
	for _, tb := range []string{"data/topics.parquet", "data/summaries.parquet"} {
		rows, err := db.Query("SELECT count(*) AS n, count(*) FILTER (WHERE id NOT IN " + released + ") AS stray, count(*) FILTER (WHERE license = '' OR source = '') AS unnamed FROM " + file(tb))
		if err != nil {
			t.Fatal(err)
		}
		all, err := db.Query("SELECT count(*) AS n FROM " + released)
		if err != nil {
			t.Fatal(err)
		}
		if r := rows[0]; r["stray"] != int64(0) || r["unnamed"] != int64(0) || r["n"] != all[0]["n"] {
			t.Errorf("%s: %v rows, %v of unreleased documents, %v without source or licence; %v released documents", tb, r["n"], r["stray"], r["unnamed"], all[0]["n"])
		}
	}
	nt, err := db.Query("SELECT count(*) AS n FROM " + file("data/corpus.parquet") + " WHERE no_training")
	if err != nil || nt[0]["n"].(int64) == 0 {
		t.Fatalf("no no_training document reached the demo's release (%v, %v): the path is untested", nt, err)
	}
	flagged, err := db.Query("SELECT count(*) AS n FROM " + file("data/summaries.parquet") + " s JOIN " + file("data/corpus.parquet") + " c USING (id) WHERE c.no_training AND NOT s.no_training")
	if err != nil || flagged[0]["n"] != int64(0) {
		t.Errorf("summaries of no_training documents not flagged: %v %v", flagged, err)
	}
	card, _ := os.ReadFile(filepath.Join(rel, release.CardFile))
	cr, _ := os.ReadFile(filepath.Join(rel, release.CroissantFile))
	if !strings.Contains(string(card), "come from sources whose terms forbid training on them") || !strings.Contains(string(cr), "no_training = true") {
		t.Errorf("the no_training documents are not stated on the card or in Croissant")
	}
}

// forge rewrites every checksum of a release folder after edits, as a
// forger would: croissant.json's distribution, MANIFEST.json's files,
// SHA256SUMS.
func forge(t *testing.T, dir string) {
	t.Helper()
	sum := func(p string) (string, int64) {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		return hex.EncodeToString(h[:]), int64(len(b))
	}
	rewrite := func(p string, fn func(m map[string]any)) {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		out, _ := json.MarshalIndent(m, "", "  ")
		os.WriteFile(filepath.Join(dir, p), append(out, '\n'), 0o644)
	}
	rewrite(release.CroissantFile, func(m map[string]any) {
		for _, d := range m["distribution"].([]any) {
			o := d.(map[string]any)
			h, n := sum(o["contentUrl"].(string))
			o["sha256"], o["contentSize"] = h, fmt.Sprintf("%d B", n)
		}
	})
	rewrite(release.ManifestFile, func(m map[string]any) {
		for _, f := range m["files"].([]any) {
			o := f.(map[string]any)
			h, n := sum(o["path"].(string))
			o["sha256"], o["size"] = h, n
		}
	})
	old, _ := os.ReadFile(filepath.Join(dir, release.SumsFile))
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(string(old)), "\n") {
		p := strings.SplitN(l, "  ", 2)[1]
		h, _ := sum(p)
		fmt.Fprintf(&b, "%s  %s\n", h, p)
	}
	os.WriteFile(filepath.Join(dir, release.SumsFile), b.Bytes(), 0o644)
}

// TestReleaseVerifyCatchesForgedEdits: an edited BEIR corpus text, a run
// line naming a document that does not exist, and an edited figure of the
// card's results, each with every checksum rewritten to match: saber
// release verify exits 2 naming the file and the failed check.
func TestReleaseVerifyCatchesForgedEdits(t *testing.T) {
	_, rel := demoRelease(t)
	edit := func(p string, fn func(string) string) func(dir string) {
		return func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, p))
			os.WriteFile(filepath.Join(dir, p), []byte(fn(string(b))), 0o644)
		}
	}
	for _, tc := range []struct {
		name, file, check string
		edit              func(dir string)
	}{
		{"BEIR corpus text", "beir/statement-full/corpus.jsonl", "BEIR corpus texts", edit("beir/statement-full/corpus.jsonl", func(s string) string {
			return strings.Replace(s, `"text":"`, `"text":"Edited. `, 1)
		})},
		{"a run line naming no document", "trec/runs/bm25.statement-full.run", "check: ids", edit("trec/runs/bm25.statement-full.run", func(s string) string {
			f := strings.Fields(strings.SplitN(s, "\n", 2)[0])
			return strings.Replace(s, " "+f[2]+" ", " no-such-document ", 1)
		})},
		{"a figure of the card's results", release.CardFile, "the card's figures", edit(release.CardFile, func(s string) string {
			i := strings.Index(s, "## Results")
			j := i + strings.Index(s[i:], "| 0.")
			return s[:j] + "| 0.999" + s[j+len("| 0.xxx"):]
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			copyDir(t, rel, dir)
			tc.edit(dir)
			forge(t, dir)
			out, code := saber(t, "release", "verify", dir)
			if code != 2 || !strings.Contains(out, "FAIL  "+tc.file+":") || !strings.Contains(out, tc.check) {
				t.Errorf("exit %d, want 2 naming %s and %q:\n%s", code, tc.file, tc.check, out)
			}
		})
	}
}

// TestPublishRefusesStrayFiles: a stray object in the target version
// folder makes publish exit 2 naming it, before anything is uploaded.
func TestPublishRefusesStrayFiles(t *testing.T) {
	dir, _ := demoRelease(t)
	to := filepath.Join(t.TempDir(), "published")
	os.MkdirAll(filepath.Join(to, "0.1.0-demo"), 0o755)
	os.WriteFile(filepath.Join(to, "0.1.0-demo", "notes.txt"), []byte("left behind"), 0o644)
	out, code := saber(t, "publish", "--config", filepath.Join(dir, "run.yaml"), "--to", to)
	if code != 2 || !strings.Contains(out, "notes.txt") {
		t.Errorf("publish beside a stray file: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(to, "0.1.0-demo", release.SumsFile)); err == nil {
		t.Error("publish wrote the checksums beside a stray file")
	}
}

// TestReproduceRebuildsTheRelease: REPRODUCE.md's commands, run on the
// demo's raw inputs in a fresh folder with the release's
// reproduce/run.yaml, rebuild a release whose SHA256SUMS is byte for byte
// the demo's; MANIFEST.json lists rows for every table (0 included) and
// each step's config values.
func TestReproduceRebuildsTheRelease(t *testing.T) {
	demo, rel := demoRelease(t)
	var man release.Manifest
	b, _ := os.ReadFile(filepath.Join(rel, release.ManifestFile))
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	for _, f := range man.Files {
		if strings.HasSuffix(f.Path, ".parquet") && f.Rows == nil {
			t.Errorf("MANIFEST.json: %s has no rows", f.Path)
		}
	}
	if len(man.Upstream) == 0 || len(man.Sources) == 0 || len(man.Datasets) == 0 {
		t.Fatalf("MANIFEST.json: %d steps, %d sources, %d datasets", len(man.Upstream), len(man.Sources), len(man.Datasets))
	}
	stages := map[string]bool{}
	for _, p := range man.Upstream {
		stages[p.Stage] = true
		if len(p.Config) == 0 {
			t.Errorf("MANIFEST.json: step %s %s has no config values", p.Stage, p.Step)
		}
	}
	if !stages["ingest"] || !stages["judge"] {
		t.Errorf("MANIFEST.json's steps do not reach back to ingest: %v", stages)
	}
	readme, _ := os.ReadFile(filepath.Join(rel, release.ReproduceFile))
	fresh := filepath.Join(t.TempDir(), "rebuild")
	for _, s := range man.Sources {
		if !strings.Contains(string(readme), s.SHA256) {
			t.Errorf("REPRODUCE.md does not list %s", s.Name)
		}
		// Each raw file says which stage read it, so that a rebuilder
		// knows the key it goes under: the demo's inputs are ingest's,
		// its plan.json report's (report.plan).
		want := "ingest"
		if s.Name == "plan.json" {
			want = "report"
		}
		if !slices.Equal(s.ReadBy, []string{want}) {
			t.Errorf("MANIFEST.json: %s read by %v, want [%s]", s.Name, s.ReadBy, want)
		}
		if row := fmt.Sprintf("| `%s` | %s | %d |", s.Name, want, s.Size); !strings.Contains(string(readme), row) {
			t.Errorf("REPRODUCE.md has no row %q", row)
		}
		src := filepath.Join(demo, s.Name)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatalf("raw source %s: %v", s.Name, err)
		}
		if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != s.SHA256 {
			t.Errorf("raw source %s: SHA-256 differs from MANIFEST.json's", s.Name)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(fresh, s.Name)), 0o755)
		os.WriteFile(filepath.Join(fresh, s.Name), data, 0o644)
	}
	conf, _ := os.ReadFile(filepath.Join(rel, release.ReproduceConfig))
	os.WriteFile(filepath.Join(fresh, "run.yaml"), conf, 0o644)
	// The command as REPRODUCE.md gives it, with rebuild/ where it is here.
	var args []string
	for _, l := range strings.Split(string(readme), "\n") {
		if rest, ok := strings.CutPrefix(l, "bin/saber run "); ok {
			args = append([]string{"run"}, strings.Fields(strings.ReplaceAll(rest, "rebuild/", fresh+"/"))...)
		}
	}
	if len(args) == 0 {
		t.Fatalf("REPRODUCE.md gives no bin/saber run command:\n%s", readme)
	}
	if out, code := saber(t, args...); code != 0 {
		t.Fatalf("rebuild (saber %s): exit %d\n%s", strings.Join(args, " "), code, out)
	}
	want, _ := os.ReadFile(filepath.Join(rel, release.SumsFile))
	got, err := os.ReadFile(filepath.Join(fresh, "data", "demo", "release", "0.1.0-demo", release.SumsFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("the rebuilt release differs (%v):\n%s", err, diffLines(string(want), string(got)))
	}
}

func diffLines(a, b string) string {
	in := map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		in[l] = true
	}
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !in[l] {
			out = append(out, "only in the release: "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestDemoReleaseExcludesNoTraining: on a copy of the demo, setting
// release.exclude_no_training reruns the release alone, and the new
// release holds no row of a no_training document (nor its summaries,
// topics, candidates, qrels or run lines), says so on the card, and
// verifies.
func TestDemoReleaseExcludesNoTraining(t *testing.T) {
	demo, _ := demoRelease(t)
	dir := filepath.Join(t.TempDir(), "demo")
	copyDir(t, demo, dir)
	cfg := filepath.Join(dir, "run.yaml")
	b, _ := os.ReadFile(cfg)
	conf := strings.Replace(string(b), "release:\n", "release:\n  exclude_no_training: true\n", 1)
	os.WriteFile(cfg, []byte(conf), 0o644)
	out, code := saber(t, "run", "--config", cfg, "--rerun-stale")
	if code != 0 || !strings.Contains(out, "release reduce: 1 of 1 shards to run") || !strings.Contains(out, "ingest map: 0 of") {
		t.Fatalf("rerun with exclude_no_training: exit %d\n%s", code, out)
	}
	rel := filepath.Join(dir, "data", "demo", "release", "0.1.0-demo")
	if out, code := saber(t, "release", "verify", rel); code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	db := extread.NewDuckDB(t)
	for _, tb := range []string{"corpus", "queries", "summaries", "topics"} {
		rows, err := db.Query("SELECT count(*) FILTER (WHERE no_training) AS n, count(*) AS all FROM read_parquet(" + extread.SQLString(filepath.Join(rel, "data", tb+".parquet")) + ")")
		if err != nil || rows[0]["n"] != int64(0) || rows[0]["all"] == int64(0) {
			t.Errorf("%s: %v no_training rows (%v)", tb, rows, err)
		}
	}
	var man release.Manifest
	mb, _ := os.ReadFile(filepath.Join(rel, release.ManifestFile))
	json.Unmarshal(mb, &man)
	if !man.ExcludeNoTraining || man.Excluded.Documents == 0 {
		t.Errorf("MANIFEST.json: exclude_no_training %v, excluded %+v", man.ExcludeNoTraining, man.Excluded)
	}
	card, _ := os.ReadFile(filepath.Join(rel, release.CardFile))
	if !strings.Contains(string(card), "were left out (`release.exclude_no_training`)") {
		t.Error("the card does not say the no_training documents were left out")
	}
}
