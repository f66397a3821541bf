// Package par owns the small parallel loops that host-side preparation shares (graph layouts,
// orientation tables): work split in chunks of consecutive indexes over a number of goroutines.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunk is how many consecutive indexes a goroutine takes at a time.
const chunk = 1024

// For calls fn(i) for every i in [0, n) on up to workers goroutines (<= 0: all cores), in
// chunks of consecutive i taken dynamically, and returns when all calls have returned.
func For(n, workers int, fn func(i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, (n+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				lo := int(next.Add(chunk)) - chunk
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
