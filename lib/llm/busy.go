package llm

import (
	"sync"
	"time"
)

// busyClock measures the wall time during which at least one request was
// at the server: the union of the requests' intervals, not their sum. With
// sixteen requests in flight for a second, the latencies sum to sixteen
// seconds and the server was busy for one; with a Swiss round's dozen
// comparisons and then a checkpoint, it was busy for the round and idle
// for the checkpoint. That union is what a GPU-hours forecast predicts
// (jobs/forecast), so the manifests record it (llm_busy_ms).
type busyClock struct {
	mu       sync.Mutex
	inFlight int
	since    time.Time
	total    time.Duration
}

// start notes a request sent at now.
func (b *busyClock) start(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inFlight == 0 {
		b.since = now
	}
	b.inFlight++
}

// end notes a request answered (or failed) at now.
func (b *busyClock) end(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inFlight--
	if b.inFlight == 0 {
		b.total += now.Sub(b.since)
	}
}

// busy is the union so far, including the current stretch when requests
// are in flight at now.
func (b *busyClock) busy(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inFlight > 0 {
		return b.total + now.Sub(b.since)
	}
	return b.total
}
