package extread

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// beirFolder writes a BEIR folder; files maps a relative path to its text.
func beirFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	goodCorpus = `{"_id": "d1", "title": "", "text": "Find $x$ if $2x = 4$."}
{"_id": "d2", "title": "Primes", "text": "Ünïcode ∑ and \"quotes\"\nand a newline"}
{"_id":"d3","title":"","text":"","extra":[1,2]}
`
	goodQueries = `{"_id": "q1", "text": "Solve for x."}
{"_id": "q2", "text": "Count primes."}
{"_id": "q3", "text": "A query with no judgments."}
`
	goodQrels = "query-id\tcorpus-id\tscore\nq1\td1\t5\nq1\td2\t0\nq2\td2\t3\nq2\td3\t-1\n"
)

func good() map[string]string {
	return map[string]string{"corpus.jsonl": goodCorpus, "queries.jsonl": goodQueries, "qrels/test.tsv": goodQrels}
}

func TestReadBEIRRoundTrip(t *testing.T) {
	files := good()
	// CRLF line ends are what Python's text mode reads as well.
	files["qrels/dev.tsv"] = strings.ReplaceAll("query-id\tcorpus-id\tscore\nq3\td1\t1\n", "\n", "\r\n")
	dir := beirFolder(t, files)
	corpus, queries, qrels, err := ReadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	wantCorpus := map[string]BEIRDoc{"d1": {Text: "Find $x$ if $2x = 4$."}, "d2": {Title: "Primes", Text: "Ünïcode ∑ and \"quotes\"\nand a newline"}, "d3": {}}
	if !reflect.DeepEqual(corpus, wantCorpus) {
		t.Errorf("corpus = %#v", corpus)
	}
	// Like the loader, only the queries the split's qrels name.
	if want := map[string]string{"q1": "Solve for x.", "q2": "Count primes."}; !reflect.DeepEqual(queries, want) {
		t.Errorf("queries = %#v", queries)
	}
	if want := map[string]map[string]int{"q1": {"d1": 5, "d2": 0}, "q2": {"d2": 3, "d3": -1}}; !reflect.DeepEqual(qrels, want) {
		t.Errorf("qrels = %#v", qrels)
	}
	_, queries, qrels, err = ReadBEIR(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(queries, map[string]string{"q3": "A query with no judgments."}) || !reflect.DeepEqual(qrels, map[string]map[string]int{"q3": {"d1": 1}}) {
		t.Errorf("dev: queries %v, qrels %v", queries, qrels)
	}
	all, err := ReadBEIRQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil || len(all) != 3 {
		t.Errorf("ReadBEIRQueries = %v, %v", all, err)
	}
}

func TestReadBEIRMalformed(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             string // in the error, after the folder
	}{
		{"corpus not json", "corpus.jsonl", goodCorpus + "{\"_id\": \"d4\", \n", "corpus.jsonl:4: not a JSON object"},
		{"corpus blank line", "corpus.jsonl", "{\"_id\": \"d1\", \"title\": \"\", \"text\": \"a\"}\n\n" + goodCorpus[strings.Index(goodCorpus, "\n")+1:], "corpus.jsonl:2: empty line"},
		{"corpus array", "corpus.jsonl", goodCorpus + "[1]\n", "corpus.jsonl:4: not a JSON object"},
		{"corpus null", "corpus.jsonl", goodCorpus + "null\n", "corpus.jsonl:4: null"},
		{"corpus no _id", "corpus.jsonl", goodCorpus + `{"title": "", "text": "x"}` + "\n", `corpus.jsonl:4: no "_id"`},
		{"corpus numeric _id", "corpus.jsonl", goodCorpus + `{"_id": 4, "title": "", "text": "x"}` + "\n", `corpus.jsonl:4: "_id" is 4, not a string`},
		{"corpus empty _id", "corpus.jsonl", goodCorpus + `{"_id": "", "title": "", "text": "x"}` + "\n", `corpus.jsonl:4: empty "_id"`},
		{"corpus no title", "corpus.jsonl", goodCorpus + `{"_id": "d4", "text": "x"}` + "\n", `corpus.jsonl:4: no "title"`},
		{"corpus null text", "corpus.jsonl", goodCorpus + `{"_id": "d4", "title": "", "text": null}` + "\n", `corpus.jsonl:4: "text" is null, not a string`},
		{"corpus duplicate", "corpus.jsonl", goodCorpus + `{"_id": "d2", "title": "", "text": "x"}` + "\n", `corpus.jsonl:4: duplicate _id "d2" (first at line 2)`},
		{"corpus not utf-8", "corpus.jsonl", goodCorpus + "{\"_id\": \"d4\", \"title\": \"\", \"text\": \"\xff\"}\n", "corpus.jsonl:4: not UTF-8"},
		{"corpus lone CR", "corpus.jsonl", goodCorpus + "{\"_id\": \"d4\",\r\"title\": \"\", \"text\": \"x\"}\n", `corpus.jsonl:4: a lone \r`},
		{"corpus BOM", "corpus.jsonl", "\ufeff" + goodCorpus, "corpus.jsonl:1: not a JSON object"},
		{"corpus empty", "corpus.jsonl", "", "corpus.jsonl: no documents"},
		{"queries no text", "queries.jsonl", goodQueries + `{"_id": "q4"}` + "\n", `queries.jsonl:4: no "text"`},
		{"queries duplicate", "queries.jsonl", goodQueries + `{"_id": "q1", "text": "again"}` + "\n", `queries.jsonl:4: duplicate _id "q1" (first at line 1)`},
		{"qrels no header", "qrels/test.tsv", "q1\td1\t5\n", `qrels/test.tsv:1: header "q1\td1\t5"`},
		{"qrels spaces", "qrels/test.tsv", "query-id corpus-id score\nq1 d1 5\n", "qrels/test.tsv:1: header"},
		{"qrels float score", "qrels/test.tsv", goodQrels + "q2\td1\t2.5\n", `qrels/test.tsv:6: score "2.5" is not an integer`},
		{"qrels two fields", "qrels/test.tsv", goodQrels + "q2\td1\n", "qrels/test.tsv:6: 2 tab-separated fields, want 3"},
		{"qrels four fields", "qrels/test.tsv", goodQrels + "q2\td1\t1\tx\n", "qrels/test.tsv:6: 4 tab-separated fields"},
		{"qrels blank line", "qrels/test.tsv", goodQrels + "\n", "qrels/test.tsv:6: empty line"},
		{"qrels quote", "qrels/test.tsv", goodQrels + "\"q2\"\td1\t1\n", `qrels/test.tsv:6: a '"'`},
		{"qrels duplicate", "qrels/test.tsv", goodQrels + "q1\td1\t4\n", "qrels/test.tsv:6: duplicate pair (q1, d1) (first at line 2)"},
		{"qrels unknown query", "qrels/test.tsv", goodQrels + "q9\td1\t1\n", `qrels/test.tsv:6: query-id "q9" is not in`},
		{"qrels unknown doc", "qrels/test.tsv", goodQrels + "q1\td9\t1\n", `qrels/test.tsv:6: corpus-id "d9" is not in`},
		{"qrels header only", "qrels/test.tsv", "query-id\tcorpus-id\tscore\n", "qrels/test.tsv: no judgments"},
		{"qrels empty", "qrels/test.tsv", "", "qrels/test.tsv: empty file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := good()
			files[c.file] = c.text
			dir := beirFolder(t, files)
			_, _, _, err := ReadBEIR(dir, "test")
			if err == nil {
				t.Fatal("read without error")
			}
			want := filepath.Join(dir, filepath.FromSlash(c.want))
			if !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v\nwant it to contain %q", err, want)
			}
			var le *LineError
			if !errors.As(err, &le) || le.File == "" {
				t.Errorf("err %v holds no *LineError", err)
			}
		})
	}
}

func TestReadBEIRMissingFiles(t *testing.T) {
	dir := beirFolder(t, map[string]string{"corpus.jsonl": goodCorpus})
	_, _, _, err := ReadBEIR(dir, "test")
	for _, f := range []string{"queries.jsonl", filepath.Join("qrels", "test.tsv")} {
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, f)+": cannot open") {
			t.Errorf("err = %v, want it to name %s", err, f)
		}
	}
	if _, _, _, err := ReadBEIR(beirFolder(t, good()), "dev"); err == nil || !strings.Contains(err.Error(), "dev.tsv: cannot open") {
		t.Errorf("missing split: err = %v", err)
	}
}

func TestReadBEIRReportsEveryLine(t *testing.T) {
	files := good()
	files["corpus.jsonl"] = goodCorpus + "x\ny\n"
	files["qrels/test.tsv"] = goodQrels + "q1\td1\n"
	_, _, _, err := ReadBEIR(beirFolder(t, files), "test")
	for _, want := range []string{"corpus.jsonl:4:", "corpus.jsonl:5:", "test.tsv:6:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %s", err, want)
		}
	}
}
