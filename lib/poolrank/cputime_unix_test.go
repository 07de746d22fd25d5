//go:build unix

package poolrank

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user + system, all
// threads). The benchmarks report it next to wall time because the machines
// they run on are shared: wall time there measures the neighbours too.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
