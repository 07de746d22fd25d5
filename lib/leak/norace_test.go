//go:build !race

package leak

const raceEnabled = false
