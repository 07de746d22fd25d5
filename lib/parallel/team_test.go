package parallel

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// runAll runs a section of n parts on t and checks each ran once.
func runAll(t *testing.T, team *Team, n int) {
	t.Helper()
	got := make([]int, n)
	team.Run(n, func(i int) { got[i]++ })
	for i, c := range got {
		if c != 1 {
			t.Fatalf("Run(%d): part %d ran %d times", n, i, c)
		}
	}
}

func TestTeamRunsEveryPart(t *testing.T) {
	for _, spin := range []time.Duration{0, time.Microsecond, DefaultSpin} {
		team := NewTeam(4, spin)
		for n := range 6 { // 5 parts: more than the team, run in the caller
			for range 50 {
				runAll(t, team, n)
			}
		}
		team.Close()
		runAll(t, team, 3) // closed: in the caller
	}
	var nilTeam *Team
	runAll(t, nilTeam, 3)
	if nilTeam.Size() != 1 || NewTeam(3, 0).Size() != 3 {
		t.Fatal("Size")
	}
}

// TestTeamWakesParkedHelpers gives the helpers time to park between
// sections, so that every section has to wake them.
func TestTeamWakesParkedHelpers(t *testing.T) {
	team := NewTeam(3, time.Microsecond)
	defer team.Close()
	for range 20 {
		time.Sleep(200 * time.Microsecond)
		runAll(t, team, 3)
	}
}

// TestTeamHelpersRunInParallel checks that the parts do run at once: each
// waits until all have started.
func TestTeamHelpersRunInParallel(t *testing.T) {
	team := NewTeam(3, DefaultSpin)
	defer team.Close()
	var started atomic.Int32
	done := make(chan struct{})
	go func() {
		team.Run(3, func(int) {
			started.Add(1)
			for started.Load() < 3 {
				time.Sleep(time.Microsecond)
			}
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the parts did not all run at once")
	}
}

// TestTeamBusyRunsInCaller runs sections from many goroutines at once:
// those that find the team busy run their parts themselves.
func TestTeamBusyRunsInCaller(t *testing.T) {
	team := NewTeam(2, DefaultSpin)
	defer team.Close()
	var wg sync.WaitGroup
	var total atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 200 {
				team.Run(2, func(i int) { total.Add(int64(i + 1)) })
			}
		})
	}
	wg.Wait()
	if got := total.Load(); got != 8*200*3 {
		t.Fatalf("sum of parts %d, want %d", got, 8*200*3)
	}
}

func TestTeamPanicReachesCaller(t *testing.T) {
	team := NewTeam(2, DefaultSpin)
	defer team.Close()
	func() {
		defer func() {
			if r := recover(); r != "part 1" {
				t.Fatalf("recovered %v, want the helper's panic", r)
			}
		}()
		team.Run(2, func(i int) {
			if i == 1 {
				panic("part 1")
			}
		})
	}()
	runAll(t, team, 2) // the team still works

	// A panic in the caller's part waits for the helper's part.
	var helperDone atomic.Bool
	func() {
		defer func() {
			if r := recover(); r != "part 0" || !helperDone.Load() {
				t.Fatalf("recovered %v, helper done %v; want the caller's panic after the helper's part", r, helperDone.Load())
			}
		}()
		team.Run(2, func(i int) {
			if i == 0 {
				panic("part 0")
			}
			time.Sleep(10 * time.Millisecond)
			helperDone.Store(true)
		})
	}()
	runAll(t, team, 2)
}
