package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/saber-math/saber/artifacts/layout"
	"github.com/saber-math/saber/artifacts/store"
	"github.com/saber-math/saber/jobs/stage"
)

// syncBuf is a bytes.Buffer safe for a waiter's notes and the test's reads.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// writeLease stores a lease object as another holder would have.
func writeLease(t *testing.T, st store.Store, o LeaseOwner) {
	t.Helper()
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(context.Background(), st, layout.LeaseKey(o.Run), data, store.Replace); err != nil {
		t.Fatal(err)
	}
}

// TestLeaseIsExclusive: of two takers, the second fails with exit 75 and a
// message naming the holder's host and pid and the commands to wait or
// break; after Release the lease is gone and can be taken again.
func TestLeaseIsExclusive(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	first, err := AcquireLease(ctx, st, "r", LeaseOptions{Command: "saber run --config a.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLease(ctx, st, "r", LeaseOptions{})
	var held *LeaseHeldError
	if !errors.As(err, &held) || stage.ExitCode(err) != stage.ExitTempFail || held.Stale {
		t.Fatalf("second taker: %v (exit %d), want a live *LeaseHeldError, exit 75", err, stage.ExitCode(err))
	}
	host, _ := os.Hostname()
	for _, want := range []string{host, fmt.Sprintf("pid %d", os.Getpid()), "saber run --config a.yaml", "--wait", "saber lease break", "mem://r/_lease.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	if err := first.Release(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLease(ctx, st, "r"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("lease after Release: %v, want none", err)
	}
	// Other runs on the same root are not affected by a run's lease.
	again, err := AcquireLease(ctx, st, "r", LeaseOptions{})
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	other, err := AcquireLease(ctx, st, "other-run", LeaseOptions{})
	if err != nil {
		t.Fatalf("another run on the same root: %v", err)
	}
	again.Release(nil)
	other.Release(nil)
}

// TestLeaseWaitAndHeartbeat: a waiter says whom it waits for and gets the
// lease once the holder releases it; the holder's heartbeat advances.
func TestLeaseWaitAndHeartbeat(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	opt := LeaseOptions{Heartbeat: 20 * time.Millisecond, Poll: 10 * time.Millisecond}
	first, err := AcquireLease(ctx, st, "r", opt)
	if err != nil {
		t.Fatal(err)
	}
	beat0 := first.Owner().Heartbeat
	time.Sleep(80 * time.Millisecond)
	cur, err := ReadLease(ctx, st, "r")
	if err != nil || !cur.Heartbeat.After(beat0) || cur.ID != first.Owner().ID {
		t.Fatalf("heartbeat not renewed: %+v (err %v), started %v", cur, err, beat0)
	}
	var notes syncBuf
	wopt := opt
	wopt.Wait, wopt.Out = true, &notes
	got := make(chan error, 1)
	go func() {
		l, err := AcquireLease(ctx, st, "r", wopt)
		if err == nil {
			err = l.Release(nil)
		}
		got <- err
	}()
	time.Sleep(60 * time.Millisecond)
	select {
	case err := <-got:
		t.Fatalf("waiter returned while the lease was held: %v", err)
	default:
	}
	if err := first.Release(nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("waiter: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter did not get the released lease")
	}
	if !strings.Contains(notes.String(), "waiting for the run's lease, held by") || strings.Count(notes.String(), "\n") != 1 {
		t.Errorf("waiter's notes: %q, want one line naming the holder", notes.String())
	}
}

// TestStaleLease: a lease from another host whose heartbeat is old is
// reported as stale (exit 2, naming the command that breaks it), a live
// one as held (exit 75); neither is taken over, not even by a waiter; only
// BreakLease removes them, and a live one only with force.
func TestStaleLease(t *testing.T) {
	ctx := context.Background()
	old := time.Now().Add(-time.Hour).UTC()
	for _, tc := range []struct {
		name  string
		owner LeaseOwner
		stale bool
	}{
		{"old heartbeat", LeaseOwner{ID: "x", Run: "r", Host: "elsewhere", PID: 1, Started: old, Heartbeat: old}, true},
		{"live elsewhere", LeaseOwner{ID: "x", Run: "r", Host: "elsewhere", PID: 1, Started: time.Now(), Heartbeat: time.Now()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := store.NewMem()
			writeLease(t, st, tc.owner)
			_, err := AcquireLease(ctx, st, "r", LeaseOptions{})
			var held *LeaseHeldError
			want := map[bool]int{true: stage.ExitBadInput, false: stage.ExitTempFail}[tc.stale]
			if !errors.As(err, &held) || held.Stale != tc.stale || stage.ExitCode(err) != want {
				t.Fatalf("take: %v (exit %d), want a *LeaseHeldError with stale %v, exit %d", err, stage.ExitCode(err), tc.stale, want)
			}
			if tc.stale && (!strings.Contains(err.Error(), "stale") || !strings.Contains(err.Error(), "saber lease break --config")) {
				t.Errorf("message does not say stale and how to break it: %v", err)
			}
			wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			_, err = AcquireLease(wctx, st, "r", LeaseOptions{Wait: true, Poll: 10 * time.Millisecond})
			cancel()
			if err == nil || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a waiter took the lease: %v", err)
			}
			_, err = BreakLease(ctx, st, "r", 0, false)
			if tc.stale != (err == nil) {
				t.Fatalf("break without force: %v, want success %v", err, tc.stale)
			}
			if !tc.stale {
				if stage.ExitCode(err) != stage.ExitBadInput || !strings.Contains(err.Error(), "--force") {
					t.Errorf("refused break: %v (exit %d), want exit 2 naming --force", err, stage.ExitCode(err))
				}
				if o, err := BreakLease(ctx, st, "r", 0, true); err != nil || o.ID != "x" {
					t.Fatalf("break --force: %+v, %v", o, err)
				}
			}
			if _, err := ReadLease(ctx, st, "r"); !errors.Is(err, store.ErrNotExist) {
				t.Errorf("lease after break: %v", err)
			}
			if _, err := BreakLease(ctx, st, "r", 0, false); !errors.Is(err, store.ErrNotExist) {
				t.Errorf("break of no lease: %v, want ErrNotExist", err)
			}
		})
	}
}

// TestLeaseLost: a lease broken (and taken) while its run works cancels
// the run's context, and Release reports the loss (exit 75) without
// removing the new holder's lease.
func TestLeaseLost(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	l, err := AcquireLease(ctx, st, "r", LeaseOptions{Heartbeat: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BreakLease(ctx, st, "r", 0, true); err != nil {
		t.Fatal(err)
	}
	next, err := AcquireLease(ctx, st, "r", LeaseOptions{Command: "next"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the run's context was not cancelled when its lease was taken")
	}
	err = l.Release(context.Canceled)
	var lost *LeaseLostError
	if !errors.As(err, &lost) || lost.Now.Command != "next" || stage.ExitCode(err) != stage.ExitTempFail {
		t.Fatalf("Release after loss: %v, want a *LeaseLostError naming the new holder, exit 75", err)
	}
	if cur, err := ReadLease(ctx, st, "r"); err != nil || cur.ID != next.Owner().ID {
		t.Fatalf("the new holder's lease: %+v, %v", cur, err)
	}
	next.Release(nil)
}

// TestLeaseReleasedAfterCancel: a run stopped by a signal (its context
// cancelled) still removes its lease, and returns its own error.
func TestLeaseReleasedAfterCancel(t *testing.T) {
	st := store.NewMem()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := AcquireLease(ctx, st, "r", LeaseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := l.Release(stage.ErrInterrupted); !errors.Is(err, stage.ErrInterrupted) {
		t.Fatalf("Release: %v, want the run's error", err)
	}
	if _, err := ReadLease(context.Background(), st, "r"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("lease after a cancelled run: %v, want none", err)
	}
}

// TestDeadLocalHolderIsBroken: a lease whose holder ran on this host and
// whose process is gone (a kill -9) is broken by the next taker, which
// says so and gets the lease, fresh heartbeat or not; after a kill -9 no
// run had to wait for a person to run saber lease break.
func TestDeadLocalHolderIsBroken(t *testing.T) {
	ctx := context.Background()
	host, _ := os.Hostname()
	for _, beat := range []time.Time{time.Now().UTC(), time.Now().Add(-time.Hour).UTC()} {
		st := store.NewMem()
		dead := LeaseOwner{ID: "dead", Run: "r", Host: host, PID: 1 << 30, Started: beat, Heartbeat: beat}
		writeLease(t, st, dead)
		if _, err := store.Put(ctx, st, layout.LeaseHeartbeatKey("r", "dead"), []byte(`{}`), store.Replace); err != nil {
			t.Fatal(err)
		}
		var out syncBuf
		l, err := AcquireLease(ctx, st, "r", LeaseOptions{Out: &out})
		if err != nil {
			t.Fatalf("heartbeat %s: take: %v", beat, err)
		}
		if o, _ := ReadLease(ctx, st, "r"); o.ID != l.Owner().ID {
			t.Errorf("lease now %+v, want the taker's", o)
		}
		if !strings.Contains(out.String(), "broke the run's lease") || !strings.Contains(out.String(), fmt.Sprintf("pid %d", 1<<30)) {
			t.Errorf("the break is not logged: %q", out.String())
		}
		if _, err := st.Stat(ctx, layout.LeaseHeartbeatKey("r", "dead")); !errors.Is(err, store.ErrNotExist) {
			t.Errorf("the dead holder's heartbeat is left: %v", err)
		}
		if err := l.Release(nil); err != nil {
			t.Fatal(err)
		}
	}
}
