// Package par owns the small parallel loops that host-side preparation shares (graph layouts,
// orientation tables): work split in chunks of consecutive indexes over a number of goroutines.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// maxChunk is the most consecutive indexes a goroutine takes at a time.
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
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, (n+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
}
