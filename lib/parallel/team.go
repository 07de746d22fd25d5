package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A Team runs short parallel sections, tens of microseconds to a few
// milliseconds each, such as the parts of one query's index: the caller
// runs part 0 and helper goroutines the others. Waking a parked goroutine
// costs 50–100 µs on a virtual machine (a futex wake and an interrupt to
// an idle vCPU; measured on the 2-vCPU CI VM), as much as the work being
// split, so helpers spin for a while after each part, as OpenMP's do
// (GOMP_SPINCOUNT), and park only when no section came in that time. A
// spinning helper yields its P on every turn, so it delays no runnable
// goroutine.
//
// One section runs at a time; a Run that finds the team busy runs its
// parts in the caller instead of waiting, so callers that already keep
// every core busy (one query per core) lose nothing.
type Team struct {
	mu      sync.Mutex
	spin    time.Duration
	helpers []*helper
}

// helper is one goroutine of a team. seq is the number of the last section
// posted to it, done the last it finished.
type helper struct {
	seq, done atomic.Uint64
	sleeping  atomic.Bool
	wake      chan struct{} // a token: seq may have changed
	quit      chan struct{}
	spin      time.Duration

	// The part to run, written before seq is.
	fn    func(i int)
	i     int
	panic any // a part's panic, re-raised in the caller
}

// DefaultSpin is how long a helper spins for the next section before
// parking.
const DefaultSpin = 200 * time.Microsecond

// NewTeam starts a team of size−1 helpers (size ≥ 1), which spin for spin
// after each part. Close stops them.
func NewTeam(size int, spin time.Duration) *Team {
	if size < 1 {
		panic(fmt.Sprintf("parallel: team of size %d", size))
	}
	t := &Team{spin: spin}
	for range size - 1 {
		h := &helper{wake: make(chan struct{}, 1), quit: make(chan struct{}), spin: spin}
		t.helpers = append(t.helpers, h)
		go h.loop()
	}
	return t
}

// Size is the most parts a section runs at once: the caller and the
// helpers. A nil team has size 1.
func (t *Team) Size() int {
	if t == nil {
		return 1
	}
	return len(t.helpers) + 1
}

// Close stops the helpers. The team runs later sections in the caller.
func (t *Team) Close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range t.helpers {
		close(h.quit)
	}
	t.helpers = nil
}

// Run calls fn(i) for every i in [0, n) and returns when all have
// returned: fn(0) in the caller, the others on helpers, or all in the
// caller when the team is nil, busy or has too few helpers. A panic in a
// part is raised again in the caller, once every part has returned.
func (t *Team) Run(n int, fn func(i int)) {
	if t == nil || n <= 1 || !t.mu.TryLock() {
		for i := range n {
			fn(i)
		}
		return
	}
	defer t.mu.Unlock()
	if n > len(t.helpers)+1 {
		for i := range n {
			fn(i)
		}
		return
	}
	hs := t.helpers[:n-1]
	for k, h := range hs {
		h.fn, h.i, h.panic = fn, k+1, nil
		h.seq.Add(1) // publishes fn and i
		if h.sleeping.Load() {
			select {
			case h.wake <- struct{}{}:
			default: // a token is waiting already
			}
		}
	}
	// A panic in the caller's part waits for the helpers' too, so that no
	// helper is still running when the next section is posted.
	p := func() (p any) {
		defer func() { p = recover() }()
		fn(0)
		return nil
	}()
	for _, h := range hs {
		for h.done.Load() != h.seq.Load() {
			runtime.Gosched()
		}
		if h.panic != nil && p == nil {
			p = h.panic
		}
		h.fn = nil
	}
	if p != nil {
		panic(p)
	}
}

func (h *helper) loop() {
	var seen uint64
	for {
		// Wait for a section: spin, then park.
		start := time.Now()
		for spins := 0; h.seq.Load() == seen; spins++ {
			if spins%32 == 31 && time.Since(start) > h.spin {
				// Announce the park, then look again: Run stores seq before
				// it loads sleeping, so one of the two sees the other.
				h.sleeping.Store(true)
				if h.seq.Load() == seen {
					select {
					case <-h.wake:
					case <-h.quit:
						return
					}
				}
				h.sleeping.Store(false)
				start = time.Now()
				continue
			}
			runtime.Gosched()
		}
		select {
		case <-h.quit:
			return
		default:
		}
		seen = h.seq.Load()
		h.run()
		h.done.Store(seen)
	}
}

func (h *helper) run() {
	defer func() {
		if r := recover(); r != nil {
			h.panic = r
		}
	}()
	h.fn(h.i)
}
