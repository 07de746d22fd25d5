// Package parallel runs a loop's iterations on a bounded number of
// goroutines, stopping at the first error: the one worker pool the stages
// (queries, documents, tasks) and the retrievers (documents in flight)
// share. A Team runs the parts of sections too short for that, such as
// one query's BM25 index, on helpers that spin between sections.
package parallel

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// PanicError is a panic in one of For's calls, recovered on the worker
// goroutine that raised it. Unrecovered there, it would end the process
// (Go exits 2, which a batch job reads as bad input) before the caller
// could report it; For returns it as its first error instead.
type PanicError struct {
	// Value is what was passed to panic.
	Value any
	// Stack is the worker's stack at the panic.
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// For calls fn for every i in [0, n) on up to workers goroutines (at least
// one). At the first error it stops starting new calls and cancels the ctx
// the running ones got, with that error as its cause; it waits for them and
// returns the first error, or ctx's cause when ctx ends first. A call that
// panics is such an error: a *PanicError.
func For(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	workers = max(1, min(workers, n))
	var (
		next  atomic.Int64
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := call(ctx, i, fn); err != nil {
					once.Do(func() { first = err; cancel(err) })
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// call runs fn(ctx, i), turning a panic into a *PanicError.
func call(ctx context.Context, i int, fn func(ctx context.Context, i int) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, i)
}

// Go runs fn in a new goroutine, as a go statement does, except that a
// panic in fn does not end the process with the runtime's exit code 2,
// which every saber caller (saber run, the Slurm script) reads as "fix
// your input": it is recovered and handed to Crash, which prints it with
// the goroutine's stack and exits 1, the code for a bug. Every goroutine
// the project starts goes through Go or For (whose workers return a panic
// as a *PanicError instead).
func Go(fn func()) {
	go func() {
		defer Recover()
		fn()
	}()
}

// Recover, deferred at the top of a goroutine (as Go does), hands the
// goroutine's panic to Crash. It must be the deferred function itself:
// recover works only there.
func Recover() {
	if r := recover(); r != nil {
		Crash(&PanicError{Value: r, Stack: debug.Stack()})
	}
}

// Crash ends the process for a panic that no caller can receive: the
// panic and its stack on stderr, exit 1. A variable so that a test can
// see the panic without ending.
var Crash = func(p *PanicError) {
	fmt.Fprintf(os.Stderr, "panic in a goroutine (a bug, exit 1): %v\n\n%s", p.Value, p.Stack)
	os.Exit(1)
}
