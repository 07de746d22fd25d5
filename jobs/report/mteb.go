package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/saber-math/saber/lib/stats"
)

// MTEBScore is one row of an MTEB scores CSV (paper §4.1): a retriever's
// MTEB (Multilingual, Retrieval) score and its release date, YYYY-MM-DD or
// empty when unknown.
type MTEBScore struct {
	Retriever string
	Score     float64
	Released  string
}

// ReadMTEBCSV reads a CSV with a header naming the columns retriever,
// mteb_score and release_date (in any order; other columns are ignored).
// A row with an empty mteb_score is a model without a score and is left
// out; an empty release_date is an unknown date.
func ReadMTEBCSV(r io.Reader, name string) ([]MTEBScore, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty (want a header: retriever,mteb_score,release_date)", name)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, c := range []string{"retriever", "mteb_score", "release_date"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s line 1: no column %q (want a header: retriever,mteb_score,release_date)", name, c)
		}
	}
	var out []MTEBScore
	seen := map[string]int{}
	for i, row := range rows[1:] {
		line := i + 2
		get := func(c string) string {
			if j := col[c]; j < len(row) {
				return strings.TrimSpace(row[j])
			}
			return ""
		}
		s := MTEBScore{Retriever: get("retriever"), Released: get("release_date")}
		if s.Retriever == "" {
			return nil, fmt.Errorf("%s line %d: empty retriever", name, line)
		}
		if prev, dup := seen[s.Retriever]; dup {
			return nil, fmt.Errorf("%s line %d: retriever %s again (first on line %d)", name, line, s.Retriever, prev)
		}
		seen[s.Retriever] = line
		if s.Released != "" {
			if _, err := time.Parse(time.DateOnly, s.Released); err != nil {
				return nil, fmt.Errorf("%s line %d: release_date %q is not YYYY-MM-DD", name, line, s.Released)
			}
		}
		v := get("mteb_score")
		if v == "" || v == "-" || v == "–" {
			continue
		}
		if s.Score, err = strconv.ParseFloat(v, 64); err != nil || math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
			return nil, fmt.Errorf("%s line %d: mteb_score %q is not a number", name, line, v)
		}
		out = append(out, s)
	}
	return out, nil
}

// LeaderboardScores reads each retriever's overall nDCG from a report's
// leaderboard.json.
func LeaderboardScores(data []byte) (map[string]float64, error) {
	var lb struct {
		Entries []struct {
			Retriever string   `json:"retriever"`
			NDCG      *float64 `json:"ndcg"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		return nil, err
	}
	if len(lb.Entries) == 0 {
		return nil, errors.New("no entries (is it a leaderboard.json?)")
	}
	out := map[string]float64{}
	for i, e := range lb.Entries {
		if e.Retriever == "" || e.NDCG == nil {
			return nil, fmt.Errorf("entry %d has no retriever or ndcg", i)
		}
		out[e.Retriever] = *e.NDCG
	}
	return out, nil
}

// MTEBRow is one line of the MTEB correlation table.
type MTEBRow struct {
	Subset            string
	N                 int
	Pearson, Spearman float64
	// Removed are the retrievers left out for their rank gaps.
	Removed []string
}

// MTEBCorrelation correlates MTEB scores with our overall nDCG@10 (paper
// §4.1), by Pearson and Spearman, over the retrievers in both: all of them;
// those released on or after since (YYYY-MM-DD; no row when since is
// empty); and all of them less the n = 1 and n = 2 retrievers with the
// largest rank gap |rank by MTEB − rank by ours| (ranks among all the
// common retrievers, 1 = best, ties averaged; equal gaps removed by name).
// It also returns the common retrievers, by name.
func MTEBCorrelation(ours map[string]float64, mteb []MTEBScore, since string) ([]MTEBRow, []MTEBScore) {
	var common []MTEBScore
	for _, s := range mteb {
		if _, ok := ours[s.Retriever]; ok {
			common = append(common, s)
		}
	}
	slices.SortFunc(common, func(a, b MTEBScore) int { return strings.Compare(a.Retriever, b.Retriever) })
	corr := func(subset string, keep func(MTEBScore) bool, removed []string) MTEBRow {
		var x, y []float64
		for _, s := range common {
			if keep(s) {
				x, y = append(x, s.Score), append(y, ours[s.Retriever])
			}
		}
		return MTEBRow{Subset: subset, N: len(x), Pearson: stats.Pearson(x, y), Spearman: stats.Spearman(x, y), Removed: removed}
	}
	out := []MTEBRow{corr("all", func(MTEBScore) bool { return true }, nil)}
	if since != "" {
		out = append(out, corr("released from "+since, func(s MTEBScore) bool { return s.Released != "" && s.Released >= since }, nil))
	}
	gaps := RankGaps(ours, common)
	for n := 1; n <= 2; n++ {
		if n >= len(gaps) {
			break
		}
		var removed []string
		for _, g := range gaps[:n] {
			removed = append(removed, g.Retriever)
		}
		out = append(out, corr(fmt.Sprintf("without the %d largest rank gap%s", n, map[bool]string{true: "s"}[n > 1]),
			func(s MTEBScore) bool { return !slices.Contains(removed, s.Retriever) }, removed))
	}
	return out, common
}

// RankGap is a retriever's ranks among the common retrievers, 1 = best.
type RankGap struct {
	Retriever      string
	MTEBRank, Ours float64
	Gap            float64
}

// RankGaps ranks the common retrievers by MTEB and by our score (1 =
// best, ties averaged) and lists them by |difference| descending, ties by
// name.
func RankGaps(ours map[string]float64, common []MTEBScore) []RankGap {
	x, y := make([]float64, len(common)), make([]float64, len(common))
	for i, s := range common {
		x[i], y[i] = -s.Score, -ours[s.Retriever] // ranks ascend: negate for 1 = best
	}
	rx, ry := stats.Ranks(x, 0), stats.Ranks(y, 0)
	out := make([]RankGap, len(common))
	for i, s := range common {
		out[i] = RankGap{s.Retriever, rx[i], ry[i], math.Abs(rx[i] - ry[i])}
	}
	slices.SortFunc(out, func(a, b RankGap) int {
		return cmp.Or(cmp.Compare(b.Gap, a.Gap), strings.Compare(a.Retriever, b.Retriever))
	})
	return out
}

// MTEBMarkdown is the correlation table in Markdown.
func MTEBMarkdown(rows []MTEBRow, source string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Correlation of MTEB scores with SABER-Math overall nDCG@10\n\nOur scores: %s. Pearson and Spearman (ties averaged) over the retrievers with both scores; rank gaps are |rank by MTEB − rank by ours| among all of them.\n\n", source)
	g := grid{header: []string{"Subset", "n", "Pearson", "Spearman", "Removed"}, left: 1}
	for _, r := range rows {
		g.rows = append(g.rows, []string{markdown.text(r.Subset), strconv.Itoa(r.N), corr(r.Pearson), corr(r.Spearman), markdown.text(strings.Join(r.Removed, ", "))})
	}
	b.WriteString(g.markdown())
	return b.String()
}
