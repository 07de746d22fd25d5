//go:build !unix

package poolrank

import "time"

// cpuTime is not measured here; the benchmarks then report 0.
func cpuTime() time.Duration { return 0 }
