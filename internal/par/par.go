// Package par owns the small parallel loops that host-side code shares (graph layouts,
// orientation tables, per-root searches): work split in ranges of consecutive indexes that
// goroutines take in turn from a shared counter.
package par

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// maxChunk is the most consecutive indexes a goroutine of For takes at a time.
const maxChunk = 1024

// For calls fn(i) for every i in [0, n) on up to workers goroutines (<= 0: all cores), in
// chunks of consecutive i taken dynamically, and returns when all calls have returned. Chunks
// hold up to 1,024 indexes, fewer when n is small, so that a short loop over large items (a few
// hundred ranges of an array) still spreads over the goroutines.
func For(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk := min(maxChunk, max(1, n/(8*workers)))
	Ranges(n, workers, chunk, func(_, lo, hi int) bool {
		for i := lo; i < hi; i++ {
			fn(i)
		}
		return true
	})
}

// Workers is the number of goroutines Ranges(n, workers, chunk, ...) runs: workers (<= 0: all
// cores), no more than there are ranges, at least one. Callers that keep state per goroutine
// size their slices with it.
func Workers(n, workers, chunk int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk = max(chunk, 1)
	return max(1, min(workers, (n+chunk-1)/chunk))
}

// Ranges calls fn(w, lo, hi) for ranges [lo, hi) of at most chunk consecutive indexes that
// together cover [0, n) once, on Workers(n, workers, chunk) goroutines, each taking the next
// range in increasing order when it is free. w, in [0, Workers(...)), names the calling
// goroutine, so fn can keep per-goroutine state (a searcher, a partial sum) in a slice indexed
// by w without locks, and the caller merges those after Ranges returns. fn returns false to
// stop: a goroutine takes no range once it sees that (calls running finish, and one that was
// already taking its next range may still make that call: an fn that must not run after a stop
// checks for it itself). Ranges returns when every call has returned, and reports whether a call
// stopped it.
func Ranges(n, workers, chunk int, fn func(w, lo, hi int) bool) (stopped bool) {
	chunk = max(chunk, 1)
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range Workers(n, workers, chunk) {
		wg.Go(func() {
			for !stop.Load() {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				if !fn(w, lo, min(lo+chunk, n)) {
					stop.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return stop.Load()
}

// Each calls fn(ctx, i) for every i in [0, n), each on its own goroutine, with a context that
// ends with ctx or when the first call fails, and returns when all calls have returned: the
// first failure's error (not the cancellations it caused in the others), or nil.
func Each(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	for i := range n {
		wg.Go(func() {
			if err := fn(ctx, i); err != nil {
				once.Do(func() {
					first = err
					cancel()
				})
			}
		})
	}
	wg.Wait()
	return first
}
