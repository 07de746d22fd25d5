package dedup

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/saber-math/saber/artifacts/dataset"
	"github.com/saber-math/saber/jobs/stage"
)

// TestConfirmReportsAndStops: the exact check of candidate pairs — millions
// for a corpus with one large templated cluster — reports every pair to
// its progress and returns ErrInterrupted at a signal instead of running
// on past the shard's grace period.
func TestConfirmReportsAndStops(t *testing.T) {
	cfg := Section.Of(parse(t, "run: r\nroot: d\n"))
	probs := make([]dataset.Problem, 200)
	for i := range probs {
		probs[i] = dataset.Problem{ID: fmt.Sprint(i), Statement: fmt.Sprintf("Compute the sum of the first %d positive integers and simplify.", i%3)}
	}
	var cands []pair
	for i := range probs {
		for j := i + 1; j < len(probs); j++ {
			cands = append(cands, pair{i: i, j: j})
		}
	}
	var reported int64
	conf, err := confirm(context.Background(), cfg, probs, cands, func(n int64) { reported += n })
	if err != nil || reported != int64(len(cands)) {
		t.Fatalf("err %v, %d pairs reported of %d", err, reported, len(cands))
	}
	if len(conf.pairs) == 0 {
		t.Error("no pair confirmed among identical statements")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := confirm(ctx, cfg, probs, cands, func(int64) {}); !errors.Is(err, stage.ErrInterrupted) {
		t.Errorf("cancelled: err %v, want ErrInterrupted", err)
	}
	// Fewer pairs than a report's stride: all reported at the end.
	reported = 0
	if _, err := confirm(context.Background(), cfg, probs, cands[:5], func(n int64) { reported += n }); err != nil || reported != 5 {
		t.Errorf("5 pairs: err %v, %d reported", err, reported)
	}
}
