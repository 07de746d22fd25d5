// Package parallel runs a loop's iterations on a bounded number of
// goroutines, stopping at the first error: the one worker pool the stages
// (queries, documents, tasks) and the retrievers (documents in flight)
// share. A Team runs the parts of sections too short for that, such as
// one query's BM25 index, on helpers that spin between sections.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// For calls fn for every i in [0, n) on up to workers goroutines (at least
// one). At the first error it stops starting new calls and cancels the ctx
// the running ones got, with that error as its cause; it waits for them and
// returns the first error, or ctx's cause when ctx ends first.
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
				if err := fn(ctx, i); err != nil {
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
