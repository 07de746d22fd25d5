package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
)

// resum rewrites every checksum of a release after edits, as a forger
// would: the edited files' entries in croissant.json, then MANIFEST.json,
// then SHA256SUMS. What is left for Verify to catch is the meaning.
func resum(t *testing.T, files []File, edited map[string][]byte) []File {
	t.Helper()
	by := map[string][]byte{}
	var order []string
	for _, f := range files {
		by[f.Path] = f.Data
		order = append(order, f.Path)
	}
	for p, b := range edited {
		by[p] = b
	}
	var cr Croissant
	if err := json.Unmarshal(by[CroissantFile], &cr); err != nil {
		t.Fatal(err)
	}
	for i, d := range cr.Distribution {
		cr.Distribution[i].SHA256, cr.Distribution[i].ContentSize = hexSHA(by[d.ContentURL]), fmt.Sprintf("%d B", len(by[d.ContentURL]))
	}
	b, _ := json.MarshalIndent(cr, "", "  ")
	by[CroissantFile] = append(b, '\n')
	var m Manifest
	if err := json.Unmarshal(by[ManifestFile], &m); err != nil {
		t.Fatal(err)
	}
	for i, e := range m.Files {
		m.Files[i].SHA256, m.Files[i].Size = hexSHA(by[e.Path]), int64(len(by[e.Path]))
		if n, ok := countRows(e.Path, by[e.Path]); ok && n >= 0 {
			m.Files[i].Rows = &n
		}
	}
	b, _ = json.MarshalIndent(m, "", "  ")
	by[ManifestFile] = append(b, '\n')
	var out []File
	for _, p := range order {
		if p != SumsFile {
			out = append(out, File{Path: p, Data: by[p]})
		}
	}
	return append(out, File{Path: SumsFile, Data: Sums(out)})
}

func fileOf(files []File, p string) []byte {
	for _, f := range files {
		if f.Path == p {
			return f.Data
		}
	}
	return nil
}

// TestVerifyChecksMeaning: each edit below, with every checksum rewritten
// to match, fails verify naming the edited file and the failed check.
func TestVerifyChecksMeaning(t *testing.T) {
	files := build(t, sample())
	replace := func(p, old, new string) map[string][]byte {
		b := fileOf(files, p)
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s has no %q", p, old)
		}
		return map[string][]byte{p: bytes.Replace(b, []byte(old), []byte(new), 1)}
	}
	recode := func(p string, edit func([]Qrel) []Qrel) map[string][]byte {
		rows, err := dataset.Decode[Qrel](fileOf(files, p), p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := dataset.Encode(edit(rows))
		return map[string][]byte{p: b}
	}
	topics := func() map[string][]byte {
		rows, _ := dataset.Decode[Topic](fileOf(files, "data/topics.parquet"), "topics")
		rows[0].License = "CC0-1.0"
		b, _ := dataset.Encode(rows)
		return map[string][]byte{"data/topics.parquet": b}
	}
	for _, tc := range []struct {
		name, file, check string
		edit              map[string][]byte
	}{
		{"BEIR corpus text", "beir/statement-full/corpus.jsonl", "BEIR corpus texts equal data/corpus.parquet",
			replace("beir/statement-full/corpus.jsonl", "Solve $2x=4$.", "Solve $2x=5$.")},
		{"a run naming a document that does not exist", "trec/runs/bm25.statement-full.run", "check: ids",
			replace("trec/runs/bm25.statement-full.run", "q1 Q0 d3 ", "q1 Q0 d9 ")},
		{"a tie in a run", "trec/runs/bm25.statement-full.run", "no ties",
			replace("trec/runs/bm25.statement-full.run", "q1 Q0 d2 2 2 ", "q1 Q0 d2 2 3 ")},
		{"a number in the card's results", CardFile, "the card's figures",
			replace(CardFile, fmt.Sprintf("| bm25 | %.3f |", sample().Results[0].NDCG), "| bm25 | 0.999 |")},
		{"a count in the card", CardFile, "the card's figures", replace(CardFile, "It has 2 queries", "It has 3 queries")},
		{"a level in the TREC qrels", "trec/qrels.txt", "qrels equal the ratings", replace("trec/qrels.txt", "q1 0 d3 5", "q1 0 d3 4")},
		{"a result", "data/results.parquet", "check: results", func() map[string][]byte {
			rows, _ := dataset.Decode[Result](fileOf(files, "data/results.parquet"), "results")
			rows[0].NDCG = 0.5
			b, _ := dataset.Encode(rows)
			return map[string][]byte{"data/results.parquet": b}
		}()},
		{"a topic row's licence", "data/topics.parquet", "source, license and no_training", topics()},
		{"a rating whose level is wrong", "data/qrels.parquet", "rounds to", recode("data/qrels.parquet", func(r []Qrel) []Qrel { r[0].Level = 3; return r })},
		{"a licence left out of Croissant", CroissantFile, "Croissant's licences", replace(CroissantFile, `"AoPS terms",`, ``)},
		{"no creator in Croissant", CroissantFile, "creator", replace(CroissantFile, `"name": "A. Author"`, `"name": ""`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := verify(t, write(t, resum(t, files, tc.edit)))
			found := false
			for _, p := range rep.Problems {
				found = found || p.File == tc.file && strings.Contains(p.Msg, tc.check)
			}
			if !found {
				t.Errorf("want a problem of %s naming %q, got %v", tc.file, tc.check, rep.Problems)
			}
		})
	}
}

