package decl

import (
	"strconv"

	"github.com/saber-math/saber/lib/seed"
)

// Audited reports whether the comparison (query, round, match) is in the
// position audit's sample of share: a uniform draw from seed.Derive(run,
// "judge", "position_audit␀query␀round␀match") below share, so the sample
// is the same whatever the shard count or the order comparisons ran in —
// and the stage's forecast replays it (forecast.go).
func Audited(runSeed uint64, query string, round, match int32, share float64) bool {
	if share <= 0 {
		return false
	}
	x := seed.Derive(runSeed, "judge", "position_audit\x00"+query+"\x00"+strconv.Itoa(int(round))+"\x00"+strconv.Itoa(int(match)))
	return float64(x>>11)/(1<<53) < share
}
