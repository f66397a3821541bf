package par

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, maxChunk - 1, maxChunk, 5*maxChunk + 3, 40 * maxChunk} {
		for _, workers := range []int{0, 1, 3} {
			seen := make([]atomic.Int32, n)
			For(n, workers, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n=%d workers=%d: index %d called %d times", n, workers, i, c)
				}
			}
		}
	}
}

// A short loop spreads over the workers: with 4 workers and 64 slow items, several goroutines
// must take part (one chunk of 1,024 would have run them all on one).
func TestForSpreadsShortLoops(t *testing.T) {
	var running, most atomic.Int32
	For(64, 4, func(int) {
		r := running.Add(1)
		for {
			m := most.Load()
			if r <= m || most.CompareAndSwap(m, r) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
	})
	if most.Load() < 2 {
		t.Errorf("64 items on 4 workers ran on %d goroutine(s) at a time", most.Load())
	}
}