// TestVerifyReportsACorruptFileOnce: a Parquet file that does not decode,
// its checksums rewritten to match, is one problem: corrupt, not missing.
func TestVerifyReportsACorruptFileOnce(t *testing.T) {
	files := build(t, sample())
	rep := verify(t, write(t, resum(t, files, map[string][]byte{"data/qrels.parquet": []byte("PAR1 not really PAR1")})))
	n := 0
	for _, p := range rep.Problems {
		if p.File == "data/qrels.parquet" {
			n++
			if !strings.Contains(p.Msg, "corrupt") {
				t.Errorf("problem %q does not say corrupt", p.Msg)
			}
		}
		if strings.Contains(p.Msg, "missing") {
			t.Errorf("reported missing: %v", p)
		}
	}
	if n != 1 {
		t.Errorf("data/qrels.parquet reported %d times: %v", n, rep.Problems)
	}
	// Changed bytes (checksums not rewritten): once, as changed.
	b := append([]byte(nil), fileOf(files, "data/qrels.parquet")...)
	b[len(b)/2] ^= 1
	rep = verify(t, write(t, append(slices.Clone(files), File{Path: "data/qrels.parquet", Data: b})))
	n = 0
	for _, p := range rep.Problems {
		if p.File == "data/qrels.parquet" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("changed data/qrels.parquet reported %d times: %v", n, rep.Problems)
	}
}

// TestTermsFollowTheDocument: topic rows are ours, extractive summaries
// keep their document's licence, a model's summary is ours, and every row
// keeps its document's training flag; the card and Croissant list every
// licence.
func TestTermsFollowTheDocument(t *testing.T) {
	c := sample()
	c.Topics = append(c.Topics, Topic{ID: "d2", Topics: []string{"alg"}, Scores: []float64{1}, Domain: "Algebra", Backend: "lexical"})
	c.Summaries = []Summary{{ID: "d1", CoreIdea: "isolate x", Backend: Extractive}, {ID: "d2", CoreIdea: "move one over", Backend: Extractive},
		{ID: "d3", CoreIdea: "four sides", Backend: "llm", Model: "m"}}
	files := build(t, c)
	ts, _ := dataset.Decode[Topic](fileOf(files, "data/topics.parquet"), "topics")
	ss, _ := dataset.Decode[Summary](fileOf(files, "data/summaries.parquet"), "summaries")
	if ts[1].ID != "d2" || ts[1].License != "CC-BY-SA-4.0" || !ts[1].NoTraining || ts[1].Source != "aops" {
		t.Errorf("topic of d2: %+v", ts[1])
	}
	want := map[string][2]any{"d1": {"MIT", false}, "d2": {"AoPS terms", true}, "d3": {"CC-BY-SA-4.0", false}}
	for _, s := range ss {
		if w := want[s.ID]; s.License != w[0] || s.NoTraining != w[1] {
			t.Errorf("summary %s: licence %q no_training %v, want %v", s.ID, s.License, s.NoTraining, w)
		}
	}
	var cr Croissant
	json.Unmarshal(fileOf(files, CroissantFile), &cr)
	if got := strings.Join(cr.License, " | "); got != "https://spdx.org/licenses/CC-BY-SA-4.0.html | AoPS terms | https://spdx.org/licenses/MIT.html" {
		t.Errorf("croissant licences: %s", got)
	}
	card := string(fileOf(files, CardFile))
	if !strings.Contains(card, "carry 3 licences: CC-BY-SA-4.0; AoPS terms; MIT") || !strings.Contains(card, "no_training = true") {
		t.Errorf("card licensing:\n%s", card)
	}
	// A topic of a document the release does not hold is refused.
	c = sample()
	c.Topics = append(c.Topics, Topic{ID: "d9", Backend: "lexical"})
	if _, err := Build(c); err == nil || !strings.Contains(err.Error(), "d9 is not a released document") {
		t.Errorf("topic of an unreleased document: %v", err)
	}
	// No homepage or creator: refused, naming the keys.
	c = sample()
	c.Meta.Homepage, c.Meta.Creators = "", nil
	if _, err := Build(c); err == nil || !strings.Contains(err.Error(), "release.homepage") || !strings.Contains(err.Error(), "release.creators") {
		t.Errorf("no homepage or creator: %v", err)
	}
}
