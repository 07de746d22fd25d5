package study

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/saber-math/saber/lib/swiss"
)

// TestSchedulingSimulated: the study runs every default scheduler on
// simulated queries and reports, per scheduler, calls and fidelity; the
// reference is Swiss R = 20, the R = 13 cut makes 13/20 of its calls, the
// active scheduler fewer than the reference, nothing is charged on an
// exhaustive record, and the result is the same on every run.
func TestSchedulingSimulated(t *testing.T) {
	ctx := context.Background()
	qs, err := SimulateBiased(SchedSimConfig{N: 150, Queries: 2, Noise: DefaultSchedNoise, Bias: 0.2, InvalidRate: 0.02, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := SchedConfig{Retrievers: 6, Seed: 3, Workers: 2}
	res, err := Scheduling(ctx, qs, c)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res.Rows {
		names = append(names, r.Name)
		if r.Charged != 0 {
			t.Errorf("%s: %v charged comparisons on exhaustive records", r.Name, r.Charged)
		}
		if math.IsNaN(r.TopTau) || r.TopTau < -1 || r.TopTau > 1 || math.IsNaN(r.SpearmanRef) {
			t.Errorf("%s: τ %v, ρ %v", r.Name, r.TopTau, r.SpearmanRef)
		}
	}
	if want := []string{"swiss R=20", "swiss R=13", "swiss R=10", "swiss-adaptive", "swiss-adaptive loose", "active", "refine", "swiss-top"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("schedulers %v, want %v", names, want)
	}
	ref, cut, active, refine, top := res.Rows[0], res.Rows[1], res.Rows[5], res.Rows[6], res.Rows[7]
	if ref.Share != 1 || ref.SpearmanRef != 1 || ref.Goal || ref.Rounds != 20 {
		t.Errorf("reference row %+v", ref)
	}
	if math.Abs(cut.Comparisons/ref.Comparisons-13.0/20) > 0.02 {
		t.Errorf("R=13 makes %v comparisons, R=20 %v: want 13/20", cut.Comparisons, ref.Comparisons)
	}
	if !(active.Comparisons < ref.Comparisons) {
		t.Errorf("active makes %v comparisons, Swiss R=20 %v", active.Comparisons, ref.Comparisons)
	}
	for _, r := range []SchedRow{refine, top} {
		if r.Share > GoalShare {
			t.Errorf("%s makes %v of Swiss R=20's comparisons, want ≤ %v", r.Name, r.Share, GoalShare)
		}
	}
	for _, r := range res.Rows {
		if r.Goal != (r.Name != ref.Name && MeetsGoal(r, ref)) {
			t.Errorf("%s: goal column %v disagrees with MeetsGoal", r.Name, r.Goal)
		}
	}
	again, err := Scheduling(ctx, qs, c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.CSV(), again.CSV()) {
		t.Error("two runs of the study differ")
	}
	rows, err := csv.NewReader(bytes.NewReader(res.CSV())).ReadAll()
	if err != nil || len(rows) != 9 || !reflect.DeepEqual(rows[0], schedCSVHeader) {
		t.Errorf("scheduling.csv: %d rows, header %v, err %v", len(rows), rows[0], err)
	}
	text := res.Text()
	for _, w := range []string{"calls/query", "top-10 τ", "ρ vs ref", "swiss-adaptive", "active"} {
		if !strings.Contains(text, w) {
			t.Errorf("table lacks %q:\n%s", w, text)
		}
	}
	files, err := res.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"scheduling.csv", "scheduling.md", "scheduling.png", "scheduling.svg"} {
		if len(files[f]) == 0 {
			t.Errorf("%s missing", f)
		}
	}
}

// TestSchedulingReplaysARun: on the judgments of a Swiss run, seeded as
// the judge stage seeds it, Swiss R = 20 replays the run's own tournaments
// — nothing charged, nothing inverted against the run's ratings — while a
// scheduler that asks for pairs the run never judged is charged for them.
func TestSchedulingReplaysARun(t *testing.T) {
	const runSeed = 11
	sims, err := SimulateBiased(SchedSimConfig{N: 30, Queries: 3, Noise: 0.4, Bias: 0.2, InvalidRate: 0.02, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	doc := func(i int) string { return fmt.Sprintf("doc%02d", i) }
	var rows []JudgmentRow
	for _, e := range sims {
		q := "q-" + e.Key
		tr, err := swiss.New(e.n, swiss.SeedRounds(runSeed, "judge", q))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Run(20, e.decide); err != nil {
			t.Fatal(err)
		}
		for _, j := range tr.Judgments() {
			r := JudgmentRow{Query: q, Sample1: doc(j.First), Sample2: doc(j.Second), Invalid: j.Winner == swiss.Invalid}
			if !r.Invalid {
				r.Winner = doc(j.Winner)
			}
			rows = append(rows, r)
		}
	}
	qs, err := RecordsFromRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 {
		t.Fatalf("%d queries from the run, want 3", len(qs))
	}
	res, err := Scheduling(context.Background(), qs, SchedConfig{Retrievers: 4, Seed: runSeed, JudgeSeed: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Partial != 3 || !strings.Contains(res.Text(), "charged") {
		t.Errorf("%d partial queries, want 3", res.Partial)
	}
	ref := res.Rows[0]
	if ref.Charged != 0 || ref.Inversions != 0 {
		t.Errorf("Swiss R=20 on its own run: %v charged, %v inversions; want 0 and 0", ref.Charged, ref.Inversions)
	}
	if active := res.Rows[5]; active.Charged == 0 {
		t.Errorf("active charged nothing on a Swiss run's record: %+v", active)
	}
}

func TestTopTau(t *testing.T) {
	x := []float64{5, 4, 3, 2, 1, 0}
	rev := []float64{0, 1, 2, 3, 4, 5}
	if got := topTau(x, x, 3); got != 1 {
		t.Errorf("τ of a ranking with itself %v, want 1", got)
	}
	// Top 3s {0,1,2} and {3,4,5}: all 15 pairs of the union discordant.
	if got := topTau(x, rev, 3); got != -1 {
		t.Errorf("τ of reversed rankings %v, want −1", got)
	}
}

func TestSchedulingBadInput(t *testing.T) {
	if _, err := SimulateBiased(SchedSimConfig{N: 10, Queries: 1, Noise: 0}); err == nil {
		t.Error("noise 0 accepted")
	}
	qs, _ := SimulateBiased(SchedSimConfig{N: 10, Queries: 1, Noise: 0.4})
	if _, err := Scheduling(context.Background(), qs, SchedConfig{Retrievers: 1}); err == nil || !strings.Contains(err.Error(), "--retrievers") {
		t.Errorf("one retriever: err %v", err)
	}
}

// TestMeetsGoal is issue 41's goal column: half the reference's calls or
// fewer, and against the exhaustive ranking no more inversions, no larger
// |ΔnDCG@10| and no lower top-10 τ; the leaderboard ρ does not enter.
func TestMeetsGoal(t *testing.T) {
	ref := SchedRow{Comparisons: 1500, Inversions: 700, NDCGError: 0.034, TopTau: 0.58, SpearmanRef: 1}
	ok := SchedRow{Comparisons: 750, Inversions: 700, NDCGError: 0.034, TopTau: 0.58, SpearmanRef: 0.5}
	for _, tt := range []struct {
		name string
		mut  func(*SchedRow)
		want bool
	}{
		{"ties the reference at half the calls", func(*SchedRow) {}, true},
		{"better everywhere", func(r *SchedRow) { r.Comparisons, r.Inversions, r.NDCGError, r.TopTau = 600, 500, 0.02, 0.7 }, true},
		{"low leaderboard ρ does not matter", func(r *SchedRow) { r.SpearmanRef = 0 }, true},
		{"one call over half", func(r *SchedRow) { r.Comparisons = 751 }, false},
		{"more inversions", func(r *SchedRow) { r.Inversions = 700.5 }, false},
		{"larger |ΔnDCG@10|", func(r *SchedRow) { r.NDCGError = 0.0341 }, false},
		{"lower top-10 τ", func(r *SchedRow) { r.TopTau = 0.579 }, false},
		{"active's old win: fewer calls, better τ, 2× inversions", func(r *SchedRow) { r.Comparisons, r.TopTau, r.Inversions = 810, 0.61, 1560 }, false},
	} {
		r := ok
		tt.mut(&r)
		if got := MeetsGoal(r, ref); got != tt.want {
			t.Errorf("%s: MeetsGoal %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSchedulingSweep: the sweep runs one study per cell, reports each
// scheduler relative to the reference (share 1, ratios 1 and τ difference
// 0 for the reference itself, which never meets the goal), counts the
// cells where the goal held, and spreads cover the cells' figures.
func TestSchedulingSweep(t *testing.T) {
	c := SchedSweepConfig{
		Sim:     SchedSimConfig{N: 30, Bias: 0.2, InvalidRate: 0.02},
		Study:   SchedConfig{Retrievers: 4, Workers: 1},
		Seeds:   []uint64{1, 2},
		Noises:  []float64{0.39, 0.6},
		Queries: []int{1},
	}
	res, err := SchedulingSweep(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(DefaultSchedulers()) {
		t.Fatalf("%d rows", len(res.Rows))
	}
	ref := res.Rows[0]
	if ref.Cells != 4 || ref.GoalCells != 0 || ref.MeanGoal || ref.Share != (SchedSpread{1, 0, 1, 1}) || ref.Inv.Mean != 1 || ref.Tau.Max != 0 {
		t.Errorf("reference row %+v", ref)
	}
	for _, r := range res.Rows[1:] {
		if r.Cells != 4 || r.GoalCells > 4 || !(r.Share.Min <= r.Share.Mean && r.Share.Mean <= r.Share.Max) || !(r.Inv.Min <= r.Inv.Mean && r.Inv.Mean <= r.Inv.Max) {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	// The R = 10 cut makes half the calls in every cell.
	if cut := res.Rows[2]; math.Abs(cut.Share.Mean-0.5) > 0.02 {
		t.Errorf("swiss R=10: share %+v, want 0.5", cut.Share)
	}
	if text := res.Text(); !strings.Contains(text, "4 simulated studies") || !strings.Contains(text, "goal on means") {
		t.Errorf("sweep text:\n%s", text)
	}
	if _, err := SchedulingSweep(context.Background(), SchedSweepConfig{Seeds: []uint64{1}}); err == nil {
		t.Error("a sweep without noises and query counts ran")
	}
}
