package study

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
	"github.com/saber-math/saber/lib/swiss"
)

// writeJudgments writes rows as the judge stage would, under dir/key.
func writeJudgments(t *testing.T, dir, key string, rows []dataset.Judgment) string {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.Judgments.Write(context.Background(), st, key, rows); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, key)
}

// exhaustiveRows judges every pair of n documents of query q: the document
// with the higher number wins, except that pairs whose numbers sum to a
// multiple of upset go the other way (0: never), and the pair (0, 1) is
// invalid when invalid01. Sample 1 alternates.
func exhaustiveRows(q string, n, upset int, invalid01 bool) []dataset.Judgment {
	var rows []dataset.Judgment
	k := 0
	for a := range n {
		for b := a + 1; b < n; b++ {
			s1, s2 := fmt.Sprintf("d%02d", a), fmt.Sprintf("d%02d", b)
			if k%2 == 1 {
				s1, s2 = s2, s1
			}
			w := fmt.Sprintf("d%02d", b)
			if upset > 0 && (a+b)%upset == 0 {
				w = fmt.Sprintf("d%02d", a)
			}
			j := dataset.Judgment{Query: q, Round: 1, Match: int32(k), Sample1: s1, Sample2: s2, Winner: w, Model: "test"}
			if invalid01 && a == 0 && b == 1 {
				j.Winner, j.Invalid, j.Reason = "", true, "unparseable"
			}
			rows = append(rows, j)
			k++
		}
	}
	return rows
}

