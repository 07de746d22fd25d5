package forecast

import (
	"math"

	"github.com/saber-math/saber/jobs/plan"
)

// serverSeconds is the time the server is busy with a step's calls, over
// every shard: each shard sends a phase's items conc at a time (the
// stage's workers, bounded by llm.concurrency), an item's Chain calls one
// after another, each taking callSeconds at that concurrency, and starts
// the next phase only when the last item is answered. A shard's phase of
// n items then takes ceil(n/conc) waves of Chain calls: with sixteen in
// flight, a Swiss round of a dozen comparisons costs a whole call's time,
// not the twelve sixteenths that calls over throughput would say; at a
// thousand items a shard the two agree. share is the share of items the
// cache does not answer (a cached answer costs the server nothing).
//
// Items are split over the shards as shard.Spec.Range splits rows: the
// first n mod shards shards one more. The model is exact for items of
// one Chain and a server whose latency does not depend on how many
// requests are in flight (the fake server of the tests); a GPU server
// answers a part-filled wave faster than a full one, so for small phases
// the forecast errs long.
func serverSeconds(phases []plan.Phase, shards, conc int, callSeconds, share float64) float64 {
	if shards < 1 || conc < 1 || callSeconds <= 0 || share <= 0 {
		return 0
	}
	s, c := float64(shards), float64(conc)
	var waves float64
	for _, p := range phases {
		n := math.Round(p.Items * share)
		if n <= 0 {
			continue
		}
		base := math.Floor(n / s)
		more := n - base*s // shards with base+1 items
		waves += float64(max(p.Times, 1)) * p.Chain * (more*math.Ceil((base+1)/c) + (s-more)*math.Ceil(base/c))
	}
	return waves * callSeconds
}
