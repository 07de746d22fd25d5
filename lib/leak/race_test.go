//go:build race

package leak

// raceEnabled: the MATH tests sample under the race detector, which makes
// the all-pairs comparison too slow.
const raceEnabled = true