func TestRoundsFromJudgmentsParquet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var rows []dataset.Judgment
	rows = append(rows, exhaustiveRows("q1", 10, 7, true)...)
	rows = append(rows, exhaustiveRows("q2", 10, 0, false)...)
	partial := exhaustiveRows("q3", 6, 0, false)
	rows = append(rows, partial[:len(partial)-2]...) // two pairs never judged
	// Two parts, as a sharded judge stage writes them.
	writeJudgments(t, dir, "judgments/part-00000-of-00002.parquet", rows[:50])
	file := writeJudgments(t, dir, "judgments/part-00001-of-00002.parquet", rows[50:])
	os.MkdirAll(filepath.Join(dir, "judgments", "_done"), 0o755)

	all, err := ReadParquet[JudgmentRow](ctx, filepath.Join(dir, "judgments"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(rows) {
		t.Fatalf("folder read %d rows, wrote %d", len(all), len(rows))
	}
	one, err := ReadParquet[JudgmentRow](ctx, file, store.Options{})
	if err != nil || len(one) != len(rows)-50 {
		t.Fatalf("file read %d rows, err %v", len(one), err)
	}
	qs, skipped, err := ExhaustiveFromRows(all)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Key != "q1" || qs[1].Key != "q2" {
		t.Fatalf("exhaustive queries %v", qs)
	}
	if want := []Skipped{{Query: "q3", Candidates: 6, PairsJudged: 13, PairsExpected: 15}}; !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped %+v, want %+v", skipped, want)
	}
	if qs[0].N() != 10 || qs[0].Judgments != 45 || len(qs[0].games) != 44 {
		t.Errorf("q1: n %d, judgments %d, valid %d", qs[0].N(), qs[0].Judgments, len(qs[0].games))
	}

	cfg := RoundsConfig{MaxRounds: 12, Seed: 3, Workers: 2}
	res, err := Rounds(ctx, qs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 12 || res.Queries != 2 || res.MeanPairs != 45 {
		t.Fatalf("rows %d, queries %d, pairs %v", len(res.Rows), res.Queries, res.MeanPairs)
	}
	prev := 0.0
	for _, r := range res.Rows {
		if r.Comparisons < prev || r.Comparisons > 45 {
			t.Errorf("R=%d: comparisons %v after %v", r.Rounds, r.Comparisons, prev)
		}
		prev = r.Comparisons
		if !math.IsNaN(r.SwissLatentInversions) {
			t.Errorf("R=%d: latent inversions %v without a latent truth", r.Rounds, r.SwissLatentInversions)
		}
	}
	if res.Rows[0].Comparisons != 5 {
		t.Errorf("round 1 of 10 candidates: %v comparisons, want 5", res.Rows[0].Comparisons)
	}
	// Once every pair is judged, both schedules hold the exhaustive set
	// and recover its ranking exactly.
	last := res.Rows[len(res.Rows)-1]
	if last.Comparisons == 45 && (last.SwissInversions != 0 || last.RandomInversions != 0 || last.SwissSpearman != 1) {
		t.Errorf("all pairs judged, yet %+v", last)
	}
	// q2's judge is perfectly transitive: the exhaustive ranking is the
	// documents' order, and the Swiss tournament recovers most of it fast.
	qs2, _, _ := ExhaustiveFromRows(all)
	r2, err := Rounds(ctx, qs2[1:], cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Rows[0].SwissInversions <= r2.Rows[5].SwissInversions {
		t.Errorf("q2: inversions do not fall: R=1 %v, R=6 %v", r2.Rows[0].SwissInversions, r2.Rows[5].SwissInversions)
	}
	// Same inputs, same numbers, whatever the worker count.
	cfg.Workers = 1
	again, err := Rounds(ctx, qs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.CSV(), res.CSV()) {
		t.Error("rerun with another worker count differs")
	}
	files, err := res.Files()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := image.Decode(bytes.NewReader(files["rounds.png"])); err != nil {
		t.Errorf("rounds.png: %v", err)
	}
	if !strings.Contains(string(files["rounds.svg"]), "Swiss tournament") {
		t.Error("rounds.svg lacks the series name")
	}
	csv := string(files["rounds.csv"])
	if !strings.HasPrefix(csv, strings.Join(roundsCSVHeader, ",")+"\n1,5.00,") || strings.Count(csv, "\n") != 13 {
		t.Errorf("rounds.csv:\n%s", csv)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := WriteFiles(ctx, out, store.Options{}, files); err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	res.Source, res.Skipped = file, skipped
	txt := res.Text()
	for _, want := range []string{"queries: 2, candidates: 10, pairs: 45", "skipped 1 queries without every pair judged: q3 (13 of 15 pairs)", "swiss inv"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}

// TestDecideUsesSampleOrder: a pair judged in both orders answers each
// schedule with the judgment made in the order it asks for.
func TestDecideUsesSampleOrder(t *testing.T) {
	rows := []JudgmentRow{
		{Query: "q", Sample1: "a", Sample2: "b", Winner: "a"}, // position 1 wins
		{Query: "q", Sample1: "b", Sample2: "a", Winner: "b"}, // position 1 wins
	}
	qs, _, err := ExhaustiveFromRows(rows)
	if err != nil || len(qs) != 1 {
		t.Fatal(qs, err)
	}
	q := qs[0]
	if got := q.decide(swiss.Match{First: 0, Second: 1}); got != 0 {
		t.Errorf("a as Sample 1: winner %d, want a (0)", got)
	}
	if got := q.decide(swiss.Match{First: 1, Second: 0}); got != 1 {
		t.Errorf("b as Sample 1: winner %d, want b (1)", got)
	}
	if q.Judgments != 2 || len(q.games) != 2 {
		t.Errorf("both judgments count: %d, %d", q.Judgments, len(q.games))
	}
}

func TestExhaustiveBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		rows []JudgmentRow
		want string
	}{
		"winner":  {[]JudgmentRow{{Query: "q", Sample1: "a", Sample2: "b", Winner: "c"}}, `winner "c" is neither sample`},
		"self":    {[]JudgmentRow{{Query: "q", Sample1: "a", Sample2: "a", Winner: "a"}}, `compares "a" with "a"`},
		"twice":   {[]JudgmentRow{{Query: "q", Sample1: "a", Sample2: "b", Winner: "a"}, {Query: "q", Sample1: "a", Sample2: "b", Winner: "b"}}, "judged twice in the same sample order"},
		"no wins": {[]JudgmentRow{{Query: "q", Sample1: "a", Sample2: "b"}}, "neither sample"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := ExhaustiveFromRows(tc.rows)
			if err == nil || !strings.Contains(err.Error(), tc.want) || stage.ExitCode(err) != stage.ExitBadInput {
				t.Errorf("err %v (exit %d), want bad input with %q", err, stage.ExitCode(err), tc.want)
			}
		})
	}
}

func TestReadParquetBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notPq := filepath.Join(dir, "labels.parquet")
	os.WriteFile(notPq, []byte("target,candidate1\nq,d\n"), 0o644)
	st, _ := store.Open(ctx, dir, store.Options{})
	// A ratings file where judgments are expected: columns missing.
	if _, err := dataset.Ratings.Write(ctx, st, "ratings.parquet", []dataset.Rating{{Query: "q", Doc: "d"}}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	for name, tc := range map[string]struct{ path, want string }{
		"not parquet": {notPq, "not a Parquet file"},
		"columns":     {filepath.Join(dir, "ratings.parquet"), `column "sample1": missing`},
		"missing":     {filepath.Join(dir, "nope.parquet"), "no such file"},
		"empty dir":   {filepath.Join(dir, "empty"), "without .parquet files"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadParquet[JudgmentRow](ctx, tc.path, store.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || stage.ExitCode(err) != stage.ExitBadInput {
				t.Errorf("err %v (exit %d), want bad input with %q", err, stage.ExitCode(err), tc.want)
			}
		})
	}
}

// TestDiscordance by hand: reference order a > b > c > d.
func TestDiscordance(t *testing.T) {
	ref := []float64{4, 3, 2, 1}
	for _, tc := range []struct {
		est       []float64
		inv, tied int
	}{
		{[]float64{4, 3, 2, 1}, 0, 0},
		{[]float64{1, 2, 3, 4}, 6, 0},
		{[]float64{3, 4, 2, 1}, 1, 0},          // a, b swapped
		{[]float64{2, 2, 2, 2}, 0, 6},          // all tied
		{[]float64{3, 2, 2.5, 2.5}, 2, 1},      // b below c and d: inverted; c = d: tied
		{[]float64{5, 5 + 1e-12, 0, -1}, 0, 1}, // round-off is a tie
	} {
		inv, tied := Discordance(tc.est, ref)
		if inv != tc.inv || tied != tc.tied {
			t.Errorf("Discordance(%v) = %d, %d; want %d, %d", tc.est, inv, tied, tc.inv, tc.tied)
		}
	}
	// Pairs the reference ties count in neither.
	if inv, tied := Discordance([]float64{1, 2, 3}, []float64{5, 5, 1}); inv != 2 || tied != 0 {
		t.Errorf("reference tie: %d, %d", inv, tied)
	}
}

func TestSimulate(t *testing.T) {
	ctx := context.Background()
	qs, err := Simulate(SimConfig{N: 40, Trials: 3, Noise: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	more, _ := Simulate(SimConfig{N: 40, Trials: 5, Noise: 0.3, Seed: 1})
	if !reflect.DeepEqual(qs[2].out, more[2].out) || !reflect.DeepEqual(qs[2].Latent, more[2].Latent) {
		t.Error("trial 3 depends on the number of trials")
	}
	res, err := Rounds(ctx, qs, RoundsConfig{MaxRounds: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(res.ExhaustiveLatentInversions) || math.IsNaN(res.Rows[9].SwissLatentInversions) {
		t.Error("simulation without latent inversions")
	}
	// Ten rounds of 20 matches: 200 of 780 pairs; Swiss should beat random
	// on average and both should improve with rounds.
	r1, r10 := res.Rows[0], res.Rows[9]
	if r10.Comparisons > 200 || r10.Comparisons < 190 {
		t.Errorf("R=10: %v comparisons, want 200 less a few byes", r10.Comparisons)
	}
	if !(r10.SwissInversions < r1.SwissInversions && r10.RandomInversions < r1.RandomInversions) {
		t.Errorf("no improvement: %+v → %+v", r1, r10)
	}
	if !(r10.SwissInversions < r10.RandomInversions) {
		t.Errorf("R=10: Swiss %v inversions, random %v", r10.SwissInversions, r10.RandomInversions)
	}
	if !strings.Contains(res.Text(), "against the latent truth") {
		t.Error("text lacks the latent line")
	}
	for _, bad := range []SimConfig{{N: 1, Trials: 1}, {N: 5, Trials: 0}, {N: 5, Trials: 1, Noise: -1}, {N: 5, Trials: 1, InvalidRate: 1}} {
		if _, err := Simulate(bad); err == nil || stage.ExitCode(err) != stage.ExitBadInput {
			t.Errorf("Simulate(%+v): %v", bad, err)
		}
	}
	if _, err := Rounds(ctx, nil, RoundsConfig{MaxRounds: 3}); err == nil || stage.ExitCode(err) != stage.ExitBadInput {
		t.Errorf("no queries: %v", err)
	}
}

func TestSpearmanRoundOffTies(t *testing.T) {
	ref := []float64{1, 1, 2, 3}
	est := []float64{1 + 1e-12, 1, 2, 3}
	if rho := spearman(est, ref); rho != 1 {
		t.Errorf("ρ = %v, want 1: round-off split a tie", rho)
	}
	if rho := spearman([]float64{4, 3, 2, 1}, []float64{1, 2, 3, 4}); rho != -1 {
		t.Errorf("ρ reversed = %v", rho)
	}
	if rho := spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(rho) {
		t.Errorf("constant: ρ = %v", rho)
	}
}
