//go:build !unix

package bt_test

import "time"

// processCPU is unavailable here; the benchmark's cpu-s/op then reads 0.
func processCPU() time.Duration { return 0 }
