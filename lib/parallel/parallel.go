// Package parallel runs a loop's iterations on a bounded number of
// goroutines, stopping at the first error: the one worker pool the stages
// (queries, documents, tasks) and the retrievers (documents in flight)
// share. A Team runs the parts of sections too short for that, such as
// one query's BM25 index, on helpers that spin between sections.
package parallel

import (
	"context"
	"fmt"
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
