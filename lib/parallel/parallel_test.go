package parallel

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	var sum atomic.Int64
	if err := For(context.Background(), 1000, 4, func(_ context.Context, i int) error { sum.Add(int64(i)); return nil }); err != nil || sum.Load() != 499500 {
		t.Fatalf("sum %d, %v", sum.Load(), err)
	}
	boom := errors.New("boom")
	var calls atomic.Int64
	// Stopping is prompt but not instant: the other worker may finish a
	// few more calls (many more under -race) before it sees the cancel.
	err := For(context.Background(), 1_000_000, 2, func(_ context.Context, i int) error {
		calls.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls.Load() > 10_000 {
		t.Fatalf("err %v after %d calls", err, calls.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := For(ctx, 10, 2, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
	if err := For(context.Background(), 0, 4, func(context.Context, int) error { return boom }); err != nil {
		t.Fatalf("n=0: %v", err)
	}
}

// TestForCancelsWithCause checks that the calls still running see the
// first error as their ctx's cause, so that an HTTP call cut short says why.
func TestForCancelsWithCause(t *testing.T) {
	boom := errors.New("boom")
	started := make(chan struct{})
	var cause error
	err := For(context.Background(), 2, 2, func(ctx context.Context, i int) error {
		if i == 0 {
			<-started
			return boom
		}
		close(started)
		<-ctx.Done()
		cause = context.Cause(ctx)
		return nil
	})
	if !errors.Is(err, boom) || !errors.Is(cause, boom) {
		t.Fatalf("err %v, cause seen by the other call %v; want boom for both", err, cause)
	}
}

// TestForRecoversPanic: a panicking call comes back as a *PanicError with
// the worker's stack, instead of ending the process (without the recover
// this test binary crashes).
func TestForRecoversPanic(t *testing.T) {
	err := For(context.Background(), 100, 4, func(_ context.Context, i int) error {
		if i == 7 {
			_ = []int{1}[i] // index out of range: a runtime panic
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "index out of range [7] with length 1") ||
		!strings.Contains(string(pe.Stack), "TestForRecoversPanic") {
		t.Fatalf("err = %v, want a *PanicError whose stack names the panicking function", err)
	}
}

// TestGoPanicExits1WithStack: a panic in a goroutine started with Go ends
// the process with exit 1 (a bug) and the panicking function's stack on
// stderr, not with the runtime's exit 2, which reads as bad input. The
// test runs itself as the process that panics.
func TestGoPanicExits1WithStack(t *testing.T) {
	if os.Getenv("SABER_TEST_GO_PANIC") == "1" {
		done := make(chan struct{})
		Go(func() { panicInGoroutine() })
		<-done // never closed: the panic ends the process
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGoPanicExits1WithStack$")
	cmd.Env = append(os.Environ(), "SABER_TEST_GO_PANIC=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "panicInGoroutine") || !strings.Contains(string(out), "boom") {
		t.Fatalf("exit %v, want 1 with the stack of panicInGoroutine:\n%s", err, out)
	}
}

func panicInGoroutine() { panic("boom") }

// TestGoHandsThePanicToCrash: Crash receives the panic value and the
// goroutine's stack.
func TestGoHandsThePanicToCrash(t *testing.T) {
	got := make(chan *PanicError, 1)
	old := Crash
	Crash = func(p *PanicError) { got <- p }
	defer func() { Crash = old }()
	Go(func() { panicInGoroutine() })
	p := <-got
	if p.Value != "boom" || !strings.Contains(string(p.Stack), "panicInGoroutine") {
		t.Errorf("Crash got %v with stack:\n%s", p.Value, p.Stack)
	}
}
