package study

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/saber-math/saber/lib/bt"
	"github.com/saber-math/saber/lib/parallel"
)

// perQueryWorkers runs fn for each of n simulated queries on workers
// goroutines (default: GOMAXPROCS), each with its own Bradley–Terry
// fitter, whose buffers it reuses from one query to the next; results are
// in query order, whatever order they finished in.
func perQueryWorkers[T any](ctx context.Context, n, workers int, fn func(i int, f *bt.Fitter) (T, error)) ([]T, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]T, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		parallel.Go(func() {
			defer wg.Done()
			var f bt.Fitter
			for i := range next {
				if ctx.Err() != nil {
					errs[i] = ctx.Err()
					continue
				}
				res[i], errs[i] = fn(i, &f)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return res, errors.Join(errs...)
}
