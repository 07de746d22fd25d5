package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// mtebCSV: eight retrievers; h has no known date, x has no MTEB score, and
// y has a score but is not in our results.
const mtebCSV = "retriever,mteb_score,release_date,notes\n" +
	"a,70.1,2025-06-01,\nb,68.5,2025-03-10,\nc,65.0,2024-11-01,\nd,65.0,2025-01-01,\n" +
	"e,60.2,2023-05-05,\nf,58.0,2025-02-02,\ng,55.5,2022-01-01,\nh,50.0,,\nx,,2025-01-01,\ny,80,2025-01-01,\n"

var mtebOurs = map[string]float64{"a": 0.70, "b": 0.74, "c": 0.60, "d": 0.66, "e": 0.50, "f": 0.72, "g": 0.41, "h": 0.45, "x": 0.3, "z": 0.2}

// Expected values from scipy 1.10 (pearsonr, spearmanr, rankdata).
func TestMTEBCorrelation(t *testing.T) {
	scores, err := ReadMTEBCSV(strings.NewReader(mtebCSV), "m.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != 9 { // x left out
		t.Fatalf("%d scores, want 9: %+v", len(scores), scores)
	}
	rows, common := MTEBCorrelation(mtebOurs, scores, "2025-01-01")
	if len(common) != 8 {
		t.Errorf("%d common retrievers, want 8", len(common))
	}
	want := []MTEBRow{
		{"all", 8, 0.7475726789541361, 0.6826469692905576, nil},
		{"released from 2025-01-01", 4, -0.01452937306506219, 0.0, nil},
		{"without the 1 largest rank gap", 7, 0.9165361822828764, 0.9189562119494703, []string{"f"}},
		{"without the 2 largest rank gaps", 6, 0.8997461449784896, 0.9276336570439174, []string{"f", "a"}},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for i, w := range want {
		g := rows[i]
		if g.Subset != w.Subset || g.N != w.N || math.Abs(g.Pearson-w.Pearson) > 1e-12 || math.Abs(g.Spearman-w.Spearman) > 1e-12 || !slices.Equal(g.Removed, w.Removed) {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
	gaps := RankGaps(mtebOurs, common)
	if gaps[0].Retriever != "f" || gaps[0].Gap != 4 || gaps[0].MTEBRank != 6 || gaps[0].Ours != 2 || gaps[2].Retriever != "c" || gaps[2].Gap != 1.5 {
		t.Errorf("gaps %+v", gaps)
	}
	md := MTEBMarkdown(rows, "test")
	if !strings.Contains(md, "| without the 2 largest rank gaps | 6 | 0.8997 | 0.9276 | f, a |") || !strings.Contains(md, "| all | 8 | 0.7476 | 0.6826 |  |") {
		t.Errorf("markdown:\n%s", md)
	}
	// Without --since there is no date row.
	if rows, _ := MTEBCorrelation(mtebOurs, scores, ""); len(rows) != 3 {
		t.Errorf("without since: %+v", rows)
	}
}

func TestReadMTEBCSVBad(t *testing.T) {
	for in, want := range map[string]string{
		"retriever,mteb_score\na,1\n":                       `no column "release_date"`,
		"retriever,mteb_score,release_date\na,x,\n":         `line 2: mteb_score "x"`,
		"retriever,mteb_score,release_date\na,1,2025/1/1\n": `line 2: release_date "2025/1/1"`,
		"retriever,mteb_score,release_date\na,1,\na,2,\n":   "line 3: retriever a again",
		"": "empty",
	} {
		if _, err := ReadMTEBCSV(strings.NewReader(in), "m.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
