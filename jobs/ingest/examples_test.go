package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/saber-math/saber/jobs/config"
)

// exampleIn copies examples/<name> into a temp dir, writes files beside it
// (paths relative to it, as the example's are), and loads it with the
// real config loader. (jobs/pipeline's TestExamplesParse loads every
// example with every stage's section.)
func exampleIn(t *testing.T, name string, files map[string][]byte) *config.Config {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files[name] = body
	for p, b := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(filepath.Join(dir, name), Section)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cfg
}

// TestCompetitionJSONExample is the first bar: a JSON array file of
// 1,500 rows with list-valued solutions, integer ids and nested fields
// loads with examples/competition-json.yaml and no conversion script; its
// filter drops the sentinel rows (answer "NONE", no solutions) and counts
// them, per source, in the stats saber stats sums.
func TestCompetitionJSONExample(t *testing.T) {
	rows := make([]map[string]any, 1500)
	var sentinel int64
	for i := range rows {
		id := i + 1
		answer, sols := any(fmt.Sprint(id*3)), []string{fmt.Sprintf("By symmetry, %d.", id), "By coordinates."}
		switch {
		case id%7 == 0:
			answer = "NONE"
			sentinel++
		case id%11 == 0:
			sols = []string{}
			sentinel++
		case id%13 == 0:
			answer = id * 3 // a number, not a sentinel
		}
		rows[i] = map[string]any{
			"id":        id,
			"content":   map[string]any{"problem": fmt.Sprintf("Problem %d: find the area.", id), "answer": answer, "topic": "Geometry"},
			"meta":      map[string]any{"contest": fmt.Sprintf("AIME %d", 1983+id%40)},
			"solutions": sols,
		}
	}
	body, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	cfg := exampleIn(t, "competition-json.yaml", map[string][]byte{"data/competition/aime.json": body})
	probs, rejs, err := runShards(t, cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1500 - int(sentinel); len(probs) != want || len(rejs) != 0 {
		t.Fatalf("%d problems, %d rejects (%+v); want %d and none", len(probs), len(rejs), rejs[:min(3, len(rejs))], want)
	}
	byID := map[string]int{}
	for i, p := range probs {
		byID[p.ID] = i
	}
	p := probs[byID["comp/26"]]
	if p.Statement != "Problem 26: find the area." || p.Solution != "By symmetry, 26.\n\n---\n\nBy coordinates." || p.Subject != "Geometry" || p.Origin != "AIME 2009" {
		t.Errorf("comp/26: %+v", p)
	}
	for _, gone := range []string{"comp/7", "comp/11", "comp/1498"} {
		if _, ok := byID[gone]; ok {
			t.Errorf("%s is a sentinel row, but was kept", gone)
		}
	}
	st := summedStats(t, cfg)
	if st["filtered"] != sentinel || st["source_competition_filtered"] != sentinel ||
		st["source_competition_accepted"] != 1500-sentinel || st["source_competition_rejected"] != 0 {
		t.Errorf("stats %v; want %d filtered", st, sentinel)
	}
}

// TestNuminaParquetExample: examples/numina-parquet.yaml reads a
// NuminaMath-1.5-style Parquet file, filtering proof problems and sentinel
// answers, and appends the answer to each solution.
func TestNuminaParquetExample(t *testing.T) {
	type numina struct {
		Problem      string `parquet:"problem"`
		Solution     string `parquet:"solution"`
		Answer       string `parquet:"answer"`
		ProblemType  string `parquet:"problem_type"`
		QuestionType string `parquet:"question_type"`
		Source       string `parquet:"source"`
	}
	var rows []numina
	var kept int
	for i := range 400 {
		r := numina{fmt.Sprintf("Problem %d.", i), fmt.Sprintf("Solution %d.", i), fmt.Sprint(i), "Inequalities", "math-word-problem", "olympiads"}
		if i%7 == 3 { // every subject_map key is some row's subject, or ingest stops
			r.ProblemType = "Calculus"
		}
		switch {
		case i%5 == 0:
			r.Answer, r.QuestionType = "proof", "proof"
		case i%9 == 0:
			r.Answer = "notfound"
		case i%17 == 0:
			r.QuestionType = "proof" // a proof with an answer column filled
		default:
			kept++
		}
		rows = append(rows, r)
	}
	var pq bytes.Buffer
	if err := parquet.Write(&pq, rows); err != nil {
		t.Fatal(err)
	}
	cfg := exampleIn(t, "numina-parquet.yaml", map[string][]byte{"data/numina/train-00000.parquet": pq.Bytes()})
	probs, rejs, err := runShards(t, cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != kept || len(rejs) != 0 {
		t.Fatalf("%d problems, %d rejects; want %d and none", len(probs), len(rejs), kept)
	}
	for _, p := range probs {
		n := strings.TrimSuffix(strings.TrimPrefix(p.Statement, "Problem "), ".")
		i, _ := strconv.Atoi(n)
		subject := "Algebra"
		if i%7 == 3 {
			subject = "Calculus and Analysis"
		}
		if p.Solution != "Solution "+n+".\n\nFinal answer: "+n || p.Subject != subject || p.Origin != "olympiads" || p.Source != "numina" || len(p.ID) != 16 { // no id column: content-hash ids
			t.Fatalf("%+v", p)
		}
	}
	if st := summedStats(t, cfg); st["source_numina_filtered"] != int64(400-kept) || st["source_numina_accepted"] != int64(kept) {
		t.Errorf("stats %v", st)
	}
}
